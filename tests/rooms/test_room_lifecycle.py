"""Rooms are saved before anyone hears of a seat change, come back after a restart, and
close once nobody has used them for the idle time."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from app.bots.registry import make_bot
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.room import Room
from app.rooms.sweeper import IdleRoomSweeper
from app.rooms.tokens import hash_token, new_token
from app.storage.memory_store import MemoryMatchStore
from app.storage.store import MatchStore, RoomRecord, StoreError
from tests.rooms.test_write_ahead import TIMINGS, Inbox, started_room

IDLE_S = 0.05


class RoomSaveFailingStore(MemoryMatchStore):
    """The in-memory store with a switch that makes room writes fail."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False

    async def save_room(self, *, room: RoomRecord) -> None:
        if self.failing:
            raise StoreError("unavailable", "the disk is gone")
        await super().save_room(room=room)


def directory_on(store: MatchStore) -> RoomDirectory:
    return RoomDirectory(store=store, timings=TIMINGS, make_bot=make_bot)


async def waiting_room(directory: RoomDirectory, **options: Any) -> Room:
    return await directory.create(
        game="gin_rummy", players=2, options=options, bots=[], public=True, spectators=True
    )


async def test_a_join_the_store_cannot_keep_is_refused_and_leaves_the_seat_free() -> None:
    store = RoomSaveFailingStore()
    room = await waiting_room(directory_on(store))
    token_hash = hash_token(new_token())
    store.failing = True
    with pytest.raises(RoomError) as refused:
        await room.join("ann", None, token_hash)
    assert refused.value.code == "storage_unavailable"
    assert [seat.kind.value for seat in room.seats] == ["empty", "empty"]
    with pytest.raises(RoomError):
        room.seat_for(token_hash)
    store.failing = False
    assert await room.join("ann", None, token_hash) == 0


async def test_a_leave_the_store_cannot_keep_leaves_the_token_working() -> None:
    store = RoomSaveFailingStore()
    room = await waiting_room(directory_on(store))
    token_hash = hash_token(new_token())
    await room.join("ann", None, token_hash)
    store.failing = True
    with pytest.raises(RoomError):
        await room.leave(token_hash)
    assert room.seat_for(token_hash).name == "ann"


async def test_a_room_that_cannot_be_saved_is_not_created() -> None:
    store = RoomSaveFailingStore()
    directory = directory_on(store)
    store.failing = True
    with pytest.raises(RoomError) as refused:
        await waiting_room(directory)
    assert refused.value.code == "storage_unavailable"
    assert directory.rooms == {}


def without_presence(info: dict[str, Any]) -> dict[str, Any]:
    """Room info without when each person was last seen, which a restart does not keep."""
    return {**info, "seats": [{**seat, "away_since": None} for seat in info["seats"]]}


async def test_a_restarted_directory_brings_back_waiting_seats_tokens_and_readiness() -> None:
    store = MemoryMatchStore()
    room = await waiting_room(directory_on(store))
    ann = hash_token(new_token())
    await room.join("ann", 1, ann)
    await room.ready(ann)
    again = directory_on(store)
    assert await again.recover() == 1
    back = again.get(room.room_id)
    assert without_presence(back.info()) == without_presence(room.info())
    assert back.seat_for(ann).index == 1
    assert back.seats[1].ready
    # Ann said ready before the restart, so the last seat filling starts the match.
    await back.add_bot(0, "hard")
    assert back.status.value == "playing"
    await again.close()
    await room.close()


async def test_a_room_without_hints_still_has_none_after_a_restart_in_its_match() -> None:
    store = MemoryMatchStore()
    directory = directory_on(store)
    room = await directory.create(
        game="gin_rummy",
        players=2,
        options={},
        bots=[(1, "easy")],
        public=False,
        spectators=True,
        hints=False,
    )
    ann = hash_token(new_token())
    await room.join("ann", 0, ann)
    await room.ready(ann)
    assert room.status.value == "playing"
    again = directory_on(store)
    assert await again.recover() == 1
    back = again.get(room.room_id)
    assert back.info()["hints"] is False
    assert back.status.value == "playing"
    await again.close()
    await room.close()


