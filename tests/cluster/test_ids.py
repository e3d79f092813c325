"""A node restarted under the same name is a new process to the others: the ids its sockets
and calls go by never repeat one its previous process gave out, so that nothing sent to the
old process (a patch for another room's seat, an answer to another call) reaches the new."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from redis.asyncio import Redis

from app.bots.registry import make_bot
from app.cluster import wire
from app.cluster.calls import Calls
from app.cluster.node import ClusterNode
from app.rooms.directory import RoomDirectory
from app.rooms.room import RoomTimings
from app.storage.memory_store import MemoryMatchStore


def a_life_of_node(name: str) -> ClusterNode:
    """A node as its process starts (nothing is connected before `start`)."""
    directory = RoomDirectory(store=MemoryMatchStore(), timings=RoomTimings(), make_bot=make_bot)
    return ClusterNode(
        redis=Redis(),
        subscriber=Redis(),
        directory=directory,
        node_id=name,
        cluster_name="test",
        lease_s=3.0,
    )


def test_a_restarted_node_gives_its_sockets_ids_its_previous_process_never_gave() -> None:
    before, after = a_life_of_node("n1"), a_life_of_node("n1")
    earlier = {before.new_connection_id() for _ in range(100)}
    later = {after.new_connection_id() for _ in range(100)}
    assert len(earlier) == len(later) == 100
    assert not earlier & later


async def test_an_answer_to_a_call_of_the_previous_process_answers_no_call_of_the_new() -> None:
    sent: list[bytes] = []
    before = Calls(lambda owner, message: sent.append(message), "n1", "first")
    after = Calls(lambda owner, message: sent.append(message), "n1", "second")
    old_call = asyncio.create_task(before.call("n0", "read", "room", {}))
    await asyncio.sleep(0)
    new_call = asyncio.create_task(after.call("n0", "read", "room", {}))
    await asyncio.sleep(0)
    old_id, new_id = (call_id(message) for message in sent)
    assert old_id != new_id
    after.answered({"re": old_id, "ok": "meant for the first process"})
    await asyncio.sleep(0)
    assert not new_call.done()
    after.answered({"re": new_id, "ok": "for this one"})
    assert await new_call == "for this one"
    old_call.cancel()


def call_id(message: bytes) -> Any:
    assert message[:1] == wire.CALL
    return orjson.loads(message[1:])["id"]
