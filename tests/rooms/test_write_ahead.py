"""Actions reach the durable log before anyone hears of them, and a restart replays the log."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from app.bots.registry import make_bot
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.flow import one_table
from app.rooms.match import CHECKPOINT_EVERY
from app.rooms.room import Room, RoomTimings
from app.rooms.tokens import hash_token, new_token
from app.storage.memory_store import MemoryMatchStore
from app.storage.migrate import upgrade_to_head
from app.storage.store import MatchStore, StoreError, open_store
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

TIMINGS = RoomTimings(bot_delay_s=0, reconnect_grace_s=0, between_hands_s=0)


class FlakyStore(MemoryMatchStore):
    """The in-memory store with a switch that makes log writes fail or wait."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False
        self.gate: asyncio.Event | None = None

    async def append_action(self, **kwargs: Any) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.failing:
            raise StoreError("unavailable", "the disk is gone")
        await super().append_action(**kwargs)


class Inbox:
    """Where a room's messages for one connection land."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.messages.append(json.loads(text))

    def close(self, code: int, reason: str) -> None:
        self.messages.append({"type": "closed", "code": code})


async def started_room(store: MatchStore, game: str = "rummikub") -> tuple[Room, list[str]]:
    directory = RoomDirectory(store=store, timings=TIMINGS, make_bot=make_bot)
    room = await directory.create(
        game=game, players=2, options={}, bots=[], public=False, spectators=True
    )
    hashes = [hash_token(new_token()) for _ in range(2)]
    for name, token_hash in zip(("ann", "bob"), hashes, strict=True):
        await room.join(name, None, token_hash)
    for token_hash in hashes:
        await room.ready(token_hash)
    return room, hashes


def to_act(room: Room) -> int:
    assert room.match is not None
    return room.match.engine.to_act()[0]


async def next_to_act(room: Room) -> int:
    """The seat to act; a hand that just ended is followed by the room's own deal (no pause)."""
    assert room.match is not None
    for _ in range(1000):
        if room.match.engine.to_act():
            return to_act(room)
        await asyncio.sleep(0.005)
    raise AssertionError("nobody could act for 5 s")


async def test_a_failed_log_write_is_refused_and_leaves_the_room_as_it_was() -> None:
    store = FlakyStore()
    room, hashes = await started_room(store)
    inbox = Inbox()
    await room.connect(inbox, None)
    assert room.match is not None
    before, version = room.match.engine.to_json(), room.version
    store.failing = True
    with pytest.raises(RoomError) as refused:
        await room.act(hashes[to_act(room)], {"type": "draw"}, version)
    assert refused.value.code == "storage_unavailable"
    assert room.match.engine.to_json() == before
    assert room.version == version
    assert [m["type"] for m in inbox.messages] == ["snapshot"]
    store.failing = False
    await room.act(hashes[to_act(room)], {"type": "draw"}, version)
    stored = await store.load_match(match_id=room.match.match_id)
    assert stored is not None
    assert [a.index for a in stored.actions] == [0]


async def play_legal_moves(room: Room, hashes: list[str], count: int) -> None:
    """`count` actions, each the first legal action of the seat to act (hands dealt between)."""
    for _ in range(count):
        seat = await next_to_act(room)
        assert room.match is not None
        action = room.match.engine.legal_actions(seat)[0]
        await room.act(hashes[seat], action, room.version)


@pytest.mark.parametrize("moves_before", [1, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY + 5])
async def test_a_failed_log_write_deep_in_a_match_restores_the_exact_state(
    moves_before: int,
) -> None:
    store = FlakyStore()
    room, hashes = await started_room(store, game="gin_rummy")
    await play_legal_moves(room, hashes, moves_before)
    assert room.match is not None
    seat = await next_to_act(room)
    action = room.match.engine.legal_actions(seat)[-1]
    before, version = room.match.engine.to_json(), room.version
    store.failing = True
    with pytest.raises(RoomError) as refused:
        await room.act(hashes[seat], action, version)
    assert refused.value.code == "storage_unavailable"
    assert room.match.engine.to_json() == before
    store.failing = False
    await room.act(hashes[seat], action, version)
    stored = await store.load_match(match_id=room.match.match_id)
    assert stored is not None
    assert len(stored.actions) == moves_before + 1


async def test_a_failed_write_mid_turn_in_rummikub_restores_the_tentative_table() -> None:
    store = FlakyStore()
    room, hashes = await started_room(store, game="rummikub")
    for _ in range(CHECKPOINT_EVERY + 3):
        seat = await next_to_act(room)
        await room.act(hashes[seat], {"type": "draw"}, room.version)
    assert room.match is not None
    seat = await next_to_act(room)
    rack = room.match.engine.view(seat)["rack"]
    await room.act(hashes[seat], {"type": "move", "tile": rack[0], "to": "new"}, room.version)
    before, version = room.match.engine.to_json(), room.version
    store.failing = True
    with pytest.raises(RoomError):
        await room.act(hashes[seat], {"type": "move", "tile": rack[1], "to": "new"}, version)
    assert room.match.engine.to_json() == before
    store.failing = False
    await room.act(hashes[seat], {"type": "reset"}, version)


