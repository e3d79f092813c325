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
# A catalogue meld has at most five tiles; the relaxation's matrix is kept by column as
# each column's tile types and copies, so that its products take tens of entries a column
# rather than all 53 types (the dense products and copies took a fifth of its time).
_WIDTH = 5


@cache
def catalogue_columns() -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The catalogue's columns: (melds, 5) tile types (`TYPE_COUNT` past a meld's last) and
    copies of each (0 there), and each meld's count of numbered tiles and their points."""
    counts = catalogue_counts()
    types = np.full((len(counts), _WIDTH), TYPE_COUNT, dtype=np.int64)
    copies = np.zeros((len(counts), _WIDTH), dtype=np.int64)
    for row, present in enumerate(counts > 0):
        distinct = np.flatnonzero(present)
        types[row, : len(distinct)] = distinct
        copies[row, : len(distinct)] = counts[row, distinct]
    return types, copies, counts[:, :JOKER].sum(axis=1), counts @ _NUMBER


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
        cat_types, cat_copies, cat_tiles, cat_points = catalogue_columns()
        # The copies of each catalogue meld the tiles make: none where it does not fit. (A
        # meld's type past its last stands for two copies, as many as any meld may use.)
        fit = (np.append(available, 2)[cat_types] // np.maximum(cat_copies, 1)).min(axis=1)
        fits = np.flatnonzero(fit)
        keys: dict[tuple[int, ...], int] = {}
        self.key_of: list[int] = []  # each old meld's column among the old ones
        for meld in old_melds:
            self.key_of.append(keys.setdefault(tuple(sorted(meld)), len(keys)))
        width = max([_WIDTH, *(len(set(key)) for key in keys)])
        types = np.full((len(fits) + len(keys), width), TYPE_COUNT, dtype=np.int64)
        copies = np.zeros((len(fits) + len(keys), width), dtype=np.int64)
        types[: len(fits), :_WIDTH] = cat_types[fits]
        copies[: len(fits), :_WIDTH] = cat_copies[fits]
        for key, row in keys.items():
            distinct = sorted(set(key))
            types[len(fits) + row, : len(distinct)] = distinct
            copies[len(fits) + row, : len(distinct)] = [key.count(t) for t in distinct]
        self.first_old = len(fits)
        self.tile_weight = tile_weight
        self.point_weight = point_weight
        old_types = types[len(fits) :]
        old_copies = copies[len(fits) :]
        tiles = np.concatenate([cat_tiles[fits], (old_copies * (old_types < JOKER)).sum(axis=1)])
        points = np.concatenate(
            [cat_points[fits], (old_copies * np.append(_NUMBER, 0)[old_types]).sum(axis=1)]
        )
        cost = tiles * tile_weight + points * point_weight
        cost[self.first_old :] += 1
        weight = np.where(_NUMBER > 0, tile_weight + _NUMBER * point_weight, 0)
        # The table's tiles are on the table whatever the play: their weight is no score.
        self.constant = float(weight @ table_types)
        # Rows that count the tiles, and the points, on the table after a play.
        self.tiles_row = (tiles, float(table_types[:JOKER].sum()))
        self.points_row = (points, float(table_types @ _NUMBER))
        old_copies_kept = np.bincount(np.array(self.key_of, dtype=np.int64), minlength=len(keys))
        upper = np.concatenate([fit[fits], old_copies_kept])
        self.model = _Model(types, copies, upper, cost, table_types, available)
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
        types: IntArray,
        copies: IntArray,
        upper: IntArray,
        cost: IntArray,
        row_lower: IntArray,
        row_upper: IntArray,
    ) -> None:
        """Column j holds copies[j, k] of tile type types[j, k] (`TYPE_COUNT` and 0 past its
        last type, which come in ascending order)."""
        self.types = types
        self.copies = copies.astype(np.float64)
        self.upper = upper.astype(np.float64)
        self.cost = cost.astype(np.float64)
        self.row_lower = row_lower.astype(np.float64)
        self.row_upper = row_upper.astype(np.float64)
        n = len(types)
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = TYPE_COUNT
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.col_cost_ = self.cost
        lp.col_lower_ = np.zeros(n)
        lp.col_upper_ = self.upper
        lp.row_lower_ = self.row_lower
        lp.row_upper_ = self.row_upper
        present = copies > 0
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(present.sum(axis=1))])
        lp.a_matrix_.index_ = types[present]
        lp.a_matrix_.value_ = self.copies[present]
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
        n = len(self.types)
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
        lower = np.concatenate([self.row_lower, [low for _, low, _ in rows]])
        upper = np.concatenate([self.row_upper, [high for _, _, high in rows]])
        best = (np.zeros(n), np.inf, np.zeros(TYPE_COUNT))
        for y in (duals, -duals):
            # cost less the prices of each column's entries, the tile types' and the rows'
            reduced = self.cost - (np.append(y[:TYPE_COUNT], 0.0)[self.types] * self.copies).sum(
                axis=1
            )
            for k, (row, _, _) in enumerate(rows):
                reduced -= y[TYPE_COUNT + k] * row
            bound = float(np.maximum(reduced, 0.0) @ self.upper)
            bound += float(np.maximum(y * lower, y * upper).sum())
            if bound < best[1]:
                best = (reduced, bound, y[:TYPE_COUNT])
        return best
