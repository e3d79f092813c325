"""An exact Rummikub move solver.

Given the table (melds of tile ids) and a rack, `solve` returns a new table that places the
most rack tiles, then the most points (a joker counts 30, what it would cost on the rack),
then keeps the most of the old table's melds unchanged ("changes the table least").

After the initial meld the answer comes from a dynamic program over the numbers 1..13
(`_dp`, after van Rijn, Takes and Vis, "The complexity of Rummikub problems", 2015,
extended to a table plus a rack and to keeping old melds whole), compiled with numba; it is
exact for all three goals. Its first call in a process compiles it (about 35 s on a cold
cache, holding the interpreter) or loads it from numba's cache (under a second): `warm_up`
does that ahead of the first real solve. A server calls `warm_up_in_background` instead: the
compiling happens in a child process, the server loads the result once it is there, and until
then every solve goes to the integer program below (exact too, only slower), so no move and
no hint waits for the compiler.

Before the initial meld the table is left alone: the rack alone must form melds worth at
least the minimum (jokers count what they stand for), or nothing is placed. That problem, and
the rare table the program's state cannot hold (more than four old runs of one colour over
one number), go to an integer program over the meld catalogue, solved by HiGHS (den Hertog
and Hulshof, "Solving Rummikub problems by integer linear programming", 2006): one integer
variable per candidate meld, one row per tile type, and one lexicographic weighted
objective; each distinct old meld also gets its own column, worth a small bonus, so that
keeping it whole is counted. An exact-cover search (`_cover`) gives it a start.

When the program's plain passes do not settle a play quickly (a rack part of which cannot
be laid, or laying it must break several old melds), the linear relaxation of the integer
program (`_bound`) bounds the best play and decides old melds for it, and the
program finishes on the smaller problem left. Speed: bench/bench_rummikub_solver.py, figures
in docs/performance.md. With `time_limit_s` the program caps its proof at about that much
work (see `_rearrange.STATES_PER_SECOND`) and may answer its first play unproven.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

import highspy
import numpy as np
import numpy.typing as npt

from app.bots.rummikub.solver._bound import catalogue_columns, catalogue_counts
from app.bots.rummikub.solver._cover import search_cover
from app.bots.rummikub.solver._melds import TYPE_COUNT, catalogue, tile_type, type_points
from app.bots.rummikub.solver._rearrange import best_play, placed_points, warm_up_penalties

IntArray = npt.NDArray[np.int64]
log = logging.getLogger(__name__)

# The dynamic program's state in this process: "lazy" compiles or loads it on first use (a
# library caller, a test, a bench); "warming" answers with the integer program while a
# background warm-up runs; "ready" once it has loaded; "unavailable" if the warm-up failed.
_program = {"state": "lazy"}
# A cold compile took about 35 s on a loaded 2-core host: ten times that means it is stuck.
WARM_UP_TIMEOUT_S = 600.0

# Lexicographic weights: at most 35 old melds can be kept, and the rack's points are under
# 800 (two of every tile and both jokers is 788), so one more point outweighs every kept
# meld and one more tile outweighs every point.
KEPT_WEIGHT = 1
POINT_WEIGHT = 64
TILE_WEIGHT = POINT_WEIGHT * 800
HIGHS_OPTIONS: dict[str, bool | int | float | str] = {
    "output_flag": False,
    "mip_rel_gap": 0.0,
    # The objective is integral, so a gap under 1 proves optimality.
    "mip_abs_gap": 0.5,
    # The models are small (at most 54 rows): presolve, parallel threads, symmetry detection
    # and the root heuristics each cost more than they save (docs/performance.md, "Decisions
    # in the code").
    "presolve": "off",
    "parallel": "off",
    "mip_detect_symmetry": False,
    "mip_heuristic_effort": 0.0,
    "mip_heuristic_run_feasibility_jump": False,
}
# The exact-cover search's budget per rack tile to place, before the integer program takes
# over: its start shortens the program's search on crowded tables (measured by the bench);
# on small problems the program alone is quicker.
COVER_NODES_PER_TILE = 30


@dataclass(frozen=True)
class Solution:
    """The solver's answer: the new table and what it took from the rack."""

    table: list[list[str]]
    placed: list[str]
    points: int
    kept: int
    optimal: bool = True

    @property
    def tiles_placed(self) -> int:
        return len(self.placed)


@dataclass(frozen=True)
class _Catalogue:
    counts: IntArray  # (melds, types): copies of each type in each meld
    sizes: IntArray
    rack_points: IntArray  # the rack points each meld's tiles are worth
    meld_points: IntArray  # the initial-meld points of each meld
    layouts: tuple[tuple[int, ...], ...]


