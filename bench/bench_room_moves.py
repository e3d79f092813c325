"""Server CPU per move inside a room: apply, log, build every viewer's document, patch, encode.

    .venv/bin/python bench/bench_room_moves.py [--moves 400] [--repeats 7] [--spectator]
                                               [--profile] [--collector ROOMS]

Seeded two-player rooms on the in-memory store, each seat with one connection whose sends are
only counted (no socket). Each move is one `room.act` with the mover's connection as the ack,
so it covers what the server does for a move between the socket read and the socket writes.
Moves are chosen from the seat's own document outside the timing: Gin Rummy knocks whenever
allowed and otherwise plays at random; Rummikub uses the baseline bot. Deals between hands run
on the room's timer, outside the timing too. Figures are process CPU time (time.process_time),
so other load on the machine changes them little: the median over repeats of the mean per move.

Figures (2 cores at load 2-3, medians of 7 runs, old and new tree run alternately):
  before shared views    Gin 91-116 us, Rummikub 243-249 us (with a spectator: 111-113 / 328-353)
  after                  Gin 81-84 us,  Rummikub 80-94 us   (with a spectator: 93-95 / 95)
Same messages byte for byte (as JSON) before and after on seeded runs.

Seat views (a SeatView is the public view plus the viewer's own keys; the public change is
diffed once per broadcast; Gin's own cards only in `me`), Rummikub's kept table and grouped
parts, Gin's knock bound, hand records copied only when a hand ended. On a slower, busier
machine (2 cores at load 4-7; medians of 5 runs, old and new alternately, three rounds):
  before                 Gin 228-301 us, Rummikub 187-320 us
  after                  Gin 146-239 us, Rummikub 193-242 us
Process time was too noisy there to rank changes, so each was judged by instructions per
move under valgrind (cachegrind, PYTHONHASHSEED=0, the moves of a 400-move run replayed; the
bench's own loop and the deals between hands included, so the room's share fell further):
  before                 Gin 722k, Rummikub 752k  (with a spectator: 841k / 867k)
  after                  Gin 566k, Rummikub 650k  (with a spectator: 606k / 694k)
Gin sends 10% fewer bytes per move (its own cards are no longer repeated at the table).

A waiting viewer's shared `you` part, Gin's kept to_act, seats and discard pile, progress
recorded only when there is some. Instructions per move under cachegrind (PYTHONHASHSEED=0; the
difference between runs of 600 and 200 moves, over 400: the choice of moves, the deals and
Rummikub's bot included, so not comparable with the figures above):
  before                 Gin 582k, Rummikub 1918k  (Gin with a spectator: 623k)
  after                  Gin 579k, Rummikub 1862k  (Gin with a spectator: 618k)
Process time, base and new alternately at load ~4: Gin 104-110 / 98-114 us, no ranking.
The same messages byte for byte, both games with a spectator, ids and tokens seeded.

--collector ROOMS plays --moves moves in random order among that many Gin or Rummikub rooms
under the server's collector settings (app/main.py), first without and then with its clock of
young collections (moves counted as time at human pace, 5 a second per room), and prints each
generation's collections: the objects in it as each began, and the pause in thread CPU time.
500 Gin rooms, 30000 moves, load ~4:
  without the clock      8 young collections of ~30,400 objects, pauses 12.6 ms median,
                         18.1 ms max; the collector's CPU 3.4 us per move
  with it (every 20 ms)  600 young collections of ~1,800 objects, pauses 0.33 ms median,
                         1.1 ms max; one middle collection of 49,700 objects (every room's
                         live documents and the memory store's action records), 24.7 ms;
                         9.0 us per move
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import itertools
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bots.registry import make_bot
from app.main import (
    YOUNG_COLLECTION_PERIOD_S,
    collect_young_generation,
    restore_garbage_collector,
    tune_garbage_collector,
)
from app.rooms import match as room_match
from app.rooms.directory import RoomDirectory
from app.rooms.fanout import Connection
from app.rooms.room import Room, RoomTimings
from app.rooms.tokens import hash_token, new_token
from app.storage.memory_store import MemoryMatchStore

TIMINGS = RoomTimings(bot_delay_s=0, reconnect_grace_s=0, between_hands_s=0)


class CountingOutbox:
    """Stands in for a socket's queue: keeps the byte count of what it was given."""

    def __init__(self) -> None:
        self.sent = 0
        self.messages = 0

    def send(self, text: str) -> None:
        self.sent += len(text)
        self.messages += 1

    def close(self, code: int, reason: str) -> None:
        return None


