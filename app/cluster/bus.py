"""Messages between nodes over Redis pub/sub, in order per destination.

Each node reads two channels: its own inbox and the one every node reads. Sending never waits:
a message is queued for its destination, and one sender task publishes whatever has queued, as
one bundle per destination and every destination's in one round trip to Redis (a relayed move's
ack, patches and answer are one message, not three). Messages to one node leave in the order
they were queued, and Redis delivers one publisher's messages in order, so a socket's patches
relayed through Redis keep their version order.

Each bundle to a node's inbox carries its sender (node and process) and a number that counts
the sender's bundles to that channel. A publish whose answer did not come (Redis hung, the
connection dropped) may have been delivered or not: it is published again, with its number,
until it goes through, and a reader drops a number it has already had. One that cannot be sent
within GIVE_UP_S is dropped, and an empty bundle with the next number goes in its place: the
reader sees a number skipped (`on_gap`), so it knows that what the sender sent it meanwhile is
lost, even if nothing else follows. Bundles are numbered only to nodes that say they read
numbers (`numbered`, from their marks of being alive): during a rolling upgrade a node of a
release before them gets plain bundles, never published twice, and every node reads both;
bundles to every node are plain.

Pub/sub keeps nothing for a reader that is away: a node that loses its subscription (Redis
restarted, the connection dropped) is told when it is back (`on_resubscribed`), since what was
sent to it meanwhile is gone. A publish that reached no reader, on its first try, means the
destination node is gone, and what it was sent never arrived (`on_undelivered`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from redis.asyncio import Connection, Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from app.cluster.keys import ClusterKeys
from app.metrics.meters import NOTHING, Count

log = logging.getLogger(__name__)

RETRY_FIRST_S = 0.1
RETRY_MAX_S = 2.0
# How long a bundle is published again before it is given up (the calls in it have long
# timed out; the sockets its patches were for reconnect).
GIVE_UP_S = 10.0
# Several messages to one node in one publish: this byte, then each as its length and itself.
BUNDLE = b"B"
# A numbered bundle: this byte, the sender's stream (its length in a byte, then itself), the
# number (8 bytes), then the bundle.
NUMBERED = b"N"
# A sender's stream silent this long has nothing left to publish again (its retries stop
# GIVE_UP_S after a bundle was queued): its last number is forgotten once the stream is of no
# more use, its node gone or started again (a newer stream of the same node heard since).
FORGET_AFTER_S = 60.0


def bundle(messages: list[bytes]) -> bytes:
    if len(messages) == 1:
        return messages[0]
    return BUNDLE + b"".join(len(m).to_bytes(4, "big") + m for m in messages)


def stamped(stream: bytes, number: int, messages: list[bytes]) -> bytes:
    """A bundle with its sender's stream (node and process) and its number on the channel."""
    head = NUMBERED + bytes((len(stream),)) + stream + number.to_bytes(8, "big")
    return head + bundle(messages)


def unstamped(data: bytes) -> tuple[bytes, int, bytes]:
    """(stream, number, bundle) of a numbered bundle."""
    end = 2 + data[1]
    return data[2:end], int.from_bytes(data[end : end + 8], "big"), data[end + 8 :]


def unbundle(data: bytes) -> list[bytes]:
    if data[:1] != BUNDLE:
        return [data]
    messages, at = [], 1
    while at < len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        messages.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return messages


@dataclass(slots=True)
class Publish:
    """A bundle to publish to one channel, with its number there."""

    channel: str
    # None: plain, for a node that does not read numbers (published once, never again).
    number: int | None
    messages: list[bytes]
    first_queued: float
    tried: bool = False


