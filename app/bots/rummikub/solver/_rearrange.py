"""The best play after the initial meld, by the dynamic program of `_dp`.

This module turns a table and a rack into the program's arrays and runs its passes (a narrow
one for a good play, then full ones to prove it best or find better); `_replay`
turns the path found back into melds of tile ids. Jokers are first left out wherever a meld
can do without them and added at the end (see `_best_play`), which spares the program most
of the places a joker could stand. The program may take the numbers either way, 1 up to 13
or 13 down to 1 (a problem `mirrored`, its number v standing for 14 - v): the same
problem, whose passes hold very different counts of states on some tables.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from app.bots.rummikub.solver._bound import Fixed, Relaxation
from app.bots.rummikub.solver._dp import (
    MAX_OLD_RUNS_PER_COLOUR,
    MAX_STARTS,
    NOTHING_CUT,
    SLOTS,
    STEPS,
    STEPS_PER_NUMBER,
    IntArray,
    run_pass,
)
from app.bots.rummikub.solver._groups import GroupSplit, group_table, groups_ahead, static_groups
from app.bots.rummikub.solver._melds import JOKER, JOKER_POINTS, meld_layout, type_points
from app.bots.rummikub.solver._penalties import broken_penalty, kept_penalty, penalty_arrays
from app.bots.rummikub.solver._replay import Laid, OldGroup, OldRun, Play, replay, tile_type

__all__ = ["Play", "best_play", "placed_points", "warm_up_penalties"]

BEAM = 60  # states per step in the first, narrow pass
# A full pass that holds more states than this stops, and the search starts again with the
# bounds of `_bound` (their linear programs cost a few milliseconds, more than most
# whole solves, so only a search that needs them pays for them).
QUICK_STATES = 40_000
# A time limit becomes a cap on the states of a full pass: the program handles about five
# million a second (bench/bench_rummikub_solver.py), less on a busy host.
STATES_PER_SECOND = 2_000_000


class _Unsupported(Exception):
    """The table is outside what the program's state can hold (the caller falls back)."""


