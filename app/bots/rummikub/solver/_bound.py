"""The linear relaxation of a Rummikub play: a bound on its score, and the old melds that
every play scoring at least a given target must keep whole or must break.

The model is the integer program of `_solve` (den Hertog and Hulshof, 2006) with
its integrality dropped: a column per candidate meld of the catalogue and per distinct old
meld, a row per tile type; every table tile must stay on the table, each rack tile laid
scores what the dynamic program scores it (tile weight plus points), each old meld kept
whole scores one, jokers score nothing (the program adds their part itself) and need not
be laid (as in its core, see `_rearrange`). Every play of the program is a solution
of the relaxation, so the relaxation's optimum bounds the best play's score.

The bound is read from the dual prices y of the solution by weak duality: for any prices,

    score(x) <= L(y) - sum over columns j of the penalty of x_j,

where L(y) is the Lagrangian bound and a column with reduced cost r_j < 0 pays |r_j| per
copy used, one with r_j > 0 pays r_j per copy left unused. So a solution's rounding errors
only loosen the bound, never make it wrong. And when L(y) - target < the penalty of keeping
an old meld (or of breaking it), no play scoring the target keeps it (or breaks it): the
textbook fixing of variables by reduced costs, which leaves the program a smaller problem.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import highspy
import numpy as np
import numpy.typing as npt

from app.bots.rummikub.solver._melds import JOKER, TYPE_COUNT, catalogue

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# The sums below add about a thousand terms of size up to ~1e6 in float64: their rounding
# stays far below this margin, which every comparison with a target gives away.
ROUNDING = 1e-3
# The relaxations are small (53 rows, a few hundred to two thousand columns): primal simplex
# without presolve takes half the time of the defaults (measured on the slow states of
# bench/bench_rummikub_solver.py). Any prices give a valid bound (see the module's
# docstring), so the method changes no answer.
HIGHS_OPTIONS: dict[str, bool | int | str] = {
    "output_flag": False,
    "presolve": "off",
    "simplex_strategy": 4,
}


def silence_highs_banner() -> None:
    """HiGHS prints a banner on stdout when a process makes its first instance; make that
    one here with stdout pointed at /dev/null, so that the solver prints nothing."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            highspy.Highs()  # type: ignore[no-untyped-call]  # highspy ships no stub for it
    finally:
        os.dup2(saved, 1)
        os.close(saved)


silence_highs_banner()


@cache
def catalogue_counts() -> IntArray:
    """(melds, types): the copies of each tile type in each catalogue meld."""
    melds = catalogue()
    counts = np.zeros((len(melds), TYPE_COUNT), dtype=np.int64)
    for row, meld in enumerate(melds):
        for tile in meld.layout:
            counts[row, tile] += 1
    return counts


_NUMBER = np.array([t % 13 + 1 for t in range(JOKER)] + [0], dtype=np.int64)


@dataclass(frozen=True)
class Fixed:
    """Old melds (by index) that every play scoring a target keeps whole, or breaks, and
    the rack's copies of tile types (type: copies) that it lays, or leaves on the rack.

    And what decided them: the relaxation's bound less the target (`slack`), the prices of
    the tile types and the reduced cost of each old meld's column. A play's choices each
    take their penalty off the bound (see the module's docstring), so a play whose
    penalties add up to more than the slack scores less than the target."""

    kept: list[int]
    broken: list[int]
    laid: dict[int, int] = field(default_factory=dict)
    unlaid: dict[int, int] = field(default_factory=dict)
    slack: float = 0.0
    prices: FloatArray = field(default_factory=lambda: np.zeros(TYPE_COUNT))
    old_reduced: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class _Decided:
    kept_set: set[int]
    broken_set: set[int]
    laid: dict[int, int]
    unlaid: dict[int, int]