@cache
def _catalogue() -> _Catalogue:
    melds = catalogue()
    counts = catalogue_counts()
    per_type = np.array([type_points(t) for t in range(TYPE_COUNT)], dtype=np.int64)
    return _Catalogue(
        counts=counts,
        sizes=counts.sum(axis=1),
        rack_points=counts @ per_type,
        meld_points=np.array([m.points for m in melds], dtype=np.int64),
        layouts=tuple(m.layout for m in melds),
    )


def _type_counts(tiles: Sequence[str]) -> IntArray:
    counts = np.zeros(TYPE_COUNT, dtype=np.int64)
    for tile in tiles:
        counts[tile_type(tile)] += 1
    return counts


def solve(
    table: Sequence[Sequence[str]],
    rack: Sequence[str],
    *,
    initial_meld_done: bool,
    initial_meld_minimum: int = 30,
    time_limit_s: float | None = None,
) -> Solution:
    """The best play for this rack; `placed` is empty when nothing can be placed.

    With a time limit the answer is the best found so far (`optimal` says whether it is
    proven best); it is never worse than leaving the table as it is.
    """
    old_table = [list(meld) for meld in table]
    if initial_meld_done:
        play = _dynamic_program(old_table, rack, time_limit_s)
        if play is not None:
            return play
        columns = _columns_after_initial_meld(old_table, rack)
        outcome = _place_everything(columns)
        if outcome is None or not outcome.optimal:
            start = outcome.chosen if outcome is not None else _old_table_start(columns)
            outcome = _optimise(columns, minimum_points=0, start=start, time_limit_s=time_limit_s)
    else:
        columns = _columns_for_initial_meld(rack)
        outcome = _optimise(
            columns, minimum_points=initial_meld_minimum, start=None, time_limit_s=time_limit_s
        )
    if outcome is None:
        return Solution(table=old_table, placed=[], points=0, kept=len(old_table))
    if initial_meld_done:
        kept, free = _split_old_table(old_table, columns, outcome.chosen)
    else:
        kept, free = old_table, {}
    solution = _lay_out(kept, free, rack, columns, outcome.chosen)
    return replace(solution, optimal=outcome.optimal)


def _dynamic_program(
    table: list[list[str]], rack: Sequence[str], time_limit_s: float | None
) -> Solution | None:
    """The program's answer, or None while it warms up or for a table its state cannot hold."""
    if _program["state"] not in ("lazy", "ready"):
        return None
    play = best_play(
        table, rack, tile_weight=TILE_WEIGHT, point_weight=POINT_WEIGHT, time_limit_s=time_limit_s
    )
    if play is None:
        return None
    return Solution(
        table=play.table,
        placed=play.placed,
        points=placed_points(play.placed),
        kept=play.kept,
        optimal=play.optimal,
    )


def warm_up() -> None:
    """Compile the dynamic program, or load it from numba's cache (seconds on a cold cache),
    and build the meld catalogue that the relaxation and the integer program read: tens of
    milliseconds of Python that the first solve needing either would otherwise pay."""
    solve([["R1a", "R2a", "R3a"]], ["R4a", "B4a", "J1"], initial_meld_done=True)
    warm_up_penalties()
    catalogue_counts()
    catalogue_columns()
    _catalogue()


def program_state() -> str:
    return _program["state"]


async def warm_up_in_background(timeout_s: float = WARM_UP_TIMEOUT_S) -> None:
    """Compile in a child process (filling numba's cache), then load from the cache here.

    Until it is done, `solve` answers with the integer program. If the child fails or runs
    out of time the program stays unused in this process and the reason is logged.
    """
    if _program["state"] != "lazy":
        return
    _program["state"] = "warming"
    started = asyncio.get_running_loop().time()
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "from app.bots.rummikub.solver import warm_up; warm_up()",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(timeout_s):
            _, errors = await child.communicate()
    except TimeoutError:
        await _stop(child)
        _program["state"] = "unavailable"
        log.warning(
            "Rummikub solver: compiling took over %.0f s; the program is not used", timeout_s
        )
        return
    except asyncio.CancelledError:
        # Stopped, not failed (a server shutting down): the next first use may compile.
        await _stop(child)
        _program["state"] = "lazy"
        raise
    if child.returncode != 0:
        _program["state"] = "unavailable"
        tail = errors.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        log.warning("Rummikub solver: compiling the dynamic program failed (%s)", tail[0])
        return
    try:
        await asyncio.to_thread(warm_up)
    except asyncio.CancelledError:
        _program["state"] = "lazy"
        raise
    _program["state"] = "ready"
    elapsed = asyncio.get_running_loop().time() - started
    log.info("Rummikub solver: dynamic program ready after %.1f s", elapsed)


