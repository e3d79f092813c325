"""Rummikub engine speed: checking a whole play on a 100-tile table, and whole random games.

Run: python bench/bench_rummikub.py. Prints medians and their ratio to the targets of the
Rummikub issue (check <= 0.5 ms, a four-player game deal to end <= 200 ms).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bots.rummikub.basic import BasicRummikubBot
from app.games.rummikub import Rummikub, check_play

CHECK_TARGET_MS = 0.5
GAME_TARGET_MS = 200.0


def hundred_tile_table() -> list[list[str]]:
    """Copy a: four runs per colour in three pieces; copy b: groups of four for 1..12."""
    runs = [
        [f"{colour}{n}a" for n in numbers]
        for colour in "RBKY"
        for numbers in (range(1, 5), range(5, 9), range(9, 14))
    ]
    groups = [[f"{colour}{n}b" for colour in "RBKY"] for n in range(1, 13)]
    return runs + groups


def rearranged_play(table: list[list[str]]) -> list[list[str]]:
    """Take Y12b off its four-group, lay it in the run J1 Y12b Y13b, and add R13b B13b K13b."""
    after = [list(meld) for meld in table]
    after[-1].remove("Y12b")
    after.append(["J1", "Y12b", "Y13b"])
    after.append(["R13b", "B13b", "K13b"])
    return after


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_check(repeats: int = 2000) -> float:
    before = hundred_tile_table()
    after = rearranged_play(before)
    rack = ["Y13b", "J1", "R13b", "B13b", "K13b", "J2"]
    assert sum(map(len, before)) == 100
    assert check_play(before, after, rack, True) == ["J1", "Y13b", "R13b", "B13b", "K13b"]
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        check_play(before, after, rack, True)
        samples.append(time.perf_counter() - start)
    return median_ms(samples)


def play_game(seed: int, players: int = 4) -> tuple[int, str]:
    game = Rummikub.new({}, players, seed=seed)
    bots = [BasicRummikubBot(seed * 10 + seat) for seat in range(players)]
    actions = 0
    while not game.is_over():
        seat = game.current
        game.apply(seat, bots[seat].choose(game.view(seat), game.legal_actions(seat)))
        actions += 1
    return actions, game.hand_results()[-1]["reason"]


def bench_games(games: int = 30) -> tuple[float, float, dict[str, int]]:
    samples, lengths, reasons = [], [], {}
    for seed in range(games):
        start = time.perf_counter()
        actions, reason = play_game(seed)
        samples.append(time.perf_counter() - start)
        lengths.append(actions)
        reasons[reason] = reasons.get(reason, 0) + 1
    return median_ms(samples), statistics.median(lengths), reasons


def main() -> None:
    check = bench_check()
    print(
        f"check_play, 100-tile table: median {check:.3f} ms "
        f"(target {CHECK_TARGET_MS} ms, ratio {check / CHECK_TARGET_MS:.2f})"
    )
    game, length, reasons = bench_games()
    print(
        f"4-player game of BasicRummikubBot, deal to end, views included: median {game:.1f} ms "
        f"over {length:.0f} actions (target {GAME_TARGET_MS:.0f} ms, "
        f"ratio {game / GAME_TARGET_MS:.2f}); endings {reasons}"
    )


if __name__ == "__main__":
    main()
