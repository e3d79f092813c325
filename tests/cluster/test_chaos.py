"""A short chaos run in the suite (the long one is bench/chaos_cluster.py): tables of both
games, bots, 2-4 seats, players spread over all nodes, while nodes are killed -9 and restarted,
one is paused past its lease, and Redis restarts. Every count of tests/cluster/tables.py is 0.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.cluster.chaos import Chaos
from tests.cluster.cluster import Cluster, RedisServer
from tests.cluster.conftest import FAULT_PACE_S, FAULT_SETTINGS
from tests.cluster.tables import faults, open_tables, play_all
from tests.cluster.test_failover import PLAY_S, no_faults
from tests.processes import free_port

CHAOS_S = 40.0


async def test_tables_finish_through_kills_a_pause_and_a_redis_restart(
    tmp_path: Path, database_url: str
) -> None:
    redis_server = RedisServer(free_port()).start()
    cluster = Cluster(tmp_path, database_url, redis_server.url, settings=FAULT_SETTINGS).start(3)
    chaos = Chaos(cluster, redis_server, CHAOS_S, seed=9)
    try:
        tables = []
        for owner in range(3):
            tables += await open_tables(cluster, 3, seed=100 + owner, owner=owner)
        matches = asyncio.create_task(play_all(tables, PLAY_S + CHAOS_S, FAULT_PACE_S))
        await chaos.run()
        await matches
        no_faults(await faults(cluster, tables))
        # The faults happened under the players, not after the matches.
        assert sum(event.endswith("killed") for event in chaos.events) >= 3
        assert any(event.endswith("paused") for event in chaos.events)
        assert any(event.endswith("redis started") for event in chaos.events)
        paused = next(e for e in chaos.events if e.endswith("paused"))
        paused_at = chaos.started + float(paused.split("s", 1)[0])
        ends = [max(player.finished_at for player in table.players) for table in tables]
        assert sum(end > paused_at for end in ends) >= len(tables) // 2, chaos.events
    except BaseException:
        print("\n".join(chaos.events))
        print(cluster.logs())
        raise
    finally:
        cluster.stop()
        redis_server.stop()
