"""The linear relaxation that bounds the solver's search, and the search it guides.

The relaxation is a bound: no play scores more, and every play scoring a target keeps
whole (or breaks) the old melds it says, and lays (or leaves on the rack) the rack tiles it
says. The search with its help must still find the
optimum, which the integer program (exact, and sharing nothing with the relaxation's
fixings or the program's passes) confirms on states where every solve takes that path.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from app.bots.rummikub.solver import (
    POINT_WEIGHT,
    TILE_WEIGHT,
    Solution,
    _dp,
    _rearrange,
    _solve,
    solve,
)
from app.bots.rummikub.solver._melds import JOKER, tile_type
from app.bots.rummikub.solver._penalties import broken_penalty, kept_penalty
from app.bots.rummikub.solver._rearrange import _Problem
from tests.bots.test_rummikub_dp import mid_game_state
from tests.bots.test_rummikub_solver import assert_is_a_legal_play


def score(solution: Solution) -> tuple[int, int, int]:
    return (solution.tiles_placed, solution.points, solution.kept)


@pytest.mark.parametrize("jokers_on_table", [False, True])
def test_the_relaxation_bounds_the_best_play_and_its_fixings_hold_for_it(
    jokers_on_table: bool,
) -> None:
    rng = random.Random(41 + jokers_on_table)
    fixings = tiles_decided = 0
    for _ in range(12):
        table, rack = mid_game_state(rng, 45, 16, jokers_on_table)
        problem = _Problem.build(table, rack, TILE_WEIGHT, POINT_WEIGHT, attach=True)
        best, laid = problem._optimum(0)
        relaxation = problem._relaxation()
        assert relaxation.bound >= best
        fixed = relaxation.fixed(best)
        assert fixed is not None, "the best play scores its own score"
        olds = [problem.table[r.meld] for r in problem.runs]
        olds += [problem.table[g.meld] for g in problem.groups]
        kept = laid.play.table[: laid.play.kept]
        assert all(olds[i] in kept for i in fixed.kept), (table, rack)
        assert not any(olds[i] in kept for i in fixed.broken), (table, rack)
        placed = Counter(tile_type(t) for t in laid.play.placed)
        on_rack = Counter(tile_type(t) for t in rack)
        assert all(placed[t] >= copies for t, copies in fixed.laid.items()), (table, rack)
        assert all(on_rack[t] - placed[t] >= n for t, n in fixed.unlaid.items()), (table, rack)
        assert relaxation.fixed(relaxation.bound + 1) is None
        fixings += len(fixed.kept) + len(fixed.broken)
        tiles_decided += len(fixed.laid) + len(fixed.unlaid)
    assert fixings > 0, "the states decide some old melds"
    assert tiles_decided > 0, "the states decide some rack tiles"


@pytest.mark.parametrize("jokers_on_table", [False, True])
def test_the_search_with_the_relaxation_matches_the_integer_program(
    jokers_on_table: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plain passes are cut short at once, so every solve with old melds on the table
    goes through the relaxation: it still finds the optimum."""
    monkeypatch.setattr(_rearrange, "QUICK_STATES", 1)
    relaxed = 0
    real = _rearrange._Problem._relaxed

    def counted(self: _Problem, *args: object) -> object:
        nonlocal relaxed
        relaxed += 1
        return real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_rearrange._Problem, "_relaxed", counted)
    rng = random.Random(77 + jokers_on_table)
    for _ in range(12):
        table, rack = mid_game_state(rng, 40, 14, jokers_on_table)
        program = solve(table, rack, initial_meld_done=True)
        assert_is_a_legal_play(program, table, rack, True)
        assert program.optimal
        monkeypatch.setattr(_solve, "_program", {"state": "warming"})
        integer = solve(table, rack, initial_meld_done=True)
        monkeypatch.setattr(_solve, "_program", {"state": "lazy"})
        assert score(program) == score(integer), (table, rack)
    assert relaxed >= 12