class Relaxation:
    """The relaxation of one table (its old melds) and rack."""

    def __init__(
        self,
        table_types: IntArray,
        rack_types: IntArray,
        old_melds: Sequence[tuple[int, ...]],
        tile_weight: int,
        point_weight: int,
    ) -> None:
        """`table_types` and `rack_types` count the copies of each of the 53 tile types;
        `old_melds` are the tile types of the old melds that may be kept whole."""
        available = table_types + rack_types
        cat = catalogue_counts()
        fits = (cat <= available).all(axis=1)
        keys: dict[tuple[int, ...], int] = {}
        self.key_of: list[int] = []  # each old meld's column among the old ones
        for meld in old_melds:
            self.key_of.append(keys.setdefault(tuple(sorted(meld)), len(keys)))
        old = np.zeros((len(keys), TYPE_COUNT), dtype=np.int64)
        for key, row in keys.items():
            for tile in key:
                old[row, tile] += 1
        copies = np.bincount(np.array(self.key_of, dtype=np.int64), minlength=len(keys))
        counts = np.vstack([cat[fits], old])
        self.first_old = int(fits.sum())
        self.tile_weight = tile_weight
        self.point_weight = point_weight
        weight = np.where(_NUMBER > 0, tile_weight + _NUMBER * point_weight, 0)
        cost = counts @ weight
        cost[self.first_old :] += 1
        # The table's tiles are on the table whatever the play: their weight is no score.
        self.constant = float(weight @ table_types)
        # Rows that count the tiles, and the points, on the table after a play.
        self.tiles_row = (counts[:, :JOKER].sum(axis=1), float(table_types[:JOKER].sum()))
        self.points_row = (counts @ _NUMBER, float(table_types @ _NUMBER))
        upper = np.concatenate([_copies_that_fit(cat[fits], available), copies])
        self.model = _Model(counts, upper, cost, table_types, available)
        # The solutions by the counts the rows fix: the targets a search asks for share them.
        self._solved: dict[tuple[int, ...], tuple[FloatArray, float, FloatArray]] = {}
        self.reduced, self.value, self.prices = self._solve([])
        self.rack_types = rack_types

    @property
    def bound(self) -> int:
        """No play scores more than this (jokers left out)."""
        return int(np.floor(self.value + ROUNDING))

    def fixed(self, target: int) -> Fixed | None:
        """The old melds that every play scoring at least `target` keeps whole or breaks;
        None when the relaxation shows that no play scores that much.

        When the relaxation leaves a play scoring the target only one count of rack tiles,
        that count is added as a row, then likewise the count of points: the relaxation's
        optimum may lay a fraction of a tile, or of a point, more than any play can, and
        the rows take that away."""
        reduced, value, prices = self.reduced, self.value, self.prices
        rows: list[tuple[IntArray, float, float]] = []
        solved = [(reduced, value, prices)]
        settled = 0  # the score of the tiles (then points) the rows settle
        for (row, on_table), step in (
            (self.tiles_row, self.tile_weight),
            (self.points_row, self.point_weight),
        ):
            if value + ROUNDING < target:
                break
            count = (target - settled) // step
            if int(np.floor((value - settled + ROUNDING) / step)) != count:
                break
            rows.append((row, on_table + count, on_table + count))
            settled += count * step
            reduced, value, prices = self._solve(rows)
            solved.append((reduced, value, prices))
        if value + ROUNDING < target:
            return None
        # Each solution's prices decide for themselves: with the rows the bound is tighter,
        # but the rows' prices carry most of each tile's weight, and the solution without
        # them often decides more rack tiles.
        kept: set[int] = set()
        broken: set[int] = set()
        laid: dict[int, int] = {}
        unlaid: dict[int, int] = {}
        for each in solved:
            decided = self._decided(*each, target)
            kept |= decided.kept_set
            broken |= decided.broken_set
            for tile, copies in decided.laid.items():
                laid[tile] = max(laid.get(tile, 0), copies)
            for tile, copies in decided.unlaid.items():
                unlaid[tile] = max(unlaid.get(tile, 0), copies)
        clash = any(laid.get(t, 0) + n > self.rack_types[t] for t, n in unlaid.items())
        if kept & broken or clash:
            return None  # what every such play does cannot all be: there is none
        slack = value + ROUNDING - target
        old_reduced = [float(reduced[self.first_old + key]) for key in self.key_of]
        return Fixed(sorted(kept), sorted(broken), laid, unlaid, slack, prices, old_reduced)

    def _decided(
        self, reduced: FloatArray, value: float, prices: FloatArray, target: int
    ) -> _Decided:
        """What one solution's reduced costs and prices decide for plays scoring `target`."""
        slack = value + ROUNDING - target
        old = reduced[self.first_old :]
        kept = {i for i, key in enumerate(self.key_of) if old[key] > slack}
        broken = {i for i, key in enumerate(self.key_of) if -old[key] > slack}
        # A tile type's price is what each rack copy left on the rack (a positive price) or
        # laid (a negative one) takes off the bound, as a column's reduced cost does.
        laid: dict[int, int] = {}
        unlaid: dict[int, int] = {}
        for tile in np.flatnonzero(self.rack_types[:JOKER]).tolist():
            price = float(prices[tile])
            if abs(price) <= ROUNDING:
                continue
            copies = int(self.rack_types[tile])
            spare = min(copies, int(np.floor(slack / abs(price))))
            if spare < copies:
                (laid if price > 0 else unlaid)[tile] = copies - spare
        return _Decided(kept, broken, laid, unlaid)

    def _solve(
        self, rows: list[tuple[IntArray, float, float]]
    ) -> tuple[FloatArray, float, FloatArray]:
        key = tuple(int(low) for _, low, _ in rows)
        if key not in self._solved:
            reduced, value, prices = self.model.solve(rows)
            self._solved[key] = (reduced, value - self.constant, prices)
        return self._solved[key]


