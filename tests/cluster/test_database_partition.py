"""One node cut off from the database (the others still reach it), under playing tables.

Node n0 reaches PostgreSQL through a proxy that freezes, as a network that drops its packets
would, and stays cut off until the matches are over: its rooms could not take another move in
the meantime. It hands them over once it has not reached the database for a lease while the
other nodes say they do; they take them over and the matches finish there. After the cut, every
count of tests/cluster/tables.py is 0: nothing acknowledged lost (a move n0 was writing when the
cut came is in doubt, and the fence keeps it out of the log once the room is claimed), every
match finished, no patch out of turn, no hidden card shown.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.cluster.cluster import wait_until
from tests.cluster.conftest import FAULT_PACE_S, behind_a_database_proxy
from tests.cluster.tables import faults, open_tables, play_all
from tests.cluster.test_failover import PLAY_S, no_faults


async def test_tables_of_a_node_cut_off_from_the_database_finish_elsewhere(
    tmp_path: Path, database_url: str
) -> None:
    async with behind_a_database_proxy(tmp_path, database_url, 3, every_node=False) as (
        cluster,
        proxy,
        redis,
    ):
        tables = await open_tables(cluster, 6, seed=700, owner=0)
        matches = asyncio.create_task(play_all(tables, PLAY_S, FAULT_PACE_S))
        await asyncio.sleep(2)
        proxy.freeze()

        async def handed_over() -> bool:
            owners = [await redis.get(f"{cluster.name}:lease:{t.room_id}") for t in tables]
            return all(owner not in (None, b"n0") for owner in owners)

        await wait_until(handed_over, 6 * cluster.lease_s, "the other nodes took n0's rooms")
        # Cut off until the end: without the handover the matches could not finish.
        await matches
        proxy.thaw()
        no_faults(await faults(cluster, tables))
