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

from tests.cluster.conftest import FAULT_PACE_S, behind_a_database_proxy
from tests.cluster.players import EXPECTED_REFUSALS
from tests.cluster.tables import faults, open_tables, play_all, playing
from tests.cluster.test_failover import PLAY_S, no_faults

OUTAGE_LEASES = 3
ACK_GRACE_S = 1.0


async def test_tables_wait_out_a_database_every_node_lost(
    tmp_path: Path, database_url: str
) -> None:
    async with behind_a_database_proxy(tmp_path, database_url, 2, every_node=True) as (
        cluster,
        proxy,
        redis,
    ):
        tables = await open_tables(cluster, 6, seed=900)
        owners = [await redis.get(f"{cluster.name}:lease:{t.room_id}") for t in tables]
        matches = asyncio.create_task(play_all(tables, PLAY_S, FAULT_PACE_S))
        await asyncio.sleep(2)
        assert playing(tables) == len(tables)
        proxy.freeze()
        # An action whose write went through just before may still be acknowledged; none
        # written after can be.
        await asyncio.sleep(ACK_GRACE_S)
        acknowledged = sum(len(p.acknowledged) for t in tables for p in t.players)
        await asyncio.sleep(OUTAGE_LEASES * cluster.lease_s)
        # Nothing could be made durable, so nothing was acknowledged; and nobody reached the
        # database, so nobody could take a room over.
        assert sum(len(p.acknowledged) for t in tables for p in t.players) == acknowledged
        assert [await redis.get(f"{cluster.name}:lease:{t.room_id}") for t in tables] == owners
        proxy.thaw()
        await matches
        # A move sent while no node reached the database is refused as such.
        no_faults(await faults(cluster, tables, EXPECTED_REFUSALS | {"storage_unavailable"}))