def simple_move(room: Room, seat: int) -> dict[str, Any]:
    """A legal action of `seat`: a draw in Rummikub, the first legal action in Gin Rummy."""
    assert room.match is not None
    if room.spec.game == "rummikub":
        return {"type": "draw"}
    return room.match.engine.legal_actions(seat)[0]


async def play_simple_moves(room: Room, hashes: list[str], count: int) -> None:
    for _ in range(count):
        seat = await next_to_act(room)
        await room.act(hashes[seat], simple_move(room, seat), room.version)


class LostAnswerStore(MemoryMatchStore):
    """The in-memory store, whose next log write lands but is answered with a lost connection
    (a database that committed, then lost the connection before the commit's reply)."""

    def __init__(self) -> None:
        super().__init__()
        self.lose_answer = False

    async def append_action(self, **kwargs: Any) -> None:
        await super().append_action(**kwargs)
        if self.lose_answer:
            self.lose_answer = False
            raise OSError("connection reset after the commit")


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
async def test_an_action_saved_though_its_write_failed_is_taken_back_into_the_room(
    game: str,
) -> None:
    """The log holds an action the room was told failed: the room's next write at that index
    finds it there, and the room takes it in (shown to everyone) instead of refusing every
    later action of the match as a duplicate."""
    store = LostAnswerStore()
    room, hashes = await started_room(store, game=game)
    inbox = Inbox()
    await room.connect(inbox, None)
    await play_simple_moves(room, hashes, CHECKPOINT_EVERY + 2)
    assert room.match is not None
    seat = await next_to_act(room)
    action = simple_move(room, seat)
    before, version = room.match.engine.to_json(), room.version
    store.lose_answer = True
    with pytest.raises(RoomError) as refused:
        await room.act(hashes[seat], action, version)
    assert refused.value.code == "storage_unavailable"
    assert "may have been saved" in refused.value.message
    assert room.match.engine.to_json() == before
    # The same action again: it is in the log, so the room takes it in and says the game moved.
    with pytest.raises(RoomError) as moved:
        await room.act(hashes[seat], action, version)
    assert moved.value.code == "stale_version"
    stored = await store.load_match(match_id=room.match.match_id)
    assert stored is not None
    assert [a.index for a in stored.actions] == list(range(CHECKPOINT_EVERY + 3))
    assert room.version > version
    assert inbox.messages[-1]["type"] == "patch"
    assert inbox.messages[-1]["version"] == room.version
    # The room holds what the log holds, and plays on.
    replayed = type(room.match.engine).new(stored.config, stored.players, seed=stored.seed)
    for logged in stored.actions:
        replayed.apply(logged.seat, logged.action)
    assert room.match.engine.to_json() == replayed.to_json()
    await play_simple_moves(room, hashes, 3)
    stored = await store.load_match(match_id=room.match.match_id)
    assert stored is not None
    assert [a.index for a in stored.actions] == list(range(CHECKPOINT_EVERY + 6))


async def test_an_engine_failure_is_an_internal_error_and_changes_nothing() -> None:
    store = MemoryMatchStore()
    room, hashes = await started_room(store, game="gin_rummy")
    await play_legal_moves(room, hashes, 3)
    assert room.match is not None
    engine = room.match.engine
    seat = await next_to_act(room)
    before, version = engine.to_json(), room.version

    class BrokenEngine:
        """The engine, but its apply leaves half an action behind and crashes: the engine bug
        the room guards against. (A wrapper: a compiled engine's methods cannot be replaced.)"""

        def __getattr__(self, name: str) -> Any:
            return getattr(engine, name)

        def apply(self, seat: int | None, action: Any) -> None:
            engine.hands.clear()
            raise ValueError("engine bug")

    room.match.engine = BrokenEngine()  # type: ignore[assignment]
    # Two players play at one table: the flow need not ask the engine which (it checks the type).
    room.flow = dataclasses.replace(room.flow, table_of=one_table)
    with pytest.raises(RoomError) as refused:
        await room.act(hashes[seat], {"type": "draw", "source": "stock"}, version)
    assert refused.value.code == "internal_error"
    assert room.match.engine is not engine
    assert room.match.engine.to_json() == before
    assert room.version == version
    await play_legal_moves(room, hashes, 1)


