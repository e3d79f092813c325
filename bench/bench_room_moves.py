"""Server CPU per move inside a room: apply, log, build every viewer's document, patch, encode.

    .venv/bin/python bench/bench_room_moves.py [--moves 400] [--repeats 7] [--spectator]
                                               [--profile]

Seeded two-player rooms on the in-memory store, each seat with one connection whose sends are
only counted (no socket). Each move is one `room.act` with the mover's connection as the ack,
so it covers what the server does for a move between the socket read and the socket writes.
Moves are chosen from the seat's own document outside the timing: Gin Rummy knocks whenever
allowed and otherwise plays at random; Rummikub uses the baseline bot. Deals between hands run
on the room's timer, outside the timing too. Figures are process CPU time (time.process_time),
so other load on the machine changes them little: the median over repeats of the mean per move.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import os
import pstats
import random
import statistics
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

# MELDHALL_ROOT: the checkout whose app/ is measured (bench/bench_instructions.py --root).
sys.path.insert(0, os.environ.get("MELDHALL_ROOT") or str(Path(__file__).resolve().parent.parent))

from app.api.outbox import Resumed
from app.bots.registry import make_bot
from app.rooms import match as room_match
from app.rooms.directory import RoomDirectory
from app.rooms.fanout import Connection
from app.rooms.room import Room, RoomTimings
from app.rooms.tokens import hash_token, new_token
from app.storage.memory_store import MemoryMatchStore
from app.storage.store import MatchStore

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
    game: str, seed: int, outboxes: list[CountingOutbox], store: MatchStore | None = None
) -> tuple[Room, list[str], list[Connection]]:
    """A started two-seat room on `store` (a fresh in-memory one if None)."""
    seeds = itertools.count(seed * 1000)
    # Every match the room starts gets the next seed of this run: the same games each repeat.
    room_match.new_seed = lambda: next(seeds)
    directory = RoomDirectory(store=store or MemoryMatchStore(), timings=TIMINGS, make_bot=make_bot)
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


def first_step(step: Coroutine[Any, Any, Any]) -> tuple[bool, Any]:
    """Run a coroutine until it first waits: (whether it ended, what it waits on)."""
    try:
        waiting_on = step.send(None)
    except StopIteration:
        return True, None
    return False, waiting_on


async def counted(step: Coroutine[Any, Any, Any]) -> None:
    """Await `step`, its first step inside sys.call_tracing: a C function that nothing else
    calls, so bench/bench_instructions.py counts the instructions of the moves alone
    (`callgrind --toggle-collect`). On the in-memory store a move never waits, so its first
    step is all of it; a store that waits (a database) is counted up to its first wait."""
    ended, waiting_on = sys.call_tracing(first_step, (step,))
    if not ended:
        await Resumed(step, waiting_on)


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
        await counted(room.act(hashes[seat], action, room.version, (connections[seat], sequence)))
        spent += time.process_time() - start
    sent = sum(c.outbox.sent for c in connections) - sent_before  # type: ignore[attr-defined]
    await room.close()
    return spent, sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--spectator", action="store_true", help="a third connection watching")
    parser.add_argument("--profile", action="store_true", help="cProfile one run of each game")
    parser.add_argument("--games", default="gin_rummy,rummikub")
    args = parser.parse_args()
    for game in args.games.split(","):
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            asyncio.run(run(game, 1, args.moves, args.spectator))
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            continue
        per_move, sizes = [], []
        for repeat in range(args.repeats):
            # A new seed each run: the same games again would find their hands' summaries in
            # the engine's caches, as a server's other games would not.
            spent, sent = asyncio.run(run(game, 1 + repeat, args.moves, args.spectator))
            per_move.append(spent / args.moves * 1e6)
            sizes.append(sent / args.moves)
        print(
            f"{game:10} CPU per move: median {statistics.median(per_move):6.1f} us "
            f"(min {min(per_move):6.1f}, max {max(per_move):6.1f}; {args.repeats} runs of "
            f"{args.moves} moves), {statistics.median(sizes):5.0f} bytes sent per move"
        )


if __name__ == "__main__":
    main()
