"""The bus keeps one sender's messages to one node whole and in order through a hung Redis.

A publish whose answer does not come may have been delivered or not: it is published again,
and the reader drops what it already had, so every message arrives once, in order. What
cannot be sent in time is given up, and the reader is told that it missed something from that
sender (so the sockets it relays for that sender's rooms reconnect) even if nothing follows.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field

import pytest

from app.cluster import bus as bus_module
from app.cluster.bus import FORGET_AFTER_S, Bus, bundle, stamped
from app.cluster.clients import redis_client
from app.cluster.keys import ClusterKeys
from tests.cluster.cluster import RedisServer
from tests.processes import free_port

KEYS = ClusterKeys("bus-test")
TIMEOUT_S = 0.5


@dataclass
class Reader:
    heard: list[bytes] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    resubscribed: int = 0
    undelivered: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def hear(self, message: bytes) -> None:
        self.heard.append(message)
        self.changed.set()

    def gap(self, node: str) -> None:
        self.gaps.append(node)
        self.changed.set()

    async def on_resubscribed(self) -> None:
        self.resubscribed += 1

    async def until(self, done: Callable[[], bool], within_s: float = 10.0) -> None:
        async with asyncio.timeout(within_s):
            while not done():
                self.changed.clear()
                await self.changed.wait()


def make_bus(url: str, node: str, reader: Reader) -> Bus:
    return Bus(
        redis_client(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S),
        redis_client(url),
        KEYS,
        node,
        "0ab1c2",
        on_message=reader.hear,
        on_resubscribed=reader.on_resubscribed,
        on_undelivered=lambda node, messages: reader.undelivered.append(node),
        on_gap=reader.gap,
    )


def reading_bus(reader: Reader) -> Bus:
    """Node b's bus with no Redis, for what it makes of the bundles handed to it."""
    return Bus(
        None,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        KEYS,
        "b",
        "9f9f9f",
        on_message=reader.hear,
        on_resubscribed=reader.on_resubscribed,
        on_undelivered=lambda node, messages: None,
        on_gap=reader.gap,
    )


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer(free_port()).start()
    try:
        yield server
    finally:
        if server.process is not None:
            server.process.send_signal(signal.SIGCONT)
        server.stop()


@pytest.fixture
async def buses(redis_server: RedisServer) -> AsyncIterator[tuple[Bus, Reader]]:
    """Node "a" sending, node "b" reading numbered bundles (its Reader records what it hears)."""
    sender, reader = make_bus(redis_server.url, "a", Reader()), Reader()
    sender.numbered = {"b"}
    receiver = make_bus(redis_server.url, "b", reader)
    await sender.start()
    await receiver.start()
    try:
        yield sender, reader
    finally:
        for bus in (sender, receiver):
            await bus.stop()
            await bus.redis.aclose()
            await bus.subscriber.aclose()


async def heard(reader: Reader, count: int) -> None:
    await reader.until(lambda: len(reader.heard) >= count)


def hang(redis_server: RedisServer) -> None:
    assert redis_server.process is not None
    redis_server.process.send_signal(signal.SIGSTOP)


def resume(redis_server: RedisServer) -> None:
    assert redis_server.process is not None
    redis_server.process.send_signal(signal.SIGCONT)


async def send_while_hung(sender: Bus, redis_server: RedisServer, messages: list[bytes]) -> None:
    """Hang Redis, send `messages` to "b" a few at a time (as a room's moves come: several
    publishes time out, some perhaps written to Redis's socket before it stopped reading),
    then resume it."""
    hang(redis_server)
    for at in range(0, len(messages), 5):
        for message in messages[at : at + 5]:
            sender.send("b", message)
        await asyncio.sleep(TIMEOUT_S / 2)
    resume(redis_server)


async def test_messages_sent_while_redis_hangs_arrive_once_each_in_order(
    buses: tuple[Bus, Reader], redis_server: RedisServer
) -> None:
    sender, reader = buses
    sent = [b"F%d" % n for n in range(300)]
    for message in sent[:100]:
        sender.send("b", message)
    await heard(reader, 100)
    await send_while_hung(sender, redis_server, sent[100:200])
    for message in sent[200:]:
        sender.send("b", message)
    await heard(reader, 300)
    await asyncio.sleep(4 * TIMEOUT_S)
    assert reader.heard == sent
    assert reader.gaps == []
    assert reader.undelivered == []


