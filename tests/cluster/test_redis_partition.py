"""One node cut off from Redis (the others still reach it) past the lease, under playing tables.

Node n0 reaches Redis through a proxy that freezes, as a network that drops its packets would:
its leases run out, the other nodes take its rooms over, and n0 learns it only when it reaches
Redis or the database again. The tables were created on n0, their players spread over every
node. Through the cut and after it, every count of tests/cluster/tables.py is 0: nothing
acknowledged lost, every match finished, no patch out of turn, no hidden card shown.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from redis.asyncio import Redis

from tests.cluster.cluster import Cluster, RedisServer, wait_until
from tests.cluster.conftest import FAULT_PACE_S, FAULT_SETTINGS
from tests.cluster.tables import faults, open_tables, play_all
from tests.cluster.test_failover import PLAY_S, no_faults
from tests.processes import free_port
from tests.proxies import FreezingProxy


async def test_tables_of_a_node_cut_off_from_redis_finish_elsewhere_and_lose_nothing(
    tmp_path: Path, database_url: str
) -> None:
    redis_server = RedisServer(free_port()).start()
    proxy = FreezingProxy("127.0.0.1", redis_server.port).start()
    cluster = Cluster(tmp_path, database_url, redis_server.url, settings=FAULT_SETTINGS).start(
        3, first={"MELDHALL_REDIS_URL": f"redis://127.0.0.1:{proxy.port}/0"}
    )
    try:
        tables = await open_tables(cluster, 6, seed=500, owner=0)
        cut_s = 4 * cluster.lease_s
        matches = asyncio.create_task(play_all(tables, PLAY_S + cut_s, FAULT_PACE_S))
        await asyncio.sleep(2)
        proxy.freeze()
        # The other nodes take n0's rooms over while it is cut off.
        redis = Redis.from_url(redis_server.url)
        try:

            async def taken_over() -> bool:
                owners = [await redis.get(f"{cluster.name}:lease:{t.room_id}") for t in tables]
                return all(owner not in (None, b"n0") for owner in owners)

            await wait_until(taken_over, cut_s, "the other nodes took n0's rooms")
        finally:
            await redis.aclose()
        await asyncio.sleep(max(0.0, cut_s - 2))
        proxy.thaw()
        await matches
        no_faults(await faults(cluster, tables))
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        proxy.thaw()
        cluster.stop()
        proxy.stop()
        redis_server.stop()
