"""What durability costs: append_action from many concurrent rooms, memory vs SQLite vs PostgreSQL.

Each room logs its actions one after another, awaiting each (as a room does under its lock,
acknowledging only once the action is durable); the rooms run concurrently, so the store's
group commit can put many rooms' actions in one transaction. Prints actions per second,
append latency p50/p99, the mean batch size per commit, and throughput as a share of the
in-memory store's. Every run is bounded: rooms x actions appends, then it stops.

    .venv/bin/python bench/bench_storage.py                  # 50 rooms x 200 actions
    .venv/bin/python bench/bench_storage.py --rooms 1 --actions 300   # one room: pure latency
    .venv/bin/python bench/bench_storage.py --think-ms 500   # human pace, latency only

    .venv/bin/python bench/bench_storage.py --sqlite-synchronous full normal   # both levels
    .venv/bin/python bench/bench_storage.py --hand-every 0   # actions alone

By default every 40th action of a room ends a hand, as a room does: a hand result and two room
saves (its status to "between hands" and back), which the server bench's Gin Rummy rooms write
about every 40 moves; these writes cost far more than an action each, so leaving them out
hid most of what durability cost the server.

"CPU/action" is this process's CPU for each durable action: on the event loop's thread, and in
every thread (SQLite's writer thread, the kernel's share of syncs and sockets); the memory line
is the script's own share. PostgreSQL comes from MELDHALL_TEST_POSTGRES_URL (default: the local
test server); a fresh database is made for the run and dropped after it. Skipped with a note if
unreachable.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg
from sqlalchemy.engine import make_url

from app.storage.migrate import upgrade_to_head
from app.storage.sql_store import SqlMatchStore
from app.storage.store import (
    MatchStore,
    RoomRecord,
    RoomSeatRecord,
    SeatRecord,
    open_store,
)

POSTGRES_URL = os.environ.get(
    "MELDHALL_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
# A typical Gin Rummy discard as the server logs it.
ACTION = {"type": "discard", "card": "H10"}
# A Gin Rummy hand's result as the room records it at the end of a hand.
HAND = {"winner": 0, "kind": "knock", "points": 21, "deadwood": [4, 25], "scores": [21, 0]}


@dataclass(frozen=True)
class Figures:
    name: str
    actions: int
    seconds: float
    latencies_ms: list[float]
    batch_mean: float | None
    loop_cpu_s: float
    process_cpu_s: float

    @property
    def per_second(self) -> float:
        return self.actions / self.seconds

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


NewUrl = Callable[[], Awaitable[str | None]]


def fresh_store_urls(folder: Path) -> tuple[NewUrl, NewUrl, NewUrl]:
    """Makers of a new, migrated store URL each call: memory, SQLite in `folder`, PostgreSQL.

    The PostgreSQL maker answers None when the server is unreachable.
    """

    async def memory_url() -> str:
        return "memory://"

    async def sqlite_url() -> str:
        url = f"sqlite+aiosqlite:///{folder / uuid.uuid4().hex}.db"
        await upgrade_to_head(url)
        return url

    async def postgres_url() -> str | None:
        url = await fresh_postgres()
        if url is not None:
            await upgrade_to_head(url)
        return url

    return memory_url, sqlite_url, postgres_url


def add_store_arguments(parser: argparse.ArgumentParser, actions: int) -> None:
    """The options both storage benches take: load shape, repeats, SQLite sync levels."""
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--actions", type=int, default=actions, help="actions per room")
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause before each action")
    parser.add_argument("--repeat", type=int, default=3, help="runs per store; the median is shown")
    parser.add_argument(
        "--sqlite-synchronous", nargs="+", choices=["full", "normal"], default=["full"],
        help="the SQLite log writer's sync levels to run (MELDHALL_SQLITE_SYNCHRONOUS)",
    )  # fmt: skip


F = TypeVar("F")


async def sweep_stores(
    repeat: int,
    levels: list[str],
    run_once: Callable[[str, str, str], Awaitable[F]],
    per_second: Callable[[F], float],
    report: Callable[[str, F], None],
) -> None:
    """Memory, SQLite at each sync level, then PostgreSQL (when reachable): `repeat` runs of
    `run_once(name, url, level)`, each on a fresh migrated store, and `report` of the median
    run by rate."""
    with tempfile.TemporaryDirectory() as folder:
        memory_url, sqlite_url, postgres_url = fresh_store_urls(Path(folder))
        stores: list[tuple[str, NewUrl, str]] = [("memory", memory_url, "full")]
        for level in levels:
            name = "sqlite" if levels == ["full"] else f"sqlite/{level}"
            stores.append((name, sqlite_url, level))
        stores.append(("postgres", postgres_url, "full"))
        for name, new_url, level in stores:
            runs = []
            for _ in range(repeat):
                url = await new_url()
                if url is None:  # PostgreSQL unreachable: fresh_postgres said so
                    return
                try:
                    runs.append(await run_once(name, url, level))
                finally:
                    if url.startswith("postgresql"):
                        await drop_postgres(url)
            report(name, sorted(runs, key=per_second)[len(runs) // 2])


def room_record(match_id: str) -> RoomRecord:
    seats = [RoomSeatRecord(seat=s, name=f"p{s}", kind="human", level=None, token_hash="t" * 64)
             for s in range(2)]  # fmt: skip
    return RoomRecord(
        room_id=match_id, game="gin_rummy", players=2, options={"target": 100}, public=True,
        spectators=True, status="playing", seats=seats, match_id=match_id,
    )  # fmt: skip


async def end_hand(store: MatchStore, match_id: str, hand: int) -> None:
    """What a room writes when a hand ends: the result, and its status there and back."""
    await store.record_hand(match_id=match_id, hand_index=hand, result=HAND)
    await store.save_room(room=room_record(match_id))
    await store.save_room(room=room_record(match_id))


async def room(
    store: MatchStore, match_id: str, actions: int, think_s: float, hand_every: int = 0
) -> list[float]:
    # People's pauses vary: rooms that all waited exactly think_s would act in lockstep and
    # share commits that people at their own pace never share.
    rng = random.Random(match_id)
    latencies = []
    for index in range(actions):
        if think_s:
            await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
        started = time.perf_counter()
        await store.append_action(match_id=match_id, index=index, seat=index % 2, action=ACTION)
        latencies.append((time.perf_counter() - started) * 1000)
        if hand_every and (index + 1) % hand_every == 0:
            await end_hand(store, match_id, index // hand_every)
    return latencies


async def run(
    name: str,
    url: str,
    rooms: int,
    actions: int,
    think_s: float,
    synchronous: str = "full",
    hand_every: int = 0,
) -> Figures:
    store = open_store(url, sqlite_synchronous=synchronous)
    await store.start()
    try:
        seats = [SeatRecord(seat=s, name=f"p{s}", kind="human", level=None, token_hash=None)
                 for s in range(2)]  # fmt: skip
        ids = [f"bench-{uuid.uuid4().hex[:12]}" for _ in range(rooms)]
        for match_id in ids:
            await store.create_match(
                match_id=match_id, room_id=match_id, game="gin_rummy", config={}, seed=1,
                players=2, seats=seats, room_meta={},
            )  # fmt: skip
        sql = store if isinstance(store, SqlMatchStore) else None
        batches_before = sql.commits if sql else 0
        items_before = sql.committed_writes if sql else 0
        started = time.perf_counter()
        loop_cpu, process_cpu = time.thread_time(), time.process_time()
        results = await asyncio.gather(*(room(store, m, actions, think_s, hand_every) for m in ids))
        seconds = time.perf_counter() - started
        loop_cpu, process_cpu = time.thread_time() - loop_cpu, time.process_time() - process_cpu
        batch_mean = None
        if sql and sql.commits > batches_before:
            batch_mean = (sql.committed_writes - items_before) / (sql.commits - batches_before)
    finally:
        await store.close()
    latencies = [ms for one in results for ms in one]
    return Figures(name, len(latencies), seconds, latencies, batch_mean, loop_cpu, process_cpu)


async def fresh_postgres() -> str | None:
    name = f"meldhall_bench_{uuid.uuid4().hex[:8]}"
    admin_dsn = make_url(POSTGRES_URL).set(drivername="postgresql")
    try:
        admin = await asyncpg.connect(admin_dsn.render_as_string(hide_password=False), timeout=5)
    except (OSError, asyncpg.PostgresError) as error:
        print(f"postgres: skipped, {error}")
        return None
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


async def drop_postgres(url: str) -> None:
    admin_dsn = make_url(POSTGRES_URL).set(drivername="postgresql")
    admin = await asyncpg.connect(admin_dsn.render_as_string(hide_password=False), timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    finally:
        await admin.close()


def report(figures: Figures, baseline: Figures | None) -> None:
    share = (
        "" if baseline is None else f"  {figures.per_second / baseline.per_second:6.1%} of memory"
    )
    batch = "" if figures.batch_mean is None else f"  {figures.batch_mean:6.1f} actions/commit"
    print(
        f"{figures.name:<13} {figures.per_second:>9.0f} actions/s"
        f"  p50 {figures.percentile(0.50):7.2f} ms  p99 {figures.percentile(0.99):7.2f} ms"
        f"  CPU/action: loop {figures.loop_cpu_s / figures.actions * 1e6:5.1f} us,"
        f" process {figures.process_cpu_s / figures.actions * 1e6:5.1f} us{batch}{share}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_store_arguments(parser, actions=200)
    parser.add_argument(
        "--hand-every", type=int, default=40,
        help="actions per hand; each hand ends as a room's does, with a hand result and two room "
        "saves (a Gin Rummy hand of the server bench is about 40 moves); 0: actions alone",
    )  # fmt: skip
    args = parser.parse_args()
    think_s = args.think_ms / 1000
    print(f"{args.rooms} rooms x {args.actions} actions, think {args.think_ms} ms, "
          f"a hand every {args.hand_every} actions, median of {args.repeat} runs")  # fmt: skip
    baseline: list[Figures] = []

    async def run_once(name: str, url: str, level: str) -> Figures:
        return await run(name, url, args.rooms, args.actions, think_s, level, args.hand_every)

    def report_median(name: str, figures: Figures) -> None:
        report(figures, baseline[0] if baseline else None)
        if not baseline:
            baseline.append(figures)

    await sweep_stores(
        args.repeat, args.sqlite_synchronous, run_once, lambda f: f.per_second, report_median
    )


if __name__ == "__main__":
    asyncio.run(main())