async def _stop(child: asyncio.subprocess.Process) -> None:
    if child.returncode is None:
        child.kill()
        await child.wait()


def _old_table_start(columns: _Columns) -> IntArray:
    """The old table as a solution: every old-meld column at its count."""
    start = np.zeros(len(columns.counts), dtype=np.int64)
    n_catalogue = len(columns.counts) - len(columns.old_keys)
    start[n_catalogue:] = columns.upper[n_catalogue:]
    return start


def _place_everything(columns: _Columns) -> _Outcome | None:
    """Try to lay every rack tile that fits some meld, keeping the most old melds.

    No play lays more tiles or points than that, so when the search finds such a split and
    finishes, it is the answer; a split found without finishing is a start for the program.
    """
    n_catalogue = len(columns.counts) - len(columns.old_keys)
    if n_catalogue == 0:
        return None
    fits_somewhere = columns.counts[:n_catalogue].any(axis=0)
    target = columns.row_lower + np.where(fits_somewhere, columns.row_upper - columns.row_lower, 0)
    bonus = [0] * n_catalogue + [KEPT_WEIGHT] * len(columns.old_keys)
    to_place = int((target - columns.row_lower).sum())
    cover = search_cover(
        columns.layouts,
        columns.upper.tolist(),
        bonus,
        target.tolist(),
        node_limit=COVER_NODES_PER_TILE * to_place,
    )
    if cover.copies is None:
        return None
    return _Outcome(np.array(cover.copies, dtype=np.int64), optimal=cover.complete)


@dataclass
class _Columns:
    """The integer program's columns: candidate melds, then each distinct old meld."""

    counts: IntArray  # (columns, types)
    upper: IntArray
    cost: IntArray
    points: IntArray
    layouts: list[tuple[int, ...]]
    old_keys: list[tuple[int, ...]]  # for the trailing old-meld columns
    row_lower: IntArray
    row_upper: IntArray


def _columns_after_initial_meld(table: list[list[str]], rack: Sequence[str]) -> _Columns:
    cat = _catalogue()
    on_table = _type_counts([t for meld in table for t in meld])
    available = on_table + _type_counts(rack)
    fits = (cat.counts <= available).all(axis=1)
    rack_types = np.flatnonzero(available > on_table)
    if not cat.counts[fits][:, rack_types].any():
        fits = np.zeros_like(fits)  # no rack tile fits any meld: the old table is the answer
    counts = cat.counts[fits]
    old = Counter(tuple(sorted(tile_type(t) for t in meld)) for meld in table)
    old_keys = list(old)
    old_counts = np.zeros((len(old_keys), TYPE_COUNT), dtype=np.int64)
    for row, key in enumerate(old_keys):
        for tile in key:
            old_counts[row, tile] += 1
    per_type = np.array([type_points(t) for t in range(TYPE_COUNT)], dtype=np.int64)
    all_counts = np.vstack([counts, old_counts])
    cost = TILE_WEIGHT * all_counts.sum(axis=1) + POINT_WEIGHT * (all_counts @ per_type)
    cost[len(counts) :] += KEPT_WEIGHT
    upper = np.concatenate([_copies_that_fit(counts, available), [old[k] for k in old_keys]])
    layouts = [cat.layouts[i] for i in np.flatnonzero(fits)]
    layouts += old_keys
    return _Columns(
        counts=all_counts,
        upper=upper.astype(np.int64),
        cost=cost,
        points=np.zeros(len(all_counts), dtype=np.int64),
        layouts=layouts,
        old_keys=old_keys,
        row_lower=on_table,
        row_upper=available,
    )


def _columns_for_initial_meld(rack: Sequence[str]) -> _Columns:
    cat = _catalogue()
    available = _type_counts(rack)
    fits = (cat.counts <= available).all(axis=1)
    counts = cat.counts[fits]
    return _Columns(
        counts=counts,
        upper=_copies_that_fit(counts, available),
        cost=TILE_WEIGHT * cat.sizes[fits] + POINT_WEIGHT * cat.rack_points[fits],
        points=cat.meld_points[fits],
        layouts=[cat.layouts[i] for i in np.flatnonzero(fits)],
        old_keys=[],
        row_lower=np.zeros(TYPE_COUNT, dtype=np.int64),
        row_upper=available,
    )


