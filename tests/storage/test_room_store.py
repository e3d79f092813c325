"""The store keeps every open room, so that a restart rebuilds it; run against every store."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from app.storage.store import MatchStore, RoomRecord, RoomSeatRecord


def waiting_room(room_id: str = "r1") -> RoomRecord:
    return RoomRecord(
        room_id=room_id,
        game="gin_rummy",
        players=2,
        options={"target": 100},
        public=True,
        spectators=False,
        status="waiting",
        seats=[RoomSeatRecord(seat=1, name="ann", kind="human", level=None, token_hash="h1")],
        match_id=None,
    )


async def test_a_saved_room_comes_back_exactly_as_saved(store: MatchStore) -> None:
    room = waiting_room()
    await store.save_room(room=room)
    (stored,) = await store.open_rooms()
    assert stored.room == room
    assert stored.created_at == stored.updated_at


async def test_saving_a_room_again_replaces_it_and_keeps_its_creation_time(
    store: MatchStore,
) -> None:
    await store.save_room(room=waiting_room())
    (first,) = await store.open_rooms()
    bot = RoomSeatRecord(seat=0, name="Bot 1", kind="bot", level="hard", token_hash=None)
    ready_ann = RoomSeatRecord(
        seat=1, name="ann", kind="human", level=None, token_hash="h1", ready=True
    )
    changed = replace(waiting_room(), status="playing", seats=[bot, ready_ann], match_id="m1")
    await asyncio.sleep(0.01)
    await store.save_room(room=changed)
    (second,) = await store.open_rooms()
    assert second.room == changed
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at


async def test_a_closed_room_is_no_longer_open(store: MatchStore) -> None:
    await store.save_room(room=waiting_room("r1"))
    await store.save_room(room=waiting_room("r2"))
    await store.close_room(room_id="r1")
    await store.close_room(room_id="no-such-room")
    assert [stored.room.room_id for stored in await store.open_rooms()] == ["r2"]


async def test_open_rooms_come_oldest_first(store: MatchStore) -> None:
    for room_id in ("c", "a", "b"):
        await store.save_room(room=waiting_room(room_id))
        await asyncio.sleep(0.002)
    assert [stored.room.room_id for stored in await store.open_rooms()] == ["c", "a", "b"]


async def test_concurrent_saves_of_many_rooms_are_all_kept(store: MatchStore) -> None:
    rooms = [waiting_room(f"room-{i}") for i in range(30)]
    await asyncio.gather(*(store.save_room(room=room) for room in rooms))
    assert {stored.room.room_id for stored in await store.open_rooms()} == {
        room.room_id for room in rooms
    }


async def test_a_room_without_hints_is_stored_without_hints(store: MatchStore) -> None:
    await store.save_room(room=replace(waiting_room(), hints=False))
    (stored,) = await store.open_rooms()
    assert stored.room.hints is False
