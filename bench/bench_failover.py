"""How long a room waits for its next move after its owner is killed -9 or frozen (SIGSTOP).

    .venv/bin/python bench/bench_failover.py                        # 24 rooms, each fault once
    .venv/bin/python bench/bench_failover.py --rooms 30 --rounds 3 --lease 5

Three nodes (`meldhall serve` subprocesses on 127.0.0.1, the lease --lease seconds) on a fresh
PostgreSQL database and a redis-server of their own. Each round opens --rooms Gin Rummy rooms on
node n0, so that n0 owns them all, and seats two people in each whose sockets are held by the
live nodes, n1 and n2 (relayed to the owner), playing a move every --pace seconds. Then it kills
n0 (SIGKILL) or freezes it (SIGSTOP: a stopped VM, a long pause, a partition that drops
nothing), and measures, for every room, the time from the fault to the first move of that room
acknowledged by its new owner (a version of a later epoch): the time until the room is playable
again. The players act as the browser client does (tests/cluster/failover.py).

It prints, per fault, the distribution over the rooms (min, median, 90th percentile, max) and a
histogram by second. n0 is then resumed (SIGCONT) or started again for the next round. Every
process is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.cluster.cluster import Cluster, RedisServer  # noqa: E402
from tests.cluster.failover import (  # noqa: E402
    open_table,
    played,
    refusals,
    time_to_playable,
    wait_for_moves,
)
from tests.processes import free_port  # noqa: E402
from tests.storage.databases import drop_postgres_database, fresh_postgres_database  # noqa: E402

SETTINGS = {
    "MELDHALL_LOG_LEVEL": "warning",
    "MELDHALL_WS_MESSAGES_PER_SECOND": "10000",
    "MELDHALL_WS_BURST": "10000",
    "MELDHALL_SOLVER_WARM_UP": "false",
}


async def one_fault(
    cluster: Cluster, fault: str, options: argparse.Namespace, n: int
) -> list[float]:
    n0 = cluster.nodes[0]
    tables = [await open_table(cluster, 100 * n + i, options.pace) for i in range(options.rooms)]
    owners = {cluster.owner(table.room_id) for table in tables}
    assert owners == {"n0"}, owners
    try:
        async with played(tables):
            await wait_for_moves(tables)
            await asyncio.sleep(options.pace * 3)
            waits = await time_to_playable(
                tables,
                n0.kill if fault == "kill" else lambda: n0.signal(signal.SIGSTOP),
                options.give_up,
            )
    finally:
        if fault == "stop":
            n0.signal(signal.SIGCONT)
        else:
            await asyncio.to_thread(n0.start)
    report(f"round {n}, {'kill -9' if fault == 'kill' else 'SIGSTOP'}", waits, options.give_up)
    print(f"    refusals {refusals(tables) or 'none'}", flush=True)
    return waits


def report(title: str, waits: list[float], give_up: float) -> None:
    ordered = sorted(waits)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    never = sum(wait >= give_up for wait in waits)
    print(
        f"{title}: {len(waits)} rooms playable again after min {ordered[0]:.2f} s, "
        f"median {statistics.median(ordered):.2f} s, p90 {p90:.2f} s, max {ordered[-1]:.2f} s"
        + (f"; {never} not within {give_up:.0f} s" if never else ""),
        flush=True,
    )
    buckets: dict[int, int] = {}
    for wait in waits:
        buckets[int(wait)] = buckets.get(int(wait), 0) + 1
    for second in range(int(ordered[0]), int(ordered[-1]) + 1):
        count = buckets.get(second, 0)
        print(f"    {second:3d}-{second + 1:<3d} s {'#' * count} {count or ''}", flush=True)


async def main(options: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="meldhall-failover-"))
    url = await fresh_postgres_database()
    redis = RedisServer(free_port()).start()
    cluster = Cluster(folder, url, redis.url, lease_s=options.lease, settings=SETTINGS)
    await asyncio.to_thread(cluster.start, 3)
    results: dict[str, list[float]] = {"kill": [], "stop": []}
    ok = False
    try:
        for n in range(1, options.rounds + 1):
            for fault in options.faults:
                results[fault] += await one_fault(cluster, fault, options, n)
                # n0 back and marked alive before the next round's rooms are opened on it.
                await asyncio.sleep(options.lease * 2)
        print(f"\nlease {options.lease:g} s; the target is the lease plus 2 s: "
              f"{options.lease + 2:g} s")  # fmt: skip
        for fault, waits in results.items():
            if waits:
                report("kill -9" if fault == "kill" else "SIGSTOP", waits, options.give_up)
        ok = True
    finally:
        await asyncio.to_thread(cluster.stop)
        redis.stop()
        await drop_postgres_database(url)
        if ok:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"node logs kept in {folder}")
    return 0


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=24, help="rooms per fault")
    parser.add_argument("--rounds", type=int, default=1, help="faults of each kind")
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--pace", type=float, default=0.3, help="seconds a person thinks")
    parser.add_argument("--give-up", type=float, default=40.0, help="seconds, per fault")
    parser.add_argument("--faults", nargs="+", choices=("kill", "stop"), default=["kill", "stop"])
    sys.exit(asyncio.run(main(parser.parse_args())))


if __name__ == "__main__":
    run()
