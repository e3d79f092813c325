"""Rummikub bot levels against each other: is each level stronger than the one below?

For each step (normal over easy, hard over normal) and each player count (2, 3, 4), plays
`--rounds` seeded rounds in which one seat has the stronger level and every other seat the
weaker one; round i uses seed `--seed + i` (the same deals for every step) and gives the
stronger bot seat i % players, so no seat's place in the turn order favours it. Even levels
would win a share 1/players of the rounds: the bench prints the stronger level's wins, its
rate with a Wilson 95% interval, and the one-sided exact binomial test of "no stronger than
even" (the p-value: the chance of at least that many wins at the even share). A step is
significant when p < 0.05, for each player count and for all of them pooled (the pooled
test sums the counts and compares with the summed even shares, by the normal
approximation with the exact variance of that sum). Decision times are CPU times.

    python bench/bench_rummikub_bots.py [--rounds 60] [--players 2 3 4] [--seed 0]

Figures: docs/performance.md.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Any

from bench_gin_bots import wilson

from app.bots.base import Bot
from app.bots.registry import make_bot
from app.games.rummikub import Rummikub

STEPS = (("normal", "easy"), ("hard", "normal"))


def binomial_tail(wins: int, n: int, p: float) -> float:
    """P(X >= wins) for X ~ Binomial(n, p), exactly."""
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(wins, n + 1))


def pooled_p_value(results: list[tuple[int, int, float]]) -> float:
    """One-sided p-value of the summed wins against the summed even shares (normal
    approximation, variance of a sum of binomials)."""
    wins = sum(w for w, _, _ in results)
    mean = sum(n * p for _, n, p in results)
    variance = sum(n * p * (1 - p) for _, n, p in results)
    z = (wins - 0.5 - mean) / math.sqrt(variance)  # continuity-corrected
    return 0.5 * math.erfc(z / math.sqrt(2))


def play_round(strong: str, weak: str, players: int, seed: int, cpu: list[float]) -> bool:
    """One seeded round; True if the stronger bot wins it."""
    mine = seed % players
    bots: list[Bot] = [
        make_bot("rummikub", strong if seat == mine else weak, seed * 10 + seat)
        for seat in range(players)
    ]
    game = Rummikub.new({}, players, seed=seed)
    for _ in range(10_000):
        seats = game.to_act()
        if game.is_over() or not seats:
            break
        seat = seats[0]
        view, legal = game.view(seat), game.legal_actions(seat)
        started = time.thread_time()
        action: dict[str, Any] = bots[seat].choose(view, legal)
        if seat == mine:
            cpu.append(time.thread_time() - started)
        game.apply(seat, action)
    result = game.result()
    return result is not None and mine in result["winners"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for strong, weak in STEPS:
        results: list[tuple[int, int, float]] = []
        for players in args.players:
            cpu: list[float] = []
            started = time.process_time()
            wins = sum(
                play_round(strong, weak, players, args.seed + i, cpu) for i in range(args.rounds)
            )
            even = 1 / players
            low, high = wilson(wins, args.rounds)
            p_value = binomial_tail(wins, args.rounds, even)
            results.append((wins, args.rounds, even))
            print(
                f"{strong} over {weak}, {players} players: {wins}/{args.rounds} won, "
                f"{wins / args.rounds:.1%} (95% CI {low:.1%}-{high:.1%}) against an even share "
                f"of {even:.1%}: p = {p_value:.2g} "
                f"({'significant' if p_value < 0.05 else 'NOT significant'}); "
                f"{strong}'s decisions, CPU ms: median {statistics.median(cpu) * 1000:.1f} "
                f"max {max(cpu) * 1000:.0f}; bench CPU {time.process_time() - started:.0f} s",
                flush=True,
            )
        pooled = pooled_p_value(results)
        print(
            f"{strong} over {weak}, all player counts: "
            f"{sum(w for w, _, _ in results)}/{sum(n for _, n, _ in results)} won against "
            f"{sum(n * p for _, n, p in results):.1f} even: p = {pooled:.2g} "
            f"({'significant' if pooled < 0.05 else 'NOT significant'})",
            flush=True,
        )


if __name__ == "__main__":
    main()