class _Model:
    """The relaxation as a HiGHS model, solved with some equality rows added for a while."""

    def __init__(
        self,
        counts: IntArray,
        upper: IntArray,
        cost: IntArray,
        row_lower: IntArray,
        row_upper: IntArray,
    ) -> None:
        self.counts = counts.astype(np.float64)
        self.upper = upper.astype(np.float64)
        self.cost = cost.astype(np.float64)
        self.row_lower = row_lower.astype(np.float64)
        self.row_upper = row_upper.astype(np.float64)
        n = len(counts)
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = TYPE_COUNT
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.col_cost_ = self.cost
        lp.col_lower_ = np.zeros(n)
        lp.col_upper_ = self.upper
        lp.row_lower_ = self.row_lower
        lp.row_upper_ = self.row_upper
        col_index, row_index = np.nonzero(counts)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.searchsorted(col_index, np.arange(n + 1))
        lp.a_matrix_.index_ = row_index
        lp.a_matrix_.value_ = self.counts[col_index, row_index]
        self.highs = highspy.Highs()  # type: ignore[no-untyped-call]  # highspy ships no stub
        for option, value in HIGHS_OPTIONS.items():
            self.highs.setOptionValue(option, value)
        self.highs.passModel(lp)

    def solve(
        self, rows: list[tuple[IntArray, float, float]]
    ) -> tuple[FloatArray, float, FloatArray]:
        """The reduced costs, the Lagrangian bound at the solution's dual prices (or at
        their negation, if that bounds lower: the bound holds for any prices, so HiGHS's
        sign convention for a maximisation does not matter; -inf if no fractional solution
        satisfies the rows), and the prices of the tile types' rows."""
        n = len(self.counts)
        for row, low, high in rows:
            columns = np.flatnonzero(row).astype(np.int32)
            self.highs.addRow(low, high, len(columns), columns, row[columns].astype(float))
        self.highs.run()
        infeasible = self.highs.getModelStatus() == highspy.HighsModelStatus.kInfeasible
        duals = np.asarray(self.highs.getSolution().row_dual, dtype=np.float64)
        if rows:
            self.highs.deleteRows(len(rows), np.arange(TYPE_COUNT, TYPE_COUNT + len(rows)))
        if infeasible:
            return np.zeros(n), -np.inf, np.zeros(TYPE_COUNT)
        matrix = np.vstack([self.counts.T, *(row.astype(np.float64) for row, _, _ in rows)])
        lower = np.concatenate([self.row_lower, [low for _, low, _ in rows]])
        upper = np.concatenate([self.row_upper, [high for _, _, high in rows]])
        best = (np.zeros(n), np.inf, np.zeros(TYPE_COUNT))
        for y in (duals, -duals):
            reduced = self.cost - y @ matrix
            bound = float(np.maximum(reduced, 0.0) @ self.upper)
            bound += float(np.maximum(y * lower, y * upper).sum())
            if bound < best[1]:
                best = (reduced, bound, y[:TYPE_COUNT])
        return best


def _copies_that_fit(counts: IntArray, available: IntArray) -> IntArray:
    if len(counts) == 0:
        return np.zeros(0, dtype=np.int64)
    per_type = np.where(counts > 0, available // np.maximum(counts, 1), 2)
    return np.asarray(per_type.min(axis=1), dtype=np.int64)
