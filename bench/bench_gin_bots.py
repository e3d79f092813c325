"""Gin Rummy bots against each other: hands and matches won, with 95% confidence intervals.

Each pairing plays two-player matches to 100 under the house rules (the engine's defaults)
until at least `--hands` hands and `--matches` matches are played. Match i uses seed
`--seed + i` for every pairing, so every level meets the same deals, and the first bot sits
in seat i % 2, so neither bot gains from the seating. Prints, per pairing, the first bot's
share of the decided hands (a drawn hand has no winner), its share of the matches (Wilson
95% intervals), its points per decided hand, how often it passed up a knock it could have
made, whether the target for that pairing is met (by the point estimate, the interval
beside it), and its decision times in CPU time (the machine is shared, so wall-clock time
would measure the others' load).

    python bench/bench_gin_bots.py [--hands 2000] [--matches 400] [--seed 0]
        [--pairing hard:simple normal:simple hard:easy]

Levels: `simple` (the competitions' simple player, `app.bots.gin_rummy.simple`), `easy`, `normal`,
`hard` (as the server's bot levels). Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from app.bots.base import Bot
from app.bots.gin_rummy.simple import SimpleGinBot
from app.bots.registry import make_bot
from app.games.gin_rummy import GinRummy

# The targets for the first bot of a pairing: shares of (decided hands, matches) won.
TARGETS: dict[str, tuple[float | None, float | None]] = {
    "hard:simple": (0.55, 0.60),
    "normal:simple": (0.50, 0.50),
    "hard:easy": (None, 0.70),
}


def make(level: str, seed: int) -> Bot:
    return SimpleGinBot(seed) if level == "simple" else make_bot("gin_rummy", level, seed)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


@dataclass
class Tally:
    matches: int = 0
    matches_won: int = 0
    hands: int = 0
    decided: int = 0
    hands_won: int = 0
    points: int = 0  # the first bot's hand points less the other's
    declined: int = 0  # times the first bot could knock and discarded instead
    cpu: list[float] = field(default_factory=list)


def play_match(first: str, second: str, seed: int, tally: Tally) -> None:
    """One match; the first bot's results go to `tally`."""
    mine = seed % 2
    bots: list[Any] = [None, None]
    bots[mine] = make(first, seed)
    bots[1 - mine] = make(second, seed + 1_000_003)
    game = GinRummy.new({}, 2, seed=seed)
    for _ in range(20_000):
        if game.is_over():
            break
        seats = game.to_act()
        if not seats:
            game.apply(None, game.legal_actions(None)[0])
            continue
        seat = seats[0]
        view, legal = game.view(seat), game.legal_actions(seat)
        start = time.thread_time()
        action = bots[seat].choose(view, legal)
        if seat == mine:
            tally.cpu.append(time.thread_time() - start)
            could_knock = any(a["type"] == "knock" for a in legal)
            tally.declined += could_knock and action["type"] == "discard"
        game.apply(seat, action)
    for record in game.hand_results():
        tally.hands += 1
        if record["winner"] is not None:
            tally.decided += 1
            won = record["winner"] == mine
            tally.hands_won += won
            tally.points += record["points"] if won else -record["points"]
    result = game.result()
    tally.matches += 1
    tally.matches_won += result is not None and mine in result["winners"]


def share(label: str, wins: int, n: int, target: float | None) -> str:
    low, high = wilson(wins, n)
    verdict = (
        ""
        if target is None
        else f", target > {target:.0%}: " + ("met" if wins / max(n, 1) > target else "NOT met")
    )
    return f"{label} {wins}/{n} = {wins / max(n, 1):.1%} (95% CI {low:.1%}-{high:.1%}{verdict})"


def run_pairing(pairing: str, hands: int, matches: int, seed: int) -> None:
    first, second = pairing.split(":")
    tally = Tally()
    started = time.process_time()
    while tally.hands < hands or tally.matches < matches:
        play_match(first, second, seed + tally.matches, tally)
    hand_target, match_target = TARGETS.get(pairing, (None, None))
    cpu = sorted(tally.cpu)
    print(
        f"{first} vs {second}: "
        + share("decided hands won", tally.hands_won, tally.decided, hand_target)
        + f" ({tally.hands} hands, {tally.hands - tally.decided} drawn); "
        + share("matches won", tally.matches_won, tally.matches, match_target)
        + f"; {tally.points / max(tally.decided, 1):+.2f} points a decided hand; "
        f"{tally.declined} knocks passed up; "
        f"{first}'s decisions, CPU ms: median {statistics.median(cpu) * 1000:.2f} "
        f"p99 {cpu[int(0.99 * len(cpu))] * 1000:.1f} max {cpu[-1] * 1000:.1f} "
        f"({len(cpu)} decisions); bench CPU {time.process_time() - started:.0f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairing", nargs="+", default=list(TARGETS))
    args = parser.parse_args()
    for pairing in args.pairing:
        run_pairing(pairing, args.hands, args.matches, args.seed)


if __name__ == "__main__":
    main()