async def test_what_is_given_up_tells_the_reader_a_gap_even_if_nothing_follows(
    buses: tuple[Bus, Reader], redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bus_module, "GIVE_UP_S", 1.0)
    sender, reader = buses
    sender.send("b", b"F1")
    await heard(reader, 1)
    hang(redis_server)
    sender.send("b", b"F2")
    await asyncio.sleep(3.0)
    resume(redis_server)
    await reader.until(lambda: bool(reader.gaps))
    assert reader.gaps == ["a"]
    # F2 was given up. Its first try may have reached Redis's socket before Redis stopped, and
    # so be read when it resumes; nothing arrives twice or out of order.
    await asyncio.sleep(1.0)
    assert reader.heard in ([b"F1"], [b"F1", b"F2"])
    sender.send("b", b"F3")
    await heard(reader, len(reader.heard) + 1)
    assert reader.heard in ([b"F1", b"F3"], [b"F1", b"F2", b"F3"])
    assert reader.gaps == ["a"]


async def test_a_node_that_does_not_read_numbers_gets_plain_bundles_never_twice(
    buses: tuple[Bus, Reader], redis_server: RedisServer
) -> None:
    """As a node of an earlier release would: what a hung Redis lost is lost, as it was then,
    and nothing is published to it twice (it could not tell a second copy of a call)."""
    sender, reader = buses
    sender.numbered = set()
    sent = [b"F%d" % n for n in range(60)]
    for message in sent[:20]:
        sender.send("b", message)
    await heard(reader, 20)
    await send_while_hung(sender, redis_server, sent[20:40])
    await asyncio.sleep(4 * TIMEOUT_S)
    for message in sent[40:]:
        sender.send("b", message)
    await heard(reader, 40)
    await asyncio.sleep(TIMEOUT_S)
    assert reader.heard[:20] == sent[:20]
    assert reader.heard[-20:] == sent[40:]
    assert len(set(reader.heard)) == len(reader.heard)
    assert reader.heard == sorted(reader.heard, key=sent.index)
    assert reader.gaps == []


def test_a_reader_drops_a_bundle_it_already_had_and_reports_a_skipped_number() -> None:
    reader = Reader()
    bus = reading_bus(reader)
    inbox = KEYS.inbox("b").encode()
    first, restarted = b"node-a 0ab1c2", b"node-a 77e1e1"
    for stream, number, messages in [
        (first, 4, [b"F1", b"F2"]),
        (first, 5, [b"F3"]),
        (first, 5, [b"F3"]),  # published again after a lost answer
        (first, 4, [b"F1", b"F2"]),
        (first, 7, [b"F5"]),  # 6 given up
        (restarted, 1, [b"F6"]),  # the node's next process counts on its own
        (first, 8, []),
    ]:
        bus._heard_from(inbox, stamped(stream, number, messages))
    # A plain bundle, from a node of an earlier release: taken as it comes.
    bus._heard_from(inbox, bundle([b"F7", b"F8"]))
    bus._heard_from(inbox, b"F9")
    assert reader.heard == [b"F1", b"F2", b"F3", b"F5", b"F6", b"F7", b"F8", b"F9"]
    assert reader.gaps == ["node-a"]


def test_the_numbers_of_streams_no_more_of_use_are_forgotten() -> None:
    """A node started again, or gone, leaves streams whose last numbers would stay for good;
    they go once silent past FORGET_AFTER_S (nothing of theirs can be published again), and
    the numbers of a live node's current stream stay however quiet it is."""
    reader = Reader()
    bus = reading_bus(reader)
    inbox, everyone = KEYS.inbox("b").encode(), KEYS.everyone.encode()
    old, new, quiet, dead = b"node-a 0ab1c2", b"node-a 77e1e1", b"node-c 1c1c1c", b"node-d 0d0d0d"
    for stream in (old, quiet, dead):
        bus._heard_from(inbox, stamped(stream, 1, [b"x"]))
    bus._heard_from(everyone, stamped(old, 1, [b"x"]))
    later = time.monotonic() + FORGET_AFTER_S + 1
    bus._heard_from(inbox, stamped(new, 1, [b"y"]))
    bus._heard_at[(new, inbox)] = later  # heard just now, a minute on
    # Not silent for long enough: nothing goes.
    bus.forget_silent({"node-a", "node-c"}, now=later - FORGET_AFTER_S + 5)
    assert len(bus._heard) == 5
    bus.forget_silent({"node-a", "node-c"}, now=later)
    assert set(bus._heard) == {(new, inbox), (quiet, inbox)}
    # The quiet node's stream kept its number: a bundle published again is still dropped, and
    # a skipped one still reported.
    bus._heard_from(inbox, stamped(quiet, 1, [b"again"]))
    bus._heard_from(inbox, stamped(quiet, 3, [b"z"]))
    assert b"again" not in reader.heard
    assert reader.gaps == ["node-c"]
