"""What each choice of a play takes off the linear relaxation's bound, as the arrays the
dynamic program adds up along its states (`_dp.search`).

By weak duality (see `_bound`) a play's score is at most the bound less the penalties of its
choices: of each rack copy of a tile type left on the rack (a positive price) or laid (a
negative one), and of each old meld kept whole (a negative reduced cost) or broken (a
positive one). The relaxation's fixings drop a choice whose own penalty exceeds the slack
between the bound and a target; the program drops a state whose penalties so far add up to
more, which decides combinations no single fixing does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.bots.rummikub.solver._bound import Fixed
from app.bots.rummikub.solver._dp import MAX_OLD_GROUPS, MAX_STARTS, PENALTY_SCALE, IntArray
from app.bots.rummikub.solver._replay import OldGroup, OldRun


def kept_penalty(fixed: Fixed, meld: int) -> float:
    return max(0.0, -fixed.old_reduced[meld])


def broken_penalty(fixed: Fixed, meld: int) -> float:
    return max(0.0, fixed.old_reduced[meld])


def _scaled(penalty: float) -> int:
    # Rounded down, so that the sum of scaled penalties never exceeds the true sum.
    return math.floor(penalty * PENALTY_SCALE)


def penalty_arrays(
    fixed: Fixed,
    rack_cnt: IntArray,
    runs: Sequence[OldRun],
    groups: Sequence[OldGroup],
    origin: Sequence[int],
    owed: float,
    numbers: Sequence[int],
) -> tuple[tuple[IntArray, ...], int]:
    """The program's penalty arrays for a problem reduced by `fixed`, and its slack.

    `origin` gives the relaxation's index of each old meld of the problem's table, by the
    meld's place on it; `owed` is what the choices made outside the program (melds set
    aside or loose, tiles decided) take off the bound already; `numbers` the number of
    the tiles at each of the program's numbers (see `_rearrange`)."""
    tiles = np.zeros((4, 14, 3), dtype=np.int64)
    for c in range(4):
        for v in range(1, 14):
            copies = int(rack_cnt[c, v])
            price = float(fixed.prices[c * 13 + numbers[v] - 1])
            for laid in range(copies + 1):
                left = copies - laid
                tiles[c, v, laid] = _scaled(price * left if price > 0 else -price * laid)
    starts = np.zeros((4, 14, 1 << MAX_STARTS), dtype=np.int64)
    by_start: dict[tuple[int, int], list[int]] = {}
    for run in runs:
        by_start.setdefault((run.colour, run.start), []).append(origin[run.meld])
    for (c, v), melds in by_start.items():
        # In the order `_rearrange` numbers the old runs starting at one place.
        for chosen in range(1 << len(melds)):
            total = sum(
                kept_penalty(fixed, m) if (chosen >> k) & 1 else broken_penalty(fixed, m)
                for k, m in enumerate(melds)
            )
            starts[c, v, chosen] = _scaled(total)
    kept_groups = np.zeros((14, MAX_OLD_GROUPS + 1), dtype=np.int64)
    for v in range(1, 14):
        melds = [origin[g.meld] for g in groups if g.value == v]
        broken = sum(broken_penalty(fixed, m) for m in melds)
        # The program counts the old groups kept, not which: the cheapest so many.
        change = sorted(kept_penalty(fixed, m) - broken_penalty(fixed, m) for m in melds)
        for kept in range(MAX_OLD_GROUPS + 1):
            kept_groups[v, kept] = _scaled(broken + sum(change[:kept]))
    return (tiles, starts, kept_groups), _scaled(fixed.slack - owed)
