"""The long chaos run: a cluster's tables played through kills, a pause, a Redis restart and a hang.

    .venv/bin/python bench/chaos_cluster.py                     # 3 nodes, 24 tables, 5 minutes
    .venv/bin/python bench/chaos_cluster.py --minutes 20 --tables 60 --kill-every 3

Three nodes (`meldhall serve` subprocesses on 127.0.0.1, lease --lease seconds) on a fresh
PostgreSQL database and a redis-server of their own play tables of both games (people on every
node and bots, 2-4 seats, a spectator each) in rounds until the time is up: a random node is
killed -9 every few seconds and started again, one node is paused past its lease in each round
and resumed, Redis is restarted once a round and hung (SIGSTOP) past the lease once a round.
After each round it prints what the suite's short run (tests/cluster/test_chaos.py) asserts is
zero: acknowledged actions lost or applied twice, rooms unfinished, versions gone back, patch
gaps, hidden cards or tiles that reached a viewer, unexpected refusals; and how many
reconnections the players made. The run is bounded by --minutes (and each round by its own
deadline); every process is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.cluster.chaos import Chaos  # noqa: E402
from tests.cluster.cluster import Cluster, RedisServer  # noqa: E402
from tests.cluster.tables import faults, open_tables, play_all, playing  # noqa: E402
from tests.processes import free_port  # noqa: E402
from tests.storage.databases import drop_postgres_database, fresh_postgres_database  # noqa: E402

SETTINGS = {
    "MELDHALL_LOG_LEVEL": "warning",
    "MELDHALL_WS_MESSAGES_PER_SECOND": "10000",
    "MELDHALL_WS_BURST": "10000",
    "MELDHALL_BOT_DELAY_MS": "200",
    "MELDHALL_SOLVER_WARM_UP": "false",
}


async def round_(cluster: Cluster, redis: RedisServer, options: argparse.Namespace, n: int) -> int:
    tables = []
    for owner in range(len(cluster.nodes)):
        tables += await open_tables(
            cluster, options.tables // len(cluster.nodes), seed=1000 * n + owner, owner=owner
        )
    chaos = Chaos(
        cluster, redis, options.round_seconds, options.kill_every, seed=n, hang_redis=True
    )
    matches = asyncio.create_task(play_all(tables, options.round_seconds + 300, options.pace))
    await chaos.run()
    still = playing(tables)
    await matches
    found = await faults(cluster, tables)
    players = [player for table in tables for player in table.players]
    bad = sum(len(items) for items in found.values())

    def happened(what: str) -> int:
        return sum(event.endswith(what) for event in chaos.events)

    print(
        f"round {n}: {len(tables)} tables, {still} still playing when the faults ended; "
        f"{happened('killed')} kills, {happened('paused')} pauses, "
        f"{happened('redis stopped')} Redis restarts, {happened('redis hung')} Redis hangs; "
        f"{sum(p.connections for p in players) - len(players)} reconnections; "
        + ", ".join(f"{what} {len(items)}" for what, items in found.items()),
        flush=True,
    )
    for what, items in found.items():
        for item in items[:5]:
            print(f"    {what}: {item}")
    return bad


async def main(options: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="meldhall-chaos-"))
    url = await fresh_postgres_database()
    redis = RedisServer(free_port()).start()
    cluster = Cluster(folder, url, redis.url, lease_s=options.lease, settings=SETTINGS)
    await asyncio.to_thread(cluster.start, 3)
    bad = 0
    try:
        end = time.monotonic() + options.minutes * 60
        n = 0
        while time.monotonic() < end:
            n += 1
            bad += await round_(cluster, redis, options, n)
    finally:
        await asyncio.to_thread(cluster.stop)
        redis.stop()
        await drop_postgres_database(url)
        if bad == 0:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"node logs kept in {folder}")
    print(f"{n} rounds, {bad} faults in all")
    return bad


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--tables", type=int, default=24, help="tables per round")
    parser.add_argument("--round-seconds", type=float, default=60.0, help="faults per round")
    parser.add_argument("--kill-every", type=float, default=4.0, help="seconds, on average")
    parser.add_argument("--lease", type=float, default=2.0)
    parser.add_argument("--pace", type=float, default=0.2, help="seconds a person thinks")
    sys.exit(1 if asyncio.run(main(parser.parse_args())) else 0)


if __name__ == "__main__":
    run()
