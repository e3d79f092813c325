"""Redis hung (stopped with SIGSTOP, its sockets open) past the lease, under playing tables.

A hung Redis answers nothing and refuses nothing: every node's reads time out, leases are
neither renewed nor lost until it runs again, and what nodes publish to each other meanwhile
may or may not arrive. The rooms' safety is the database's fence, so the tables play on
through it; when Redis resumes, every count of tests/cluster/tables.py is 0: nothing
acknowledged lost, no seat or room split between nodes, and no socket relayed through another
node sent a patch that does not follow the one before (a publish lost in the hang did that).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.cluster.cluster import Cluster, RedisServer
from tests.cluster.conftest import FAULT_PACE_S, FAULT_SETTINGS
from tests.cluster.tables import faults, open_tables, play_all
from tests.cluster.test_failover import PLAY_S, no_faults
from tests.processes import free_port


async def test_tables_play_on_through_a_hung_redis_and_lose_nothing(
    tmp_path: Path, database_url: str
) -> None:
    redis_server = RedisServer(free_port()).start()
    cluster = Cluster(tmp_path, database_url, redis_server.url, settings=FAULT_SETTINGS).start(2)
    try:
        tables = []
        for owner in range(2):
            tables += await open_tables(cluster, 3, seed=300 + owner, owner=owner)
        hang_s = 3 * cluster.lease_s
        matches = asyncio.create_task(play_all(tables, PLAY_S + hang_s, FAULT_PACE_S))
        await asyncio.sleep(2)
        assert redis_server.process is not None
        redis_server.process.send_signal(signal.SIGSTOP)
        await asyncio.sleep(hang_s)
        redis_server.process.send_signal(signal.SIGCONT)
        await matches
        no_faults(await faults(cluster, tables))
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        if redis_server.process is not None:
            redis_server.process.send_signal(signal.SIGCONT)
        cluster.stop()
        redis_server.stop()