@pytest.mark.parametrize("jokers_on_table", [False, True])
def test_the_best_play_owes_no_more_than_the_slack_at_its_own_score(jokers_on_table: bool) -> None:
    """The penalties the program adds up along a play (`_penalties`) take no more off the
    relaxation's bound than the play scores below it, so the pass never drops the best."""
    rng = random.Random(5 + jokers_on_table)
    owing = 0
    for _ in range(12):
        table, rack = mid_game_state(rng, 45, 18, jokers_on_table)
        problem = _Problem.build(table, rack, TILE_WEIGHT, POINT_WEIGHT, attach=True)
        best, laid = problem._optimum(0)
        fixed = problem._relaxation().fixed(best)
        assert fixed is not None
        olds = [problem.table[r.meld] for r in problem.runs]
        olds += [problem.table[g.meld] for g in problem.groups]
        kept = laid.play.table[: laid.play.kept]
        owed = sum(
            kept_penalty(fixed, i) if meld in kept else broken_penalty(fixed, i)
            for i, meld in enumerate(olds)
        )
        placed = Counter(tile_type(t) for t in laid.play.placed if tile_type(t) != JOKER)
        for tile, copies in Counter(tile_type(t) for t in rack if tile_type(t) != JOKER).items():
            price = float(fixed.prices[tile])
            owed += price * (copies - placed[tile]) if price > 0 else -price * placed[tile]
        assert owed <= fixed.slack, (table, rack)
        owing += owed > 0
    assert owing > 0, "some best plays owe a penalty"


def test_a_pass_that_finds_nothing_leaves_no_play_above_its_cut() -> None:
    """A full pass that finds no play at its threshold reports the most a state it dropped
    (for its bound, or for its debts to the relaxation) could still have scored: no play of
    its problem scores more, the optimum included, and the cut is below the threshold. (The
    relaxation's bound is the optimum on most tables without jokers: the passes owing it
    their debts come from tables with both jokers.)"""
    rng = random.Random(61)
    owing = 0
    for jokers_on_table in [False] * 6 + [True] * 8:
        table, rack = mid_game_state(rng, 45, 16, jokers_on_table)
        problem = _Problem.build(table, rack, TILE_WEIGHT, POINT_WEIGHT, attach=True)
        best, _laid = problem._optimum(0)
        held = {}
        for above in (1, 3, 100, 1000, TILE_WEIGHT):
            found, _score, _actions, held[above] = problem._pass(best + above)
            assert found == 0
            assert best <= problem.cut < best + above
        # The same passes owing the relaxation what their choices take off its bound.
        relaxation = problem._relaxation()
        melds = [r.meld for r in problem.runs] + [g.meld for g in problem.groups]
        origin = [melds.index(at) for at in range(len(table))]
        for above in (1, 3, 100, 1000):
            fixed = relaxation.fixed(best + above)
            if fixed is None:
                continue
            problem.owe(fixed, origin, 0.0)
            found, _score, _actions, states = problem._pass(best + above)
            assert found == 0
            assert best <= problem.cut < best + above, (table, rack)
            owing += above in held and states < held[above]
    assert owing > 0, "the debts drop states in some passes"


def test_the_most_a_state_dropped_for_its_debts_could_score_is_exact() -> None:
    """A play through a state owing `owes` scores at most the relaxation's bound less the
    threshold's margin: below theta + x - owes / 64, for the margin x (the bound less the
    threshold and what is owed outside the program) that the slack floors to 64 x. The cut
    takes the highest integer so allowed, for the largest such x."""
    rng = random.Random(5)
    below = _dp._below.py_func  # numba keeps the plain function
    for _ in range(2000):
        theta = rng.randint(-500, 500)
        slack = rng.randint(-200, 5000)
        owes = slack + rng.randint(1, 400)
        margin = Fraction(slack + 1, 64) - Fraction(1, 10**9)  # largest x with that slack
        assert math.floor(64 * margin) == slack
        most = math.floor(theta + margin - Fraction(owes, 64))
        assert below(theta, slack, owes) == most, (theta, slack, owes)
