"""The server's Rummikub turn clock: a deadline in the document, a timeout when it passes."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from app.bots.registry import make_bot
from app.rooms import flow
from app.rooms.directory import RoomDirectory
from app.rooms.tokens import hash_token, new_token
from app.storage.memory_store import MemoryMatchStore
from tests.rooms.test_write_ahead import TIMINGS, Inbox


class Watcher(Inbox):
    def __init__(self) -> None:
        super().__init__()
        self.arrived = asyncio.Event()

    def send(self, text: str) -> None:
        super().send(text)
        self.arrived.set()


# The engine refuses timers under 10 s; the room's clock is shortened here so the test is quick.
SHORT_TURN_S = 0.3


@pytest.fixture
def short_turns(monkeypatch):  # type: ignore[no-untyped-def]
    quick = dataclasses.replace(
        flow.FLOWS["rummikub"],
        turn_seconds=lambda options: SHORT_TURN_S if options["turn_timer_s"] else 0,
    )
    monkeypatch.setitem(flow.FLOWS, "rummikub", quick)


async def test_a_turn_that_runs_out_is_ended_by_the_room_with_penalty_tiles(short_turns) -> None:
    directory = RoomDirectory(store=MemoryMatchStore(), timings=TIMINGS, make_bot=make_bot)
    room = await directory.create(
        game="rummikub",
        players=2,
        options={"turn_timer_s": 60},
        bots=[],
        public=False,
        spectators=True,
    )
    hashes = [hash_token(new_token()) for _ in range(2)]
    for name, token_hash in zip(("ann", "bob"), hashes, strict=True):
        await room.join(name, None, token_hash)
    for token_hash in hashes:
        await room.ready(token_hash)
    watcher = Watcher()
    await room.connect(watcher, None)
    assert room.match is not None
    sleeper = room.match.engine.to_act()[0]
    first = room.document(None)["deadline"]
    assert first is not None
    async with asyncio.timeout(SHORT_TURN_S * 10):
        while room.match.engine.to_act() == [sleeper]:
            watcher.arrived.clear()
            await watcher.arrived.wait()
    assert room.match.engine.to_act() == [1 - sleeper]
    assert room.match.engine.view(sleeper)["seats"][sleeper]["rack_size"] == 14 + 3
    assert room.document(None)["deadline"] > first
    assert watcher.messages[-1]["type"] == "patch"
    await directory.close()


async def test_a_game_without_a_timer_has_no_deadline() -> None:
    directory = RoomDirectory(store=MemoryMatchStore(), timings=TIMINGS, make_bot=make_bot)
    room = await directory.create(
        game="rummikub",
        players=2,
        options={},
        bots=[(0, "normal"), (1, "normal")],
        public=False,
        spectators=True,
    )
    assert room.document(None)["deadline"] is None
    await directory.close()
