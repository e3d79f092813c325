"""The database lost to every node at once, for a few leases, under playing tables.

Every node reaches PostgreSQL through one proxy that freezes, as a network that drops its
packets would, for three leases. No node can hand its rooms to one that reaches the database,
so each keeps its own: moves sent meanwhile wait for the database (or, waiting too long, are
refused as it is out of reach), and none is acknowledged in the meantime. Once the database
answers again the matches go on where they were and finish, and every count of
tests/cluster/tables.py is 0: nothing acknowledged lost, every match finished, no patch out of
turn, no hidden card shown.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from redis.asyncio import Redis
from sqlalchemy.engine import make_url

from tests.cluster.cluster import Cluster, RedisServer
from tests.cluster.conftest import FAULT_PACE_S, FAULT_SETTINGS
from tests.cluster.players import EXPECTED_REFUSALS
from tests.cluster.tables import faults, open_tables, play_all, playing
from tests.cluster.test_failover import PLAY_S, no_faults
from tests.processes import free_port
from tests.proxies import FreezingProxy

OUTAGE_LEASES = 3


async def test_tables_wait_out_a_database_every_node_lost(
    tmp_path: Path, database_url: str
) -> None:
    redis_server = RedisServer(free_port()).start()
    url = make_url(database_url)
    proxy = FreezingProxy(url.host or "127.0.0.1", url.port or 5432).start()
    through_proxy = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    cluster = Cluster(tmp_path, through_proxy, redis_server.url, settings=FAULT_SETTINGS).start(2)
    redis = Redis.from_url(redis_server.url)
    try:
        tables = await open_tables(cluster, 6, seed=900)
        owners = [await redis.get(f"{cluster.name}:lease:{t.room_id}") for t in tables]
        matches = asyncio.create_task(play_all(tables, PLAY_S, FAULT_PACE_S))
        await asyncio.sleep(2)
        assert playing(tables) == len(tables)
        acknowledged = sum(len(p.acknowledged) for t in tables for p in t.players)
        proxy.freeze()
        await asyncio.sleep(OUTAGE_LEASES * cluster.lease_s)
        # Nothing could be made durable, so nothing was acknowledged; and nobody reached the
        # database, so nobody could take a room over.
        assert sum(len(p.acknowledged) for t in tables for p in t.players) == acknowledged
        assert [await redis.get(f"{cluster.name}:lease:{t.room_id}") for t in tables] == owners
        proxy.thaw()
        await matches
        # A move sent while no node reached the database is refused as such.
        no_faults(await faults(cluster, tables, EXPECTED_REFUSALS | {"storage_unavailable"}))
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        await redis.aclose()
        proxy.thaw()
        cluster.stop()
        proxy.stop()
        redis_server.stop()
