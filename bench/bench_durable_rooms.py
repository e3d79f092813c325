"""What the write-ahead log costs whole rooms: Gin Rummy rooms played flat-out in one process.

Every action goes through `Room.act` (the room's lock, the engine, the durable log, the room's
bookkeeping), exactly as REST and WebSocket actions do, with the match store in memory, on a
SQLite file, or on PostgreSQL. No sockets are connected, so no patches are sent: the rooms do
less work per action than a loaded server does, which makes the durability share shown here
larger, not smaller, than in a real server. Prints actions per second, `act` latency p50/p99,
and throughput as a share of the in-memory run. Bounded: rooms x actions, then it stops.

    .venv/bin/python bench/bench_durable_rooms.py               # 50 rooms x 150 actions
    .venv/bin/python bench/bench_durable_rooms.py --think-ms 300   # people's pace: latency
    .venv/bin/python bench/bench_durable_rooms.py --sqlite-synchronous full normal

"CPU" is this process's CPU (every thread) for each action. Measured figures,
with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bots.registry import make_bot
from app.rooms.directory import RoomDirectory
from app.rooms.room import Room, RoomTimings
from app.rooms.tokens import hash_token
from app.storage.sql_store import SqlMatchStore
from app.storage.store import open_store
from bench.bench_storage import add_store_arguments, sweep_stores

TIMINGS = RoomTimings(bot_delay_s=0, reconnect_grace_s=3600, between_hands_s=0)


def choose(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Knock whenever allowed, otherwise play at random: quick, varied hands."""
    for action in legal:
        if action["type"] in ("big_gin", "gin", "knock"):
            return action
    return rng.choice(legal)


async def seat_people(room: Room) -> list[str]:
    hashes = [hash_token(secrets.token_urlsafe(16)) for _ in range(2)]
    for seat, token_hash in enumerate(hashes):
        await room.join(f"p{seat}", seat, token_hash)
    for token_hash in hashes:
        await room.ready(token_hash)
    return hashes


async def play(room: Room, hashes: list[str], actions: int, think_s: float) -> list[float]:
    rng = random.Random(room.spec.room_id)
    latencies: list[float] = []
    while len(latencies) < actions:
        assert room.match is not None
        engine = room.match.engine
        if engine.is_over():
            await room.rematch(hashes[0])
            continue
        to_act = engine.to_act()
        if not to_act:
            await asyncio.sleep(0)  # the room deals the next hand on its own timer
            continue
        seat = to_act[0]
        action = choose(rng, engine.legal_actions(seat))
        if think_s:
            await asyncio.sleep(think_s)
        started = time.perf_counter()
        await room.act(hashes[seat], action)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


@dataclass(frozen=True)
class Figures:
    per_second: float
    latencies_ms: list[float]
    cpu_us_per_action: float
    batch_mean: float | None


async def run(url: str, rooms: int, actions: int, think_s: float, synchronous: str) -> Figures:
    store = open_store(url, sqlite_synchronous=synchronous)
    await store.start()
    directory = RoomDirectory(store=store, timings=TIMINGS, make_bot=make_bot)
    try:
        tables = []
        for _ in range(rooms):
            room = await directory.create(
                game="gin_rummy", players=2, options={}, bots=[], public=False, spectators=True
            )
            tables.append((room, await seat_people(room)))
        sql = store if isinstance(store, SqlMatchStore) else None
        commits, writes = (sql.commits, sql.committed_writes) if sql else (0, 0)
        started, cpu = time.perf_counter(), time.process_time()
        results = await asyncio.gather(*(play(r, h, actions, think_s) for r, h in tables))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        batch_mean = None
        if sql and sql.commits > commits:
            batch_mean = (sql.committed_writes - writes) / (sql.commits - commits)
    finally:
        await directory.close()
        await store.close()
    latencies = [ms for one in results for ms in one]
    return Figures(len(latencies) / seconds, latencies, cpu / len(latencies) * 1e6, batch_mean)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_store_arguments(parser, actions=150)
    args = parser.parse_args()
    print(f"{args.rooms} Gin Rummy rooms x {args.actions} actions, think {args.think_ms} ms, "
          f"median of {args.repeat} runs")  # fmt: skip
    think_s = args.think_ms / 1000
    baseline: list[float] = []

    async def run_once(name: str, url: str, level: str) -> Figures:
        return await run(url, args.rooms, args.actions, think_s, level)

    def report(name: str, median: Figures) -> None:
        if not baseline:
            baseline.append(median.per_second)
        batch = "" if median.batch_mean is None else f"  {median.batch_mean:5.1f} per commit"
        print(
            f"{name:<13} {median.per_second:>8.0f} actions/s"
            f"  p50 {percentile(median.latencies_ms, 0.5):7.2f} ms"
            f"  p99 {percentile(median.latencies_ms, 0.99):7.2f} ms"
            f"  CPU {median.cpu_us_per_action:5.0f} us/action{batch}"
            f"  {median.per_second / baseline[0]:6.1%} of memory"
        )

    await sweep_stores(
        args.repeat, args.sqlite_synchronous, run_once, lambda f: f.per_second, report
    )


if __name__ == "__main__":
    asyncio.run(main())