def _copies_that_fit(counts: IntArray, available: IntArray) -> IntArray:
    if len(counts) == 0:
        return np.zeros(0, dtype=np.int64)
    per_type = np.where(counts > 0, available // np.maximum(counts, 1), 2)
    return np.asarray(per_type.min(axis=1), dtype=np.int64)


class SolverError(RuntimeError):
    """HiGHS ended in a state the solver does not expect (never a rules problem)."""


@dataclass(frozen=True)
class _Outcome:
    chosen: IntArray
    optimal: bool


def _optimise(
    columns: _Columns, *, minimum_points: int, start: IntArray | None, time_limit_s: float | None
) -> _Outcome | None:
    """How many copies of each column to place, or None if no play exists."""
    if len(columns.counts) == 0:
        return None
    solver = highspy.Highs()  # type: ignore[no-untyped-call]  # highspy ships no stub for it
    for option, value in HIGHS_OPTIONS.items():
        solver.setOptionValue(option, value)
    if time_limit_s is not None:
        solver.setOptionValue("time_limit", float(time_limit_s))
    solver.passModel(_model(columns, minimum_points))
    if start is not None:
        solution = highspy.HighsSolution()
        solution.col_value = start.astype(np.float64)
        solution.value_valid = True
        solver.setSolution(solution)
    solver.run()
    status = solver.getModelStatus()
    if status == highspy.HighsModelStatus.kInfeasible:
        return None
    found = solver.getInfo().primal_solution_status == 2  # 2: a feasible solution is known
    if status != highspy.HighsModelStatus.kOptimal and not (
        status == highspy.HighsModelStatus.kTimeLimit and found
    ):
        raise SolverError(f"HiGHS stopped with {solver.modelStatusToString(status)}")
    chosen = np.rint(np.asarray(solver.getSolution().col_value)).astype(np.int64)
    if not chosen.any():
        return None
    return _Outcome(chosen, optimal=status == highspy.HighsModelStatus.kOptimal)


def _model(columns: _Columns, minimum_points: int) -> highspy.HighsLp:
    n_cols = len(columns.counts)
    col_index, row_index = np.nonzero(columns.counts)
    values = columns.counts[col_index, row_index].astype(np.float64)
    row_lower = columns.row_lower.astype(np.float64)
    row_upper = columns.row_upper.astype(np.float64)
    if minimum_points > 0:
        # The initial meld's points are one more row, after the tile rows.
        every = np.arange(n_cols)
        order = np.argsort(np.concatenate([col_index, every]), kind="stable")
        col_index = np.concatenate([col_index, every])[order]
        row_index = np.concatenate([row_index, np.full(n_cols, TYPE_COUNT)])[order]
        values = np.concatenate([values, columns.points.astype(np.float64)])[order]
        row_lower = np.append(row_lower, minimum_points)
        row_upper = np.append(row_upper, highspy.kHighsInf)
    lp = highspy.HighsLp()
    lp.num_col_ = n_cols
    lp.num_row_ = len(row_lower)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = columns.cost.astype(np.float64)
    lp.col_lower_ = np.zeros(n_cols)
    lp.col_upper_ = columns.upper.astype(np.float64)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n_cols
    lp.row_lower_ = row_lower
    lp.row_upper_ = row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(col_index, np.arange(n_cols + 1))
    lp.a_matrix_.index_ = row_index
    lp.a_matrix_.value_ = values
    return lp


def _split_old_table(
    old_table: list[list[str]], columns: _Columns, chosen: IntArray
) -> tuple[list[list[str]], dict[int, list[str]]]:
    """The old melds the solution keeps whole, and the loose tiles of the others by type."""
    n_catalogue = len(columns.counts) - len(columns.old_keys)
    budget = Counter({key: int(chosen[n_catalogue + i]) for i, key in enumerate(columns.old_keys)})
    kept: list[list[str]] = []
    free: dict[int, list[str]] = {}
    for meld in old_table:
        key = tuple(sorted(tile_type(t) for t in meld))
        if budget[key] > 0:
            budget[key] -= 1
            kept.append(meld)
        else:
            for tile in meld:
                free.setdefault(tile_type(tile), []).append(tile)
    return kept, free


def _lay_out(
    kept: list[list[str]],
    free: dict[int, list[str]],
    rack: Sequence[str],
    columns: _Columns,
    chosen: IntArray,
) -> Solution:
    # Loose table tiles come before rack tiles of the same type, so every one is used.
    for tile in rack:
        free.setdefault(tile_type(tile), []).append(tile)
    n_catalogue = len(columns.counts) - len(columns.old_keys)
    new_melds: list[list[str]] = []
    for column in np.flatnonzero(chosen[:n_catalogue]):
        for _ in range(int(chosen[column])):
            new_melds.append([free[t].pop(0) for t in columns.layouts[column]])
    rack_ids = set(rack)
    placed = [t for meld in new_melds for t in meld if t in rack_ids]
    return Solution(
        table=kept + new_melds,
        placed=placed,
        points=sum(type_points(tile_type(t)) for t in placed),
        kept=len(kept),
    )


__all__ = ["Solution", "SolverError", "solve", "warm_up"]
