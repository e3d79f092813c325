"""Speed of the Gin Rummy engine: the meld finder and whole random-play hands.

Run: .venv/bin/python bench/bench_gin_rummy.py
Prints median and p90 per call of `min_deadwood_mask` on uniformly random 11-card hands and on
meld-rich hands (11 cards from four neighbouring ranks), the same for the string API
`min_deadwood`, and the median time of one whole random-play hand (deal to knock, gin or draw),
each with its ratio to the target from issue 2, and for scale one hand between two BasicGinBots.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from app.bots.gin_rummy.basic import BasicGinBot
from app.games.gin_rummy import GinRummy, min_deadwood
from app.games.gin_rummy.cards import names, to_mask
from app.games.gin_rummy.melds import min_deadwood_mask

HANDS = 20_000
REPEATS = 5


def uniform_hands(rng: random.Random) -> list[list[int]]:
    return [rng.sample(range(52), 11) for _ in range(HANDS)]


def meld_rich_hands(rng: random.Random) -> list[list[int]]:
    hands = []
    for _ in range(HANDS):
        low = rng.randint(0, 9)
        pool = [suit * 13 + rank for suit in range(4) for rank in range(low, low + 4)]
        hands.append(rng.sample(pool, 11))
    return hands


def per_call_us(function: Callable[[Any], int], inputs: list[Any]) -> tuple[float, float]:
    """Median and p90 over batches of 100 calls, in microseconds per call."""
    samples = []
    for _ in range(REPEATS):
        for start in range(0, len(inputs), 100):
            batch = inputs[start : start + 100]
            began = time.perf_counter_ns()
            for item in batch:
                function(item)
            samples.append((time.perf_counter_ns() - began) / len(batch) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def random_hand_ms(rng: random.Random, hands: int = 300) -> float:
    """Median time of one hand played by uniformly random legal moves, in milliseconds."""
    samples = []
    for index in range(hands):
        began = time.perf_counter_ns()
        engine = GinRummy.new({"target": 10_000}, 2, seed=index)
        while engine.phase == "playing":
            seat = engine.to_act()[0]
            engine.apply(seat, rng.choice(engine.legal_actions(seat)))
        samples.append((time.perf_counter_ns() - began) / 1e6)
    return statistics.median(samples)


def bot_hand_ms(hands: int = 100) -> float:
    """Median time of one hand between two BasicGinBots, views included, in milliseconds."""
    samples = []
    for index in range(hands):
        bots = [BasicGinBot(seed=index), BasicGinBot(seed=index + 1)]
        began = time.perf_counter_ns()
        engine = GinRummy.new({"target": 10_000}, 2, seed=index)
        while engine.phase == "playing":
            seat = engine.to_act()[0]
            engine.apply(seat, bots[seat].choose(engine.view(seat), engine.legal_actions(seat)))
        samples.append((time.perf_counter_ns() - began) / 1e6)
    return statistics.median(samples)


def report(label: str, median: float, p90: float, target: float, unit: str) -> None:
    print(
        f"{label:<38} median {median:8.2f} {unit}  p90 {p90:8.2f} {unit}  "
        f"target {target:g} {unit}  ratio {median / target:.2f}"
    )


def main() -> None:
    rng = random.Random(2)
    uniform = uniform_hands(rng)
    rich = meld_rich_hands(rng)
    cases: list[tuple[str, Callable[[Any], int], list[Any], float]] = [
        (
            "min_deadwood_mask, uniform 11 cards",
            min_deadwood_mask,
            [to_mask(h) for h in uniform],
            10,
        ),
        (
            "min_deadwood_mask, meld-rich 11 cards",
            min_deadwood_mask,
            [to_mask(h) for h in rich],
            50,
        ),
        ("min_deadwood(names), uniform", min_deadwood, [names(h) for h in uniform], 10),
        ("min_deadwood(names), meld-rich", min_deadwood, [names(h) for h in rich], 50),
    ]
    for label, function, inputs, target in cases:
        report(label, *per_call_us(function, inputs), target, "us")
    hand_ms = random_hand_ms(rng)
    ratio = hand_ms / 2
    print(f"{'random-play hand':<38} median {hand_ms:8.3f} ms  target 2 ms  ratio {ratio:.2f}")
    print(f"{'BasicGinBot v BasicGinBot hand':<38} median {bot_hand_ms():8.3f} ms  (no target)")


if __name__ == "__main__":
    main()
