"""Messages between nodes over Redis pub/sub, in order per destination.

Each node reads two channels: its own inbox and the one every node reads. Sending never waits:
a message is queued for its destination, and one sender task publishes whatever has queued, as
one bundle per destination and every destination's in one round trip to Redis (a relayed move's
ack, patches and answer are one message, not three). Messages to one node leave in the order
they were queued, and Redis delivers one publisher's messages in order, so a socket's patches
relayed through Redis keep their version order.

Pub/sub keeps nothing for a reader that is away: a node that loses its subscription (Redis
restarted, the connection dropped) is told when it is back (`on_resubscribed`), since what was
sent to it meanwhile is gone. A publish that reached no reader means the destination node is
gone, and what it was sent never arrived (`on_undelivered`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from redis.asyncio import Connection, Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from app.cluster.keys import ClusterKeys

log = logging.getLogger(__name__)

RETRY_FIRST_S = 0.1
RETRY_MAX_S = 2.0
# Several messages to one node in one publish: this byte, then each as its length and itself.
BUNDLE = b"B"


def bundle(messages: list[bytes]) -> bytes:
    if len(messages) == 1:
        return messages[0]
    return BUNDLE + b"".join(len(m).to_bytes(4, "big") + m for m in messages)


def unbundle(data: bytes) -> list[bytes]:
    if data[:1] != BUNDLE:
        return [data]
    messages, at = [], 1
    while at < len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        messages.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return messages


class Bus:
    def __init__(
        self,
        redis: Redis,
        subscriber: Redis,
        keys: ClusterKeys,
        node_id: str,
        *,
        on_message: Callable[[bytes], None],
        on_resubscribed: Callable[[], Awaitable[None]],
        on_undelivered: Callable[[str, list[bytes]], None],
    ) -> None:
        self.redis = redis
        # Its own client: a subscription blocks its connection, and waits without a timeout.
        self.subscriber = subscriber
        self.keys = keys
        self.node_id = node_id
        self.on_message = on_message
        self.on_resubscribed = on_resubscribed
        self.on_undelivered = on_undelivered
        # Destination channel -> messages in the order queued.
        self._queued: dict[str, list[bytes]] = {}
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
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._queued = self._queued, {}
            if batch:
                try:
                    if connection is None:
                        connection = await self.redis.connection_pool.get_connection()  # type: ignore[no-untyped-call]
                    await self._publish(connection, batch)
                except (RedisError, OSError) as error:
                    # Lost with Redis: the callers' waits time out, and the nodes that missed
                    # messages for their sockets find out when they subscribe again.
                    log.warning("could not publish to %d channels: %s", len(batch), error)
                    if connection is not None:
                        await self._drop(connection)
                        connection = None
            if self._stopping and not self._queued:
                if connection is not None:
                    await self.redis.connection_pool.release(connection)
                return

    async def _publish(self, connection: Connection, batch: dict[str, list[bytes]]) -> None:
        """One PUBLISH per destination, every one in one round trip."""
        channels = list(batch)
        commands = [("PUBLISH", channel, bundle(batch[channel])) for channel in channels]
        # The connection's own calls, without a pipeline's bookkeeping (a third of its cost).
        await connection.send_packed_command(connection.pack_commands(commands), False)
        readers = [await connection.read_response() for _ in commands]
        inbox_prefix = self.keys.inbox("")
        for channel, count in zip(channels, readers, strict=True):
            if count == 0 and channel.startswith(inbox_prefix):
                self.on_undelivered(channel[len(inbox_prefix) :], batch[channel])

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
                        for each in unbundle(message["data"]):
                            try:
                                self.on_message(each)
                            except Exception:
                                log.exception("a cluster message could not be handled")
            except (RedisError, OSError) as error:
                log.warning("lost the cluster's channels (%s); retrying in %.1f s", error, delay)
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX_S, delay * 2)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(RedisError, OSError):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]