async def test_no_patch_goes_out_before_the_action_is_durable() -> None:
    store = FlakyStore()
    room, hashes = await started_room(store)
    inbox = Inbox()
    await room.connect(inbox, None)
    store.gate = asyncio.Event()
    acting = asyncio.create_task(room.act(hashes[to_act(room)], {"type": "draw"}))
    await asyncio.sleep(0.05)
    assert not acting.done()
    assert [m["type"] for m in inbox.messages] == ["snapshot"]
    store.gate.set()
    version = await acting
    assert inbox.messages[-1] == {**inbox.messages[-1], "type": "patch", "version": version}


async def test_a_restarted_directory_rebuilds_the_match_from_the_log(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
    await upgrade_to_head(url)
    store = open_store(url)
    await store.start()
    room, hashes = await started_room(store, game="gin_rummy")
    bots = [make_bot("gin_rummy", "normal", seat) for seat in range(2)]
    for _ in range(15):
        seat = await next_to_act(room)
        assert room.match is not None
        engine = room.match.engine
        await room.act(
            hashes[seat], bots[seat].choose(engine.view(seat), engine.legal_actions(seat))
        )
    # A move that ended a hand is followed by the room's own deal: the log holds it once made.
    await next_to_act(room)
    views = [room.document(seat)["game"] for seat in (0, 1, None)]
    await room.close()
    await store.close()

    store = open_store(url)
    await store.start()
    directory = RoomDirectory(store=store, timings=TIMINGS, make_bot=make_bot)
    assert await directory.recover() == 1
    again = directory.get(room.room_id)
    assert [again.document(seat)["game"] for seat in (0, 1, None)] == views
    assert [seat.name for seat in again.seats] == ["ann", "bob"]
    seat = await next_to_act(again)
    version, _ = await again.read(hashes[seat])
    assert again.match is not None
    engine = again.match.engine
    action = bots[seat].choose(engine.view(seat), engine.legal_actions(seat))
    assert await again.act(hashes[seat], action, version) > version
    await directory.close()
    await store.close()


@pytest.mark.parametrize(
    "database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def test_an_action_saved_though_its_write_failed_is_taken_in_on_a_database(
    database: str, tmp_path: Path
) -> None:
    """As above, with the duplicate found by the database's own key on the action log."""
    if database == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
    else:
        url = await fresh_postgres_database()
    try:
        await upgrade_to_head(url)
        store = open_store(url)
        await store.start()
        lose_answer = False
        append = store.append_action

        async def lands_then_loses_the_answer(**kwargs: Any) -> None:
            nonlocal lose_answer
            await append(**kwargs)
            if lose_answer:
                lose_answer = False
                raise OSError("connection reset after the commit")

        store.append_action = lands_then_loses_the_answer  # type: ignore[method-assign]
        try:
            room, hashes = await started_room(store, game="gin_rummy")
            await play_simple_moves(room, hashes, 3)
            assert room.match is not None
            seat = await next_to_act(room)
            action = simple_move(room, seat)
            lose_answer = True
            with pytest.raises(RoomError) as refused:
                await room.act(hashes[seat], action, room.version)
            assert refused.value.code == "storage_unavailable"
            with pytest.raises(RoomError) as moved:
                await room.act(hashes[seat], action, room.version)
            assert moved.value.code == "stale_version"
            await play_simple_moves(room, hashes, 3)
            stored = await store.load_match(match_id=room.match.match_id)
            assert stored is not None
            assert [a.index for a in stored.actions] == list(range(7))
            replayed = type(room.match.engine).new(stored.config, stored.players, seed=stored.seed)
            for logged in stored.actions:
                replayed.apply(logged.seat, logged.action)
            assert room.match.engine.to_json() == replayed.to_json()
            await room.close()
        finally:
            await store.close()
    finally:
        if database == "postgres":
            await drop_postgres_database(url)


async def test_a_match_created_though_its_write_failed_is_the_one_the_room_plays() -> None:
    """The match's creation commits but is answered with a lost connection: the room's start,
    tried again by its timer, finds that match, and leaves no second, empty one active."""

    class LostCreation(MemoryMatchStore):
        lose_answer = True

        async def create_match(self, **kwargs: Any) -> None:
            await super().create_match(**kwargs)
            if self.lose_answer:
                self.lose_answer = False
                raise OSError("connection reset after the commit")

    store = LostCreation()
    room, hashes = await started_room(store, game="gin_rummy")
    for _ in range(500):
        if room.match is not None:
            break
        await asyncio.sleep(0.01)
    assert room.match is not None, "the room did not start"
    active = [m for m in await store.unfinished_matches() if m.room_id == room.spec.room_id]
    assert [m.match_id for m in active] == [room.match.match_id]
    assert active[0].seed == room.match.seed
    await play_simple_moves(room, hashes, 3)
    stored = await store.load_match(match_id=room.match.match_id)
    assert stored is not None
    assert [a.index for a in stored.actions] == [0, 1, 2]
