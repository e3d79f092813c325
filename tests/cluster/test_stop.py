"""A node stops though a cancel was swallowed inside its tick."""

from __future__ import annotations

import asyncio
import uuid

from app.bots.registry import make_bot
from app.cluster.joining import start_node, stop_node
from app.rooms.directory import RoomDirectory
from app.rooms.room import RoomTimings
from app.storage.memory_store import MemoryMatchStore
from tests.cluster.cluster import REDIS_URL, check_redis


async def test_a_node_stops_though_its_tick_swallowed_the_cancel() -> None:
    check_redis()
    directory = RoomDirectory(store=MemoryMatchStore(), timings=RoomTimings(), make_bot=make_bot)
    node = await start_node(
        redis_url=REDIS_URL,
        directory=directory,
        node_id="n0",
        cluster_name=f"test-{uuid.uuid4().hex[:10]}",
        lease_s=1.0,
    )
    ticking = asyncio.Event()

    async def tick_that_swallows_a_cancel(*, scan: bool) -> None:
        # As a library call can: the cancel ends the wait, and the call returns as if done.
        ticking.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            return

    node._tick = tick_that_swallows_a_cancel  # type: ignore[method-assign]
    await asyncio.wait_for(ticking.wait(), 10)
    # Within a tick (a quarter of the lease) of the stop, not never. (Not wait_for: on a
    # timeout it waits for the stop it cancels, which would hang as the node does.)
    stopping = asyncio.create_task(stop_node(node))
    await asyncio.wait({stopping}, timeout=5)
    assert stopping.done(), "the node was still stopping 5 s later"
    assert node._ticker is not None
    assert node._ticker.done()
