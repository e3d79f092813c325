"""The store keeps a room's talk: its last lines, a match's lines, and a room's mutes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from app.storage.store import ChatRecord, MatchStore, StoreError
from tests.storage.test_room_store import waiting_room

AT = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def line(line_id: int, match_id: str | None = None, room_id: str = "r1") -> ChatRecord:
    return ChatRecord(
        room_id=room_id,
        id=line_id,
        match_id=match_id,
        seat=line_id % 2,
        name="Ann" if line_id % 2 == 0 else "Bea",
        text=f"line {line_id}" if line_id % 3 else None,
        reaction="nice" if line_id % 3 == 0 else None,
        at=AT,
    )


async def test_the_last_lines_of_a_room_come_oldest_first_and_only_its_own(
    store: MatchStore,
) -> None:
    for line_id in range(1, 61):
        await store.append_chat(chat=line(line_id))
    await store.append_chat(chat=line(1, room_id="r2"))
    recent = await store.recent_chat(room_id="r1", limit=50)
    assert [chat.id for chat in recent] == list(range(11, 61))
    assert recent[0] == line(11)
    assert await store.recent_chat(room_id="r3", limit=50) == []


async def test_a_matchs_lines_are_those_said_while_it_was_played(store: MatchStore) -> None:
    await store.append_chat(chat=line(1))
    await store.append_chat(chat=line(2, "m1"))
    await store.append_chat(chat=line(3, "m2"))
    await store.append_chat(chat=line(4, "m1"))
    assert [chat.id for chat in await store.match_chat(match_id="m1")] == [2, 4]


async def test_a_line_id_is_kept_once(store: MatchStore) -> None:
    await store.append_chat(chat=line(1))
    with pytest.raises(StoreError) as refused:
        await store.append_chat(chat=line(1))
    assert refused.value.code == "duplicate_chat"


async def test_a_rooms_chat_option_host_and_mutes_come_back_as_saved(store: MatchStore) -> None:
    room = replace(waiting_room(), chat=False, chat_host=1, chat_muted=(0, 2))
    await store.save_room(room=room)
    (stored,) = await store.open_rooms()
    assert stored.room == room