def choose_gin(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    for action in legal:
        if action["type"] in ("big_gin", "gin", "knock"):
            return action
    return rng.choice(legal)


async def open_room(
    game: str, seed: int, outboxes: list[CountingOutbox]
) -> tuple[Room, list[str], list[Connection]]:
    seeds = itertools.count(seed * 1000)
    # Every match the room starts gets the next seed of this run: the same games each repeat.
    room_match.new_seed = lambda: next(seeds)
    directory = RoomDirectory(store=MemoryMatchStore(), timings=TIMINGS, make_bot=make_bot)
    room = await directory.create(
        game=game, players=2, options={}, bots=[], public=False, spectators=True
    )
    hashes = [hash_token(new_token()) for _ in range(2)]
    for seat, token_hash in enumerate(hashes):
        await room.join(f"p{seat}", seat, token_hash)
    connections = [
        await room.connect(outbox, token_hash)
        for outbox, token_hash in zip(outboxes, hashes, strict=False)
    ]
    for token_hash in hashes:
        await room.ready(token_hash)
    return room, hashes, connections


async def mover(room: Room) -> int:
    """The seat to act once the room has dealt (the deal runs on the room's timer)."""
    for _ in range(10_000):
        assert room.match is not None
        seats = room.match.engine.to_act()
        if seats:
            return seats[0]
        await asyncio.sleep(0)
    raise RuntimeError("nobody to act")


async def run(game: str, seed: int, moves: int, spectator: bool) -> tuple[float, int]:
    """CPU seconds of `moves` actions, and the bytes sent for them."""
    outboxes = [CountingOutbox() for _ in range(3 if spectator else 2)]
    room, hashes, connections = await open_room(game, seed, outboxes)
    if spectator:
        connections.append(await room.connect(outboxes[2], None))
    rng = random.Random(seed)
    bots = [make_bot(game, "easy", seed + seat) for seat in range(2)]
    spent = 0.0
    sent_before = sum(outbox.sent for outbox in outboxes)
    for sequence in range(moves):
        assert room.match is not None
        if room.match.engine.is_over():
            await room.rematch(hashes[0])
        seat = await mover(room)
        doc = connections[seat].doc
        assert doc is not None
        legal = doc["you"]["legal"]
        if game == "gin_rummy":
            action = choose_gin(rng, legal)
        else:
            action = bots[seat].choose(doc["game"], legal)
        start = time.process_time()
        await room.act(hashes[seat], action, room.version, (connections[seat], sequence))
        spent += time.process_time() - start
    sent = sum(c.outbox.sent for c in connections) - sent_before  # type: ignore[attr-defined]
    await room.close()
    return spent, sent


# Human pace in bench/bench_server.py: every room moves every 200 ms.
MOVES_PER_ROOM_S = 5


class CollectorWatch:
    """Each collection's generation, the size of that generation as it began, and its pause
    (thread CPU time, so other load on the machine changes it little)."""

    def __init__(self) -> None:
        self.sizes: dict[int, list[int]] = {0: [], 1: [], 2: []}
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        generation = info["generation"]
        if phase == "start":
            self.sizes[generation].append(len(gc.get_objects(generation)))
            self._began = time.thread_time()
        else:
            self.pauses[generation].append(time.thread_time() - self._began)


async def collector_run(game: str, rooms: int, moves: int, clock: bool) -> CollectorWatch:
    """`moves` moves in random order among `rooms` rooms, under the server's collector settings;
    with `clock`, the young generation is also collected as often as the server's clock would
    at human pace (moves are counted as time)."""
    players = []
    for index in range(rooms):
        outboxes = [CountingOutbox(), CountingOutbox()]
        room, hashes, connections = await open_room(game, index + 1, outboxes)
        bots = [make_bot(game, "easy", index * 10 + seat) for seat in range(2)]
        players.append((room, hashes, connections, random.Random(index), bots))
    watch = CollectorWatch()
    thresholds = tune_garbage_collector()
    gc.callbacks.append(watch)
    every = max(1, round(rooms * MOVES_PER_ROOM_S * YOUNG_COLLECTION_PERIOD_S))
    order = random.Random(0)
    try:
        for sequence in range(moves):
            room, hashes, connections, rng, bots = players[order.randrange(rooms)]
            assert room.match is not None
            if room.match.engine.is_over():
                await room.rematch(hashes[0])
            seat = await mover(room)
            doc = connections[seat].doc
            assert doc is not None
            legal = doc["you"]["legal"]
            if game == "gin_rummy":
                action = choose_gin(rng, legal)
            else:
                action = bots[seat].choose(doc["game"], legal)
            await room.act(hashes[seat], action, room.version, (connections[seat], sequence))
            if clock and sequence % every == 0:
                collect_young_generation()
    finally:
        gc.callbacks.remove(watch)
        restore_garbage_collector(thresholds)
    for room, *_ in players:
        await room.close()
    return watch


def print_collector(game: str, rooms: int, moves: int, clock: bool, watch: CollectorWatch) -> None:
    total = sum(sum(pauses) for pauses in watch.pauses.values())
    print(
        f"{game:10} {rooms} rooms, {'with' if clock else 'without'} the clock: "
        f"collector CPU per move {total / moves * 1e6:5.1f} us"
    )
    for generation in (0, 1, 2):
        sizes, pauses = sorted(watch.sizes[generation]), sorted(watch.pauses[generation])
        if not sizes:
            continue
        print(
            f"  generation {generation}: {len(sizes):4} collections, objects median "
            f"{statistics.median(sizes):7.0f} max {sizes[-1]:7}, pause median "
            f"{statistics.median(pauses) * 1e3:5.2f} ms max {pauses[-1] * 1e3:5.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--spectator", action="store_true", help="a third connection watching")
    parser.add_argument("--profile", action="store_true", help="cProfile one run of each game")
    parser.add_argument("--games", default="gin_rummy,rummikub")
    parser.add_argument(
        "--collector",
        type=int,
        metavar="ROOMS",
        help="the garbage collector over this many rooms, without and with the server's clock",
    )
    args = parser.parse_args()
    for game in args.games.split(","):
        if args.collector:
            for clock in (False, True):
                watch = asyncio.run(collector_run(game, args.collector, args.moves, clock))
                print_collector(game, args.collector, args.moves, clock, watch)
            continue
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            asyncio.run(run(game, 1, args.moves, args.spectator))
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            continue
        per_move, sizes = [], []
        for _ in range(args.repeats):
            spent, sent = asyncio.run(run(game, 1, args.moves, args.spectator))
            per_move.append(spent / args.moves * 1e6)
            sizes.append(sent / args.moves)
        print(
            f"{game:10} CPU per move: median {statistics.median(per_move):6.1f} us "
            f"(min {min(per_move):6.1f}, max {max(per_move):6.1f}; {args.repeats} runs of "
            f"{args.moves} moves), {statistics.median(sizes):5.0f} bytes sent per move"
        )


if __name__ == "__main__":
    main()