def _read_old_table(
    table: list[list[str]], old: Collection[int] | None = None
) -> tuple[list[OldRun], list[OldGroup]]:
    """Each old meld (those of `old` if given) as a group or a run, read from its tiles
    whatever their order."""
    runs: list[OldRun] = []
    groups: list[OldGroup] = []
    for index, meld in enumerate(table):
        if old is not None and index not in old:
            continue
        types = [tile_type(t) for t in meld]
        # sorted by type: by colour, then number
        real = sorted(t for t in types if t != JOKER)
        jokers = len(types) - len(real)
        if not real or len(types) < 3 or len(set(real)) != len(real):
            raise _Unsupported(f"old meld {meld} is no meld")
        number = real[0] % 13
        if len(types) <= 4 and all(t % 13 == number for t in real):
            groups.append(OldGroup(index, number + 1, tuple(t // 13 for t in real), jokers))
            continue
        colour = real[0] // 13
        low, high = number + 1, real[-1] % 13 + 1
        gaps = high - low + 1 - len(real)
        if real[-1] // 13 != colour or gaps > jokers:
            raise _Unsupported(f"old meld {meld} is no meld")
        # Jokers fill the gaps, then extend the run upwards, then downwards.
        up = min(jokers - gaps, 13 - high)
        down = jokers - gaps - up
        if low - down < 1:
            raise _Unsupported(f"old meld {meld} is no meld")
        span = (1 << high + up + 1) - (1 << low - down)
        mask = span - sum(1 << t % 13 + 1 for t in real)
        runs.append(OldRun(index, colour, low - down, high + up, mask))
    return runs, groups


def best_play(
    table: list[list[str]],
    rack: Sequence[str],
    *,
    tile_weight: int,
    point_weight: int,
    time_limit_s: float | None = None,
) -> Play | None:
    """The optimal play, or None when the table is outside the program's reach.

    With a time limit the play may be the narrow pass's, not proven best (`optimal` False).
    """
    budget = 0 if time_limit_s is None else max(1, int(time_limit_s * STATES_PER_SECOND))
    try:
        return _best_play(table, rack, tile_weight, point_weight, budget)
    except _Unsupported:
        return None


def _counts(tiles: Sequence[str], mirrored: bool) -> tuple[IntArray, int]:
    per_type = np.bincount(np.array([tile_type(t) for t in tiles], dtype=np.int64), minlength=53)
    counts = np.zeros((4, 14), dtype=np.int64)
    counts[:, 1:] = per_type[:JOKER].reshape(4, 13)
    if mirrored:
        counts[:, 1:] = counts[:, :0:-1].copy()
    return counts, int(per_type[JOKER])


def _mirror(runs: list[OldRun], groups: list[OldGroup]) -> tuple[list[OldRun], list[OldGroup]]:
    """The old melds over the numbers 13..1: number v becomes 14 - v."""
    mirrored_runs = []
    for run in runs:
        jokers = sum(1 << (14 - v) for v in range(1, 14) if run.jokers >> v & 1)
        mirrored_runs.append(OldRun(run.meld, run.colour, 14 - run.end, 14 - run.start, jokers))
    mirrored_groups = [OldGroup(g.meld, 14 - g.value, g.colours, g.jokers) for g in groups]
    return mirrored_runs, mirrored_groups


def _best_play(
    table: list[list[str]], rack: Sequence[str], tile_weight: int, point_weight: int, budget: int
) -> Play:
    """Where a joker may stand multiplies the states, so the program first leaves out every
    joker it could do without (one that stands at the end of a run, or makes a group of
    four): it lays jokers only where they are needed and scores them nothing; the jokers it
    leaves out are then added to its new melds. Every play is such a core plus jokers so
    added, so when they all find a place, with every rack joker laid, the play is optimal.
    Otherwise the program runs again with every joker scored where it stands.

    The program takes the numbers from 13 down first: the tiles worth most are decided
    first, so a state that leaves them out falls below the threshold early."""
    build = partial(_Problem.build, table, rack, tile_weight, point_weight, mirrored=True)
    core = build(attach=True).optimum(budget)
    added = _add_jokers(core.play, core.loose_jokers, set(rack))
    if added is not None:
        return added
    problem = build(attach=False)
    return problem.optimum(budget).play


def _add_jokers(play: Play, jokers: list[str], rack: set[str]) -> Play | None:
    """The play with each joker added to the end of one of its new melds, if they all fit."""
    melds = [list(meld) for meld in play.table]
    for joker in jokers:
        for meld in melds[play.kept :]:
            types = [tile_type(t) for t in meld]
            if meld_layout([*types, JOKER]) is not None:
                meld.append(joker)
                break
            if meld_layout([JOKER, *types]) is not None:
                meld.insert(0, joker)
                break
        else:
            return None
    laid = [joker for joker in jokers if joker in rack]
    return Play(table=melds, placed=[*play.placed, *laid], kept=play.kept, optimal=play.optimal)


@dataclass
class _Problem:
    """A table and a rack as the program's arrays."""

    table: list[list[str]]
    rack: Sequence[str]
    table_cnt: IntArray
    rack_jokers: int
    runs: list[OldRun]
    groups: list[OldGroup]
    group_best: IntArray
    splits: dict[tuple[int, int], GroupSplit]
    arrays: tuple[IntArray, ...]
    value: IntArray  # (5, 14): the most each step may add
    after: IntArray  # (STEPS,): the most still to come after each step
    tile_weight: int
    point_weight: int
    attach: bool
    # What each choice takes off the relaxation's bound, and how much a play may lose so
    # (see `_penalties`): set on a problem reduced by the relaxation's fixings.
    penalties: tuple[IntArray, ...] | None = None
    slack: int = 0
    # The numbers taken from 13 down to 1: the program's number v is then 14 - v.
    mirrored: bool = False
    old: Collection[int] | None = None  # as given to `build`
    reached: int = 0  # the steps the last pass completed (all, unless it outgrew its budget)
    # The last pass's cut (`_dp.search`): when it found nothing, no play of this problem
    # scores more.
    cut: int = 0
    fixed_by: tuple[Fixed, list[int], float] | None = None  # what `penalties` came from
    _twin: _Problem | None = field(default=None, repr=False)

    def twin(self) -> _Problem:
        """The same problem with its numbers taken the other way."""
        if self._twin is None:
            twin = _Problem.build(
                self.table,
                self.rack,
                self.tile_weight,
                self.point_weight,
                self.attach,
                old=self.old,
                mirrored=not self.mirrored,
            )
            if self.fixed_by is not None:
                twin.owe(*self.fixed_by)
            twin._twin = self
            self._twin = twin
        return self._twin

    def owe(self, fixed: Fixed, origin: list[int], owed: float) -> None:
        """Set the penalties of the relaxation's `fixed` (see `_penalties`); `origin`: the
        relaxation's index of each old meld by its place on this table."""
        self.fixed_by = fixed, origin, owed
        self.penalties, self.slack = penalty_arrays(
            fixed, self.arrays[2], self.runs, self.groups, origin, owed, self.numbers
        )

    @property
    def numbers(self) -> list[int]:
        """The number of the tiles at each of the program's numbers."""
        return [0, *range(13, 0, -1)] if self.mirrored else list(range(14))

    @classmethod
    def build(
        cls,
        table: list[list[str]],
        rack: Sequence[str],
        tile_weight: int,
        point_weight: int,
        attach: bool,
        old: Collection[int] | None = None,
        mirrored: bool = False,
    ) -> _Problem:
        """The arrays of a table and a rack. Only the melds of `old` (all if None) are old
        melds that can be kept whole; the others' tiles must stay on the table, as loose
        tiles. If `mirrored`, the program takes the numbers from 13 down to 1."""
        table_cnt, table_jokers = _counts([t for meld in table for t in meld], mirrored)
        rack_cnt, rack_jokers = _counts(rack, mirrored)
        if table_jokers + rack_jokers > 2 or (table_cnt + rack_cnt).max() > 2:
            raise _Unsupported("more than two copies of a tile or two jokers")
        runs, groups = _read_old_table(table, old)
        if mirrored:
            runs, groups = _mirror(runs, groups)
        points = np.arange(14, dtype=np.int64)
        if mirrored:
            points[1:] = points[:0:-1].copy()
        run_of = np.zeros((4, MAX_OLD_RUNS_PER_COLOUR), dtype=np.int64)
        run_local = np.zeros(max(len(runs), 1), dtype=np.int64)
        starts = np.zeros((4, 14, MAX_STARTS), dtype=np.int64)
        # Plain lists while counting: a numpy scalar access costs ten list accesses.
        start_count = [[0] * 14 for _ in range(4)]
        depth = [[0] * 15 for _ in range(4)]
        per_colour = [0, 0, 0, 0]
        for i, run in enumerate(runs):
            c = run.colour
            count = start_count[c][run.start]
            if per_colour[c] == MAX_OLD_RUNS_PER_COLOUR or count == MAX_STARTS:
                raise _Unsupported("too many old runs of one colour")
            run_of[c, per_colour[c]] = i
            run_local[i] = per_colour[c]
            per_colour[c] += 1
            starts[c, run.start, count] = i
            start_count[c][run.start] = count + 1
            for v in range(run.start, run.end + 1):
                depth[c][v] += 1
        if max(max(row) for row in depth) > SLOTS:
            raise _Unsupported("more old runs of one colour over one number than slots")
        static, splits = static_groups(not attach)
        colours = np.zeros((len(groups), 4), dtype=np.int64)
        for i, group in enumerate(groups):
            colours[i, list(group.colours)] = 1
        group_values = np.array([g.value for g in groups], dtype=np.int64)
        group_best = group_table(
            static, group_values, colours, np.array([g.jokers for g in groups], dtype=np.int64)
        )
        # What each step may add at most: rack tiles and old runs starting there per colour,
        # old groups of the number at its last step (row 4).
        value = np.zeros((5, 14), dtype=np.int64)
        value[:4] = rack_cnt * (tile_weight + points * point_weight)
        for run in runs:
            value[run.colour, run.start] += 1
        value[4] = np.bincount(group_values, minlength=14)
        # Attaching, jokers score nothing and need not be laid, see `_best_play`.
        jokers = [0, table_jokers + rack_jokers] if attach else [table_jokers, rack_jokers]
        arrays = (
            np.array(jokers, dtype=np.int64),
            table_cnt,
            rack_cnt,
            np.array([r.end for r in runs] or [0], dtype=np.int64),
            np.array([r.jokers for r in runs] or [0], dtype=np.int64),
            run_of,
            run_local,
            starts,
            np.array(start_count, dtype=np.int64),
            group_best,
            (value[4] == 0).astype(np.int64),
            points,
            *groups_ahead(group_best),
        )
        return cls(
            table,
            rack,
            table_cnt,
            rack_jokers,
            runs,
            groups,
            group_best,
            splits,
            arrays,
            value,
            _bound_after(_trivial_bounds(value), value),
            tile_weight,
            point_weight,
            attach,
            mirrored=mirrored,
            old=old,
        )

    @property
    def joker_score(self) -> int:
        return 0 if self.attach else self.tile_weight + JOKER_POINTS * self.point_weight

    def _pass(self, theta: int, beam: int = 0, budget: int = 0) -> tuple[int, int, IntArray, int]:
        found, best, actions, states, self.reached, self.cut = run_pass(
            theta,
            beam,
            budget,
            self.attach,
            self.joker_score,
            self.arrays,
            self.after,
            self.tile_weight,
            self.point_weight,
            self.penalties,
            self.slack,
        )
        return found, best, actions, states

    def optimum(self, budget: int = 0) -> Laid:
        """The best play, by passes that each keep only states that may still reach a floor.

        First a narrow pass (the best few states per step) among plays laying every rack
        tile, and failing that one of four times as many states among all plays; then
        one full pass above the play it finds, which finds a better play or proves there is
        none (if it finds none, full passes from every rack tile down, `_descend`). On a
        table with old melds those passes stop at `QUICK_STATES` states; the same passes then
        run over the numbers the other way (`twin`, at half as many), and failing them too
        the search goes on with the linear relaxation's help (`_relaxed`), the way the quick
        passes got further. Every full pass stops at `budget` states (0: no limit), and the
        best play found so far is the answer, unproven. (A play that also keeps every old
        meld has the highest bound at every step, so the narrow pass keeps it unless ties
        crowd it out, and the full pass finds it then: a first pass at that bound, to find
        it cheaply, cost more on the bench than it saved.)"""
        return self._optimum(budget)[1]

    def _optimum(self, budget: int) -> tuple[int, Laid]:
        """The best play and its score."""
        every_tile = int(self.value[:4].sum()) - len(self.runs)
        every_tile += self.rack_jokers * self.joker_score
        has_old = bool(self.runs or self.groups)
        relax = has_old and (budget == 0 or budget > QUICK_STATES)
        quick = QUICK_STATES if relax else budget
        incumbent: tuple[int, Laid] | None = None
        # The two ways through the numbers hold very different counts of states on some
        # problems (thirty times as many either way), so a search that one way does not
        # settle quickly is tried the other way before the relaxation's help.
        for turn in range(2 if relax else 1):
            way = self.twin() if turn else self
            found = way._narrow(every_tile)
            if found is not None and (incumbent is None or found[0] > incumbent[0]):
                incumbent = found
            # The other way pays only where it is much cheaper: half the budget.
            limit = max(1, quick // 2) if turn else quick
            if incumbent is not None:
                settled = way._prove(*incumbent, limit)
            else:
                settled = way._descend(every_tile, limit)
            if settled is not None:
                return settled
        if not relax:
            if incumbent is not None:
                return incumbent[0], _unproven(incumbent[1])
            old = Play(table=[list(m) for m in self.table], placed=[], kept=len(self.table))
            return len(self.table), Laid(replace(old, optimal=False), [])
        # On along the way whose last quick pass got further before outgrowing its budget.
        further = self.twin() if self.twin().reached > self.reached else self
        return further._relaxed(incumbent, budget)

    def _narrow(self, every_tile: int) -> tuple[int, Laid] | None:
        """A good play and its score, by narrow passes; None if they find none."""
        for beam, theta in ((BEAM, every_tile), (4 * BEAM, 0)):
            found, floor, actions, _states = self._pass(theta, beam)
            if found:
                return floor, self._replay(actions)
        return None

    def _prove(self, floor: int, laid: Laid, budget: int) -> tuple[int, Laid] | None:
        """The best play, if it scores more than `floor`, else `laid` (which scores `floor`);
        None if a pass outgrew `budget`."""
        found, best, actions, _states = self._pass(floor + 1, budget=budget)
        if found == 1:
            return best, self._replay(actions)
        return (floor, laid) if found == 0 else None

    def _relaxed(self, incumbent: tuple[int, Laid] | None, budget: int) -> tuple[int, Laid]:
        """The search with the linear relaxation's help (`_bound`).

        Every play scoring at least a target keeps whole, or breaks, the old melds the
        relaxation decides for that target, and lays, or leaves on the rack, the rack tiles
        it decides (`Relaxation.fixed`), the more of them the closer the target is to the
        relaxation's bound: the problem left has fewer old melds and rack tiles to choose,
        and the program's passes over it are short. Full passes ask for plays scoring at
        least a target, from the bound down by 1, 2, 4, ... to the best play found: the bound
        is most often the best play's score, or close to it. A pass that finds a play has
        found the best; if none does, the best play found is the best. (A narrow pass over
        the problem left at the bound, for a better first play, cost more states on the
        bench than it saved.)"""
        jokers = self.rack_jokers * self.joker_score  # the relaxation leaves them out
        if incumbent is None:
            old = Play(table=[list(m) for m in self.table], placed=[], kept=len(self.table))
            incumbent = (len(self.table), Laid(old, []))
        relaxation = self._relaxation()
        target, step = relaxation.bound + jokers, 1
        # None when the relaxation shows that no play scores more than the incumbent.
        if relaxation.fixed(incumbent[0] + 1 - jokers) is None:
            target = incumbent[0]
        # Fixings whose pass found nothing, with the most a play keeping to them may score:
        # the pass's cut (`_dp.search`), or nothing at all where the pass asked for any play
        # of its problem. A target above it that fixes as much has no play.
        capped: list[tuple[Fixed, int]] = []
        fixed = relaxation.fixed(target - jokers)
        while target > incumbent[0]:
            if fixed is not None and not any(
                target > most and _at_least(fixed, f) for f, most in capped
            ):
                reduced = self._reduced(fixed)
                left = reduced.problem
                theta = target - reduced.score
                found, best, actions, _states = left._pass(theta, budget=budget)
                if found == 1:
                    return reduced.lift((best, left._replay(actions)))
                if found < 0:
                    return incumbent[0], _unproven(incumbent[1])
                capped.append((fixed, left.cut + reduced.score if theta > 0 else NOTHING_CUT))
            if target == incumbent[0] + 1:
                break
            target, step = max(target - step, incumbent[0] + 1), 2 * step
            fixed = relaxation.fixed(target - jokers)
        return incumbent

    def _reduced(self, fixed: Fixed) -> _Reduced:
        """The problem left once the old melds `fixed` keeps are set aside whole, those it
        breaks are loose tiles, the rack tiles it lays are loose table tiles (which must be
        laid) and those it leaves on the rack are gone; its passes drop the states whose
        penalties (`_penalties`) add up to more than the relaxation leaves."""
        melds = [r.meld for r in self.runs] + [g.meld for g in self.groups]
        kept = {melds[i] for i in fixed.kept}
        broken = {melds[i] for i in fixed.broken}
        rest = [i for i in range(len(self.table)) if i not in kept]
        rack: list[str] = []
        laid: list[str] = []
        to_lay, to_leave = dict(fixed.laid), dict(fixed.unlaid)
        for tile in self.rack:
            kind = tile_type(tile)
            if to_lay.get(kind, 0) > 0:
                to_lay[kind] -= 1
                laid.append(tile)
            elif to_leave.get(kind, 0) > 0:
                to_leave[kind] -= 1
            else:
                rack.append(tile)
        table = [self.table[i] for i in rest]
        old = {at for at, i in enumerate(rest) if i not in broken}
        problem = _Problem.build(
            [*table, laid] if laid else table,
            rack,
            self.tile_weight,
            self.point_weight,
            self.attach,
            old=old,
            mirrored=self.mirrored,
        )
        origin = {m: i for i, m in enumerate(melds)}
        owed = sum(kept_penalty(fixed, origin[m]) for m in kept)
        owed += sum(broken_penalty(fixed, origin[m]) for at, m in enumerate(rest) if at not in old)
        owed += sum(max(0.0, -fixed.prices[t]) * n for t, n in fixed.laid.items())
        owed += sum(max(0.0, fixed.prices[t]) * n for t, n in fixed.unlaid.items())
        problem.owe(fixed, [origin[m] for m in rest], owed)
        whole = [list(self.table[i]) for i in sorted(kept)]
        points = sum(type_points(tile_type(t)) for t in laid)
        score = len(whole) + len(laid) * self.tile_weight + points * self.point_weight
        return _Reduced(problem, whole, laid, score)

    def _relaxation(self) -> Relaxation:
        table_types = np.bincount([tile_type(t) for m in self.table for t in m], minlength=53)
        rack_types = np.bincount([tile_type(t) for t in self.rack], minlength=53)
        old = [tuple(map(tile_type, self.table[r.meld])) for r in self.runs]
        old += [tuple(map(tile_type, self.table[g.meld])) for g in self.groups]
        return Relaxation(table_types, rack_types, old, self.tile_weight, self.point_weight)

    def _descend(self, every_tile: int, budget: int) -> tuple[int, Laid] | None:
        """Full passes among plays laying every rack tile, then at least one fewer, and so
        on: the first that finds a play finds the best; None if a pass outgrew `budget`.
        (The last pass, at no tiles, finds the old table at least.)"""
        rack_tiles = int(self.arrays[2].sum()) + (0 if self.attach else self.rack_jokers)
        for tiles in range(rack_tiles, -1, -1):
            floor = every_tile if tiles == rack_tiles else tiles * self.tile_weight
            found, best, actions, _states = self._pass(floor, budget=budget)
            if found == 1:
                return best, self._replay(actions)
            if found < 0:
                break
        return None

    def _replay(self, actions: IntArray) -> Laid:
        return replay(
            self.table,
            self.rack,
            self.table_cnt,
            self.runs,
            self.groups,
            self.group_best,
            self.splits,
            actions,
            self.attach,
            self.mirrored,
        )


@dataclass
class _Reduced:
    """A problem reduced by the relaxation's fixings (`_Problem._reduced`): the problem
    left, the old melds set aside whole, the rack tiles it must lay (on its table as loose
    tiles), and what those score."""

    problem: _Problem
    whole: list[list[str]]
    laid: list[str]
    score: int

    def lift(self, found: tuple[int, Laid]) -> tuple[int, Laid]:
        """A play of the problem left, and its score, as a play of the whole problem."""
        score, laid = found
        play = replace(
            laid.play,
            table=self.whole + laid.play.table,
            placed=[*self.laid, *laid.play.placed],
            kept=len(self.whole) + laid.play.kept,
        )
        return score + self.score, Laid(play, laid.loose_jokers)


def _at_least(fixed: Fixed, other: Fixed) -> bool:
    """Whether `fixed` decides all that `other` does (its problem's plays are the other's)."""
    return (
        set(fixed.kept) >= set(other.kept)
        and set(fixed.broken) >= set(other.broken)
        and all(fixed.laid.get(t, 0) >= n for t, n in other.laid.items())
        and all(fixed.unlaid.get(t, 0) >= n for t, n in other.unlaid.items())
    )


def _unproven(laid: Laid) -> Laid:
    return Laid(replace(laid.play, optimal=False), laid.loose_jokers)


def _bound_after(ahead: IntArray, value: IntArray) -> IntArray:
    """After each step, the most score still to come: the bound from the next number on,
    plus what the steps still ahead at this number may add."""
    # later[c, v]: what the steps after step c of number v may add at v
    later = np.zeros((STEPS_PER_NUMBER, 14), dtype=np.int64)
    later[:4] = np.cumsum(value[:0:-1], axis=0)[::-1]
    return np.asarray((later[:, 1:] + ahead[1:]).T.reshape(STEPS), dtype=np.int64)


def _trivial_bounds(value: IntArray) -> IntArray:
    """ahead[v]: every rack tile after v laid and every old meld starting after v kept."""
    ahead = np.zeros(14, dtype=np.int64)
    ahead[:13] = np.cumsum(value.sum(axis=0)[:0:-1])[::-1]
    return ahead


def warm_up_penalties() -> None:
    """Compile (or load) the passes with penalties, a specialisation apart (see `_dp.search`),
    which the first search needing the relaxation would otherwise wait for."""
    problem = _Problem.build([["R1a", "R2a", "R3a"]], ["R4a"], 2, 1, attach=True)
    problem.owe(Fixed([], [], old_reduced=[0.0]), [0], 0.0)
    problem._pass(0)


def placed_points(placed: Sequence[str]) -> int:
    return sum(type_points(tile_type(t)) for t in placed)