class Bus:
    def __init__(
        self,
        redis: Redis,
        subscriber: Redis,
        keys: ClusterKeys,
        node_id: str,
        incarnation: str,
        *,
        on_message: Callable[[bytes], None],
        on_resubscribed: Callable[[], Awaitable[None]],
        on_undelivered: Callable[[str, list[bytes]], None],
        on_gap: Callable[[str], None],
    ) -> None:
        self.redis = redis
        # Its own client: a subscription blocks its connection, and waits without a timeout.
        self.subscriber = subscriber
        self.keys = keys
        self.node_id = node_id
        self.on_message = on_message
        self.on_resubscribed = on_resubscribed
        self.on_undelivered = on_undelivered
        self.on_gap = on_gap
        # Counts the messages published again (the node sets its app's counter).
        self.published_again: Count = NOTHING
        self._stream = f"{node_id} {incarnation}".encode()
        # The nodes that read numbered bundles (the node keeps it up to date).
        self.numbered: set[str] = set()
        # Destination channel -> messages in the order queued.
        self._queued: dict[str, list[bytes]] = {}
        # Published but not known to have gone through, oldest first.
        self._unsent: list[Publish] = []
        # Channel -> the number of the last bundle sent to it.
        self._numbers: dict[str, int] = {}
        # (sender's stream, channel) -> the number of the last bundle read from it, and when.
        self._heard: dict[tuple[bytes, bytes], int] = {}
        self._heard_at: dict[tuple[bytes, bytes], float] = {}
        self._wake = asyncio.Event()
        self._subscribed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._read(), name="bus-reader"),
            loop.create_task(self._send(), name="bus-sender"),
        ]
        # Calls may be answered only once this node hears its inbox.
        await self._subscribed.wait()

    async def stop(self) -> None:
        """Send what is queued, then stop reading and sending."""
        self._stopping = True
        self._wake.set()
        reader, sender = self._tasks or (None, None)
        if sender is not None:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                async with asyncio.timeout(5):
                    await sender
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader

    def send(self, node_id: str, message: bytes) -> None:
        self._queue(self.keys.inbox(node_id), message)

    def send_everyone(self, message: bytes) -> None:
        self._queue(self.keys.everyone, message)

    def _queue(self, channel: str, message: bytes) -> None:
        queued = self._queued.get(channel)
        if queued is None:
            self._queued[channel] = [message]
        else:
            queued.append(message)
        self._wake.set()

    async def _send(self) -> None:
        connection: Connection | None = None
        delay = RETRY_FIRST_S
        while True:
            await self._wake.wait()
            self._wake.clear()
            self._number_queued()
            if self._unsent:
                try:
                    if connection is None:
                        connection = await self.redis.connection_pool.get_connection()  # type: ignore[no-untyped-call]
                    await self._publish(connection, self._unsent)
                    self._unsent = []
                    delay = RETRY_FIRST_S
                except (RedisError, OSError) as error:
                    # Delivered or not: published again (readers drop what they already had)
                    # once Redis answers, or given up.
                    log.warning("could not publish to %d channels: %s", len(self._unsent), error)
                    if connection is not None:
                        await self._drop(connection)
                        connection = None
                    self._unsent = [p for p in self._unsent if p.number is not None]
                    for publish in self._unsent:
                        publish.tried = True
                        self.published_again.inc(len(publish.messages))
                    self._give_up_old()
                    if self._stopping:
                        return
                    await asyncio.sleep(delay)
                    delay = min(RETRY_MAX_S, delay * 2)
                    self._wake.set()
                    continue
            if self._stopping and not self._queued:
                if connection is not None:
                    await self.redis.connection_pool.release(connection)
                return

    def _number_queued(self) -> None:
        batch, self._queued = self._queued, {}
        now = asyncio.get_running_loop().time()
        inbox_prefix = self.keys.inbox("")
        for channel, messages in batch.items():
            numbered = channel.startswith(inbox_prefix) and (
                channel[len(inbox_prefix) :] in self.numbered
            )
            number = self._next_number(channel) if numbered else None
            self._unsent.append(Publish(channel, number, messages, now))

    def _next_number(self, channel: str) -> int:
        number = self._numbers.get(channel, 0) + 1
        self._numbers[channel] = number
        return number

    def _give_up_old(self) -> None:
        """Drop what has waited GIVE_UP_S; a channel left with nothing after it gets an empty
        bundle with the next number, so its reader learns that something was lost."""
        now = asyncio.get_running_loop().time()
        old = [p for p in self._unsent if now - p.first_queued >= GIVE_UP_S]
        if not old:
            return
        self._unsent = [p for p in self._unsent if now - p.first_queued < GIVE_UP_S]
        kept = {publish.channel for publish in self._unsent}
        lost = {publish.channel for publish in old} - kept
        log.warning("gave up publishing to %d channels", len({p.channel for p in old}))
        for channel in lost:
            self._unsent.append(Publish(channel, self._next_number(channel), [], now))

    async def _publish(self, connection: Connection, unsent: list[Publish]) -> None:
        """Every publish in one round trip."""
        commands = [
            (
                "PUBLISH",
                p.channel,
                bundle(p.messages)
                if p.number is None
                else stamped(self._stream, p.number, p.messages),
            )
            for p in unsent
        ]
        # The connection's own calls, without a pipeline's bookkeeping (a third of its cost).
        await connection.send_packed_command(connection.pack_commands(commands), False)
        readers = [await connection.read_response() for _ in commands]
        inbox_prefix = self.keys.inbox("")
        for publish, count in zip(unsent, readers, strict=True):
            # Nobody read it: the node is gone. After a try whose answer was lost it may have
            # had the bundle then, so its calls are left to time out, as made or not.
            if count == 0 and not publish.tried and publish.channel.startswith(inbox_prefix):
                self.on_undelivered(publish.channel[len(inbox_prefix) :], publish.messages)

    async def _drop(self, connection: Connection) -> None:
        with contextlib.suppress(RedisError, OSError):
            await connection.disconnect()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.connection_pool.release(connection)

    async def _read(self) -> None:
        delay = RETRY_FIRST_S
        first = True
        while True:
            pubsub: PubSub | None = None
            try:
                pubsub = self.subscriber.pubsub(ignore_subscribe_messages=True)
                await pubsub.subscribe(self.keys.inbox(self.node_id), self.keys.everyone)
                if not first:
                    log.warning("listening to the cluster again")
                    await self.on_resubscribed()
                first = False
                self._subscribed.set()
                delay = RETRY_FIRST_S
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None and message["type"] == "message":
                        self._heard_from(message["channel"], message["data"])
            except (RedisError, OSError) as error:
                log.warning("lost the cluster's channels (%s); retrying in %.1f s", error, delay)
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX_S, delay * 2)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(RedisError, OSError):
                        await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8

    def _heard_from(self, channel: bytes, data: bytes) -> None:
        if data[:1] != NUMBERED:
            self._hear(data)
            return
        stream, number, bundled = unstamped(data)
        key = (stream, channel)
        last = self._heard.get(key)
        if last is not None and number <= last:
            return  # published again after a lost answer, and already had
        self._heard[key] = number
        self._heard_at[key] = time.monotonic()
        if last is not None and number > last + 1:
            self.on_gap(stream.partition(b" ")[0].decode())
        self._hear(bundled)

    def forget_silent(self, alive: set[str], now: float | None = None) -> None:
        """Forget the numbers of streams silent for FORGET_AFTER_S whose node is not in
        `alive` or has been heard from in a newer stream since (a node started again): each
        restart of a node would otherwise leave its old streams here for good."""
        now = time.monotonic() if now is None else now
        newest: dict[bytes, tuple[float, bytes]] = {}
        for (stream, _), at in self._heard_at.items():
            node = stream.partition(b" ")[0]
            if node not in newest or at > newest[node][0]:
                newest[node] = (at, stream)
        for key, at in list(self._heard_at.items()):
            node = key[0].partition(b" ")[0]
            if now - at < FORGET_AFTER_S:
                continue
            if node.decode() not in alive or newest[node][1] != key[0]:
                del self._heard[key]
                del self._heard_at[key]

    def _hear(self, bundled: bytes) -> None:
        for each in unbundle(bundled):
            try:
                self.on_message(each)
            except Exception:
                log.exception("a cluster message could not be handled")