async def test_an_idle_room_in_a_match_is_closed_and_its_match_abandoned() -> None:
    store = MemoryMatchStore()
    room, _ = await started_room(store, game="gin_rummy")
    directory = directory_on(store)
    directory.rooms[room.room_id] = room
    assert room.match is not None
    await asyncio.sleep(IDLE_S * 2)
    assert await directory.close_idle(IDLE_S) == 1
    with pytest.raises(RoomError) as gone:
        directory.get(room.room_id)
    assert gone.value.code == "room_not_found"
    stored = await store.load_match(match_id=room.match.match_id)
    assert stored is not None
    assert stored.status == "abandoned"
    assert await store.open_rooms() == []
    assert await directory_on(store).recover() == 0


async def test_a_request_reaching_a_closed_room_finds_it_gone() -> None:
    store = MemoryMatchStore()
    directory = directory_on(store)
    room = await waiting_room(directory)
    ann = hash_token(new_token())
    await room.join("ann", None, ann)
    await asyncio.sleep(IDLE_S * 2)
    assert await directory.close_idle(IDLE_S) == 1
    for late in (room.join("bob", None, hash_token(new_token())), room.ready(ann)):
        with pytest.raises(RoomError) as gone:
            await late
        assert gone.value.code == "room_not_found"
    assert await store.open_rooms() == []


async def test_a_waiting_room_of_ready_seats_starts_when_rebuilt() -> None:
    store = MemoryMatchStore()
    room = await waiting_room(directory_on(store))
    ann = hash_token(new_token())
    await room.join("ann", 0, ann)
    await room.ready(ann)
    # As if the server died between saving the last seat and starting the match.
    room.seats.seat_bot(room.seats[1], level="easy")
    await room.save()
    again = directory_on(store)
    assert await again.recover() == 1
    assert again.get(room.room_id).status.value == "playing"
    await again.close()
    await room.close()


async def test_a_room_with_someone_connected_or_recently_used_stays_open() -> None:
    store = MemoryMatchStore()
    directory = directory_on(store)
    watched, used = await waiting_room(directory), await waiting_room(directory)
    await watched.connect(Inbox(), None)
    await asyncio.sleep(IDLE_S * 2)
    await used.join("ann", None, hash_token(new_token()))
    assert await directory.close_idle(IDLE_S) == 0
    assert set(directory.rooms) == {watched.room_id, used.room_id}
    assert len(await store.open_rooms()) == 2
    await directory.close()


async def test_the_sweeper_closes_idle_waiting_rooms_and_stops_cleanly() -> None:
    store = MemoryMatchStore()
    directory = directory_on(store)
    room = await waiting_room(directory)
    sweeper = IdleRoomSweeper(directory, IDLE_S)
    sweeper.start()
    try:
        for _ in range(200):
            if room.room_id not in directory.rooms:
                break
            await asyncio.sleep(IDLE_S / 2)
    finally:
        await sweeper.stop()
    assert room.room_id not in directory.rooms
    assert directory.waiting_public() == []
    assert await store.open_rooms() == []


async def test_after_a_restart_an_absent_seat_gets_the_whole_grace_before_a_bot() -> None:
    store = MemoryMatchStore()
    room = await waiting_room(directory_on(store))
    ann, bob = hash_token(new_token()), hash_token(new_token())
    await room.join("ann", 0, ann)
    await room.join("bob", 1, bob)
    for token_hash in (ann, bob):
        await room.ready(token_hash)
    assert room.status.value == "playing"
    graced = RoomDirectory(
        store=store, timings=replace(TIMINGS, reconnect_grace_s=60), make_bot=make_bot
    )
    assert await graced.recover() == 1
    back = graced.get(room.room_id)
    # The restart cut Bob off a moment ago, not at some time long past.
    with pytest.raises(RoomError) as refused:
        await back.hand_to_bot(ann, 1)
    assert refused.value.code == "player_present"
    await graced.close()
    await room.close()
