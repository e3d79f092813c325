"""Memory over time: rounds of rooms played to their end and left, on the real server.

    .venv/bin/python bench/bench_soak.py                      # SQLite in a temp folder
    .venv/bin/python bench/bench_soak.py --store memory       # the in-memory log
    .venv/bin/python bench/bench_soak.py --rounds 10 --rooms 200

Each round opens ROOMS two-player Gin Rummy rooms over real WebSockets (the light clients of
bench/load_clients.py, both seats played as fast as the server answers), plays every match to
its end, closes the sockets, and waits until the server's idle-room sweeper (idle time 5 s
here) has closed every room, which the room info's 404 shows. A server that keeps nothing of
a closed room levels off after the first rounds, when its allocator's pools and caches have
grown to the load; a leak shows as growth every round. The in-memory log keeps every match
by design, so with `--store memory` growth is expected: it measures what a match costs there.

Printed per round: moves played, seconds, the server's resident memory after the sweep and
its change, and the rooms still open; then the trend over the second half of the rounds.
Every phase is bounded in time; the script stops by itself.

Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_server import (  # noqa: E402
    Server,
    free_port,
    launch,
    run_clients,
    serve_meldhall,
    store_url,
)
from bench.load_clients import GinTable, Pacing, Stats  # noqa: E402

IDLE_CLOSE_S = 5.0
ROUND_TIMEOUT_S = 300.0
SWEEP_TIMEOUT_S = 30.0


def start(store: str) -> Server:
    port = free_port()
    command = [sys.executable, __file__, "--serve", "--port", str(port), "--store", store]
    return launch(command, port, "meldhall")


class OneMatch(GinTable):
    """A table that plays its match to the end, then stops (no rematch)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def move(self) -> None:
        doc = self.docs[0]
        if doc is not None and doc["room"]["status"] == "finished":
            if not self.finished.done():
                self.finished.set_result(None)
            return
        super().move()


async def open_rooms(server: Server, http: httpx.AsyncClient, rooms: int) -> list[OneMatch]:
    stats, pacing = Stats(), Pacing(0.0)
    tables: list[OneMatch] = []
    for first in range(0, rooms, 50):
        batch = [
            OneMatch(server.port, http, stats, pacing) for _ in range(first, min(rooms, first + 50))
        ]
        await asyncio.gather(*(table.open() for table in batch))
        tables.extend(batch)
    return tables


async def still_open(http: httpx.AsyncClient, tables: list[OneMatch]) -> int:
    answers = await asyncio.gather(*(http.get(f"/api/rooms/{t.room_id}") for t in tables))
    return sum(1 for answer in answers if answer.status_code != 404)


async def play_round(server: Server, rooms: int) -> tuple[int, float, int]:
    """Moves played, seconds taken, and rooms still open after the sweep."""
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=server.http, limits=limits, timeout=30) as http:
        started = time.perf_counter()
        tables = await open_rooms(server, http, rooms)
        for table in tables:
            table.begin()
        await asyncio.wait_for(
            asyncio.gather(*(table.finished for table in tables)), ROUND_TIMEOUT_S
        )
        took = time.perf_counter() - started
        moves = tables[0].stats.moves
        await asyncio.gather(*(table.close() for table in tables), return_exceptions=True)
        deadline = time.monotonic() + SWEEP_TIMEOUT_S
        left = await still_open(http, tables)
        while left and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            left = await still_open(http, tables)
    return moves, took, left


async def soak(options: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="meldhall-soak-")
    server = start(store_url(options.store, folder))
    try:
        baseline = server.rss_kb()
        after: list[int] = []
        print(f"store {options.store}, {options.rooms} rooms a round, idle close {IDLE_CLOSE_S} s")
        print(f"  start: {baseline / 1024:7.1f} MB resident")
        for number in range(1, options.rounds + 1):
            moves, took, left = await play_round(server, options.rooms)
            # The sweep has run; one more beat lets the last closed sockets go.
            await asyncio.sleep(1.0)
            rss = server.rss_kb()
            change = rss - (after[-1] if after else baseline)
            print(
                f"  round {number:2}: {moves:6} moves in {took:5.1f} s | "
                f"{rss / 1024:7.1f} MB resident ({change / 1024:+6.1f} MB) | "
                f"{left} rooms still open",
                flush=True,
            )
            after.append(rss)
        if len(after) >= 4:
            # The first rounds grow the allocator's pools and SQLite's page cache to the load;
            # the second half of the run shows the trend.
            half = after[len(after) // 2 - 1 :]
            growth = (half[-1] - half[0]) / (len(half) - 1)
            print(f"  over the last {len(half) - 1} rounds: {growth:+.0f} KB per round")
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--store", default="sqlite", help="memory, sqlite or a database URL")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--rooms", type=int, default=100)
    options = parser.parse_args()
    if options.serve:
        serve_meldhall(options.port, options.store, False, None, room_idle_close_s=IDLE_CLOSE_S)
    else:
        run_clients(soak(options))


if __name__ == "__main__":
    main()
