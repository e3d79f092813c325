"""Parts of a room's documents that a move does not change stay the same objects."""

from __future__ import annotations

from app.storage.memory_store import MemoryMatchStore
from tests.rooms.test_write_ahead import next_to_act, started_room


async def test_a_viewer_with_nothing_to_do_keeps_the_same_part_while_others_move() -> None:
    room, hashes = await started_room(MemoryMatchStore(), game="gin_rummy")
    mover = await next_to_act(room)
    waiting = 1 - mover
    before, spectator = room.document(waiting), room.document(None)
    assert before["you"] == {"seat": waiting, "legal": []}
    # Taking the upcard, the mover moves again (a discard), so the other seat waits on.
    assert {"type": "take_upcard"} in room.document(mover)["you"]["legal"]
    await room.act(hashes[mover], {"type": "take_upcard"})
    assert await next_to_act(room) == mover
    assert room.document(waiting)["you"] is before["you"]
    assert room.document(None)["you"] is spectator["you"]
    assert room.document(mover)["you"]["legal"]
    await room.close()
