"""The garbage collector's pauses with many rooms in one process, in CPU time.

    .venv/bin/python bench/bench_collector.py [--rooms 500] [--moves 30000] [--store memory]
                                              [--store sqlite]

Opens ROOMS two-player Gin Rummy rooms in this process (the rooms of bench/bench_room_moves.py:
seeded, each seat with one connection whose sends are only counted), sets the collector up as
the server does (`app.main.tune_garbage_collector`), freezes what exists, and then plays MOVES
moves in rooms drawn at random, as a server at human pace sees them. Every collection of the
collector is timed in CPU time of this thread (its callbacks), so other load on the machine
changes the figures little.

A young collection stops every room of the process while it scans the objects made since the
last one that are still alive: at hundreds of rooms that is most of the rooms' documents, and
such a pause is what the slowest moves of `bench/bench_server.py` wait on. Printed: per
generation the collections, their median and max pause and total; the server's CPU per move
(collections included); and the objects the collector tracks per room once the moves are
done (those made during the run and still alive), by type, the figure the pauses follow.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_room_moves as rooms

from app.main import tune_garbage_collector
from app.storage.migrate import upgrade_to_head
from app.storage.store import MatchStore, open_store


class Pauses:
    """The CPU time of each collection, by generation, from the collector's callbacks."""

    def __init__(self) -> None:
        self.by_generation: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.thread_time()
        else:
            self.by_generation[info["generation"]].append(time.thread_time() - self._started)


async def sqlite_store(folder: str) -> MatchStore:
    url = f"sqlite+aiosqlite:///{folder}/meldhall.db"
    await upgrade_to_head(url)
    store = open_store(url)
    await store.start()
    return store


async def run(room_count: int, moves: int, store_kind: str) -> None:
    folder = tempfile.mkdtemp()
    store = await sqlite_store(folder) if store_kind == "sqlite" else None
    opened = []
    for seed in range(room_count):
        outboxes = [rooms.CountingOutbox() for _ in range(2)]
        opened.append(await rooms.open_room("gin_rummy", seed, outboxes, store))
    tune_garbage_collector()
    gc.collect()
    gc.freeze()
    pauses = Pauses()
    gc.callbacks.append(pauses)
    rng = random.Random(1)
    spent = 0.0
    for sequence in range(moves):
        room, hashes, connections = opened[rng.randrange(room_count)]
        assert room.match is not None
        if room.match.engine.is_over():
            await room.rematch(hashes[0])
        seat = await rooms.mover(room)
        doc = connections[seat].doc
        assert doc is not None
        action = rooms.choose_gin(rng, doc["you"]["legal"])
        started = time.process_time()
        await room.act(hashes[seat], action, room.version, (connections[seat], sequence))
        spent += time.process_time() - started
    gc.callbacks.remove(pauses)
    gc.disable()
    alive = Counter(type(thing).__name__ for thing in gc.get_objects())
    print(f"{room_count} rooms, {moves} moves, store {store_kind}:")
    for generation, times in pauses.by_generation.items():
        if times:
            print(
                f"  generation {generation}: {len(times):3d} collections, median "
                f"{statistics.median(times) * 1e3:6.2f} ms, max {max(times) * 1e3:6.2f} ms, "
                f"total {sum(times) * 1e3:7.1f} ms"
            )
    print(f"  CPU per move, collections included: {spent / moves * 1e6:.1f} us")
    tracked = sum(alive.values())
    kinds = ", ".join(f"{name} {count / room_count:.1f}" for name, count in alive.most_common(6))
    print(f"  tracked objects alive per room: {tracked / room_count:.0f} ({kinds})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--moves", type=int, default=30_000)
    parser.add_argument("--store", choices=["memory", "sqlite"], default="memory")
    args = parser.parse_args()
    asyncio.run(run(args.rooms, args.moves, args.store))


if __name__ == "__main__":
    main()
