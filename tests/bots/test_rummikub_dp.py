"""The dynamic program behind the solver after the initial meld, rule by rule.

`best_play` is the program's entry point; every answer is checked as a legal play and, on
small states of four colours (groups of four), against the exhaustive search of
test_rummikub_solver.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from itertools import product

import numpy as np
import pytest

from app.bots.rummikub.solver import POINT_WEIGHT, TILE_WEIGHT, Solution, _solve, solve
from app.bots.rummikub.solver._dp import STEPS, STEPS_PER_NUMBER
from app.bots.rummikub.solver._groups import group_table, groups_ahead, static_groups
from app.bots.rummikub.solver._melds import COLOURS, JOKER, catalogue, type_name
from app.bots.rummikub.solver._rearrange import (
    BEAM,
    Play,
    _bound_after,
    _Problem,
    _trivial_bounds,
    best_play,
)
from tests.bots.test_rummikub_solver import assert_is_a_legal_play, best_points, brute_force, kind


def play(table: list[list[str]], rack: list[str]) -> Play:
    found = best_play(table, rack, tile_weight=TILE_WEIGHT, point_weight=POINT_WEIGHT)
    assert found is not None, "the program refused the table"
    return found


def checked(table: list[list[str]], rack: list[str]) -> Play:
    found = play(table, rack)
    points = sum(30 if c == "J" else n for c, n in map(kind, found.placed))
    solution = Solution(table=found.table, placed=found.placed, points=points, kept=found.kept)
    assert_is_a_legal_play(solution, table, rack, True)
    return found


def test_a_joker_ends_a_run_of_thirteen() -> None:
    table = [[f"R{n}a" for n in range(1, 13)]]
    found = checked(table, ["J1"])
    assert found.placed == ["J1"]
    assert found.kept == 0
    assert len(found.table) == 1
    assert len(found.table[0]) == 13


def test_a_joker_starts_a_run_that_ends_at_thirteen() -> None:
    found = checked([], ["K11a", "K12a", "K13a", "J2"])
    assert sorted(found.placed) == ["J2", "K11a", "K12a", "K13a"]
    assert found.table == [["J2", "K11a", "K12a", "K13a"]]


def test_a_joker_makes_a_group_of_four() -> None:
    found = checked([], ["R9a", "B9a", "K9a", "J1"])
    assert len(found.placed) == 4
    assert len(found.table) == 1


def test_two_jokers_and_one_tile_make_a_meld() -> None:
    found = checked([], ["Y7b", "J1", "J2"])
    assert len(found.placed) == 3


def test_a_lone_joker_is_laid_on_an_old_meld_when_no_new_meld_takes_it() -> None:
    found = checked([["R1a", "R2a", "R3a"]], ["J1", "B9a"])
    assert found.placed == ["J1"]
    assert found.kept == 0


def test_a_joker_the_new_melds_can_do_without_is_still_laid() -> None:
    found = checked([["K1a", "K2a", "K3a"]], ["R4a", "R5a", "R6a", "J2"])
    assert sorted(found.placed) == ["J2", "R4a", "R5a", "R6a"]
    assert found.kept == 1


def test_a_time_limit_too_short_for_the_proof_gives_the_first_play_unproven() -> None:
    table = [["R1a", "R2a", "R3a"], ["B5a", "K5a", "Y5a"]]
    rack = ["R4a", "K9a", "K10a", "K11a"]
    solution = solve(table, rack, initial_meld_done=True, time_limit_s=1e-9)
    assert not solution.optimal
    assert_is_a_legal_play(solution, table, rack, True)
    assert solution.tiles_placed == 4
    assert solve(table, rack, initial_meld_done=True).optimal


def test_every_table_tile_stays_on_the_table() -> None:
    table = [["R3a", "R4a", "R5a"], ["B5a", "K5a", "Y5a"]]
    found = checked(table, ["R5b", "R6a"])
    on_table = {t for meld in found.table for t in meld}
    assert on_table == {t for meld in table for t in meld} | {"R5b", "R6a"}


def test_old_melds_that_need_no_change_are_kept_whole() -> None:
    table = [["R1a", "R2a", "R3a"], ["B7a", "K7a", "Y7a"]]
    found = checked(table, ["K11a", "K12a", "K13a"])
    assert found.kept == 2
    assert found.table[:2] == table


def test_an_old_run_with_a_joker_inside_is_kept_whole() -> None:
    table = [["R4a", "J1", "R6a"], ["B2a", "B3a", "B4a"]]
    found = checked(table, ["K1a", "K2a", "K3a", "B5a"])
    assert len(found.placed) == 4
    assert found.kept == 1
    assert ["R4a", "J1", "R6a"] in found.table


def test_a_tile_that_extends_a_run_breaks_that_run_only() -> None:
    table = [["R3a", "R4a", "R5a"], ["R7a", "B7a", "K7a"], ["R7b", "R8a", "R9a"]]
    found = checked(table, ["R6a"])
    assert found.placed == ["R6a"]
    assert found.kept == 2
    assert ["R7a", "B7a", "K7a"] in found.table


def test_a_rack_tile_that_fits_nowhere_stays_on_the_rack() -> None:
    found = checked([["R1a", "R2a", "R3a"]], ["B7a", "Y11a"])
    assert found.placed == []
    assert found.kept == 1


@cache
def splits_into_runs(counts: tuple[int, ...], jokers: int, low: int) -> bool:
    """Independent of the program: whether copies of one colour (counts of the numbers from
    `low` on) and jokers split into runs, however deep they overlap."""
    if not any(counts):
        return jokers == 0
    first = next(i for i, n in enumerate(counts) if n)
    number = low + first
    for start in range(max(1, number - 2), number + 1):
        before = number - start
        last = min(13, low + len(counts) - 1 + jokers)
        for end in range(max(start + 2, number), last + 1):
            for uses in product((True, False), repeat=end - number):
                left = list(counts)
                left[first] -= 1
                wild = jokers - before - uses.count(False)
                ok = wild >= 0
                for offset, real in enumerate(uses, start=first + 1):
                    if real:
                        ok = ok and offset < len(left) and left[offset] > 0
                        if ok:
                            left[offset] -= 1
                if ok and splits_into_runs(tuple(left), wild, low):
                    return True
    return False


def test_runs_of_one_colour_never_need_more_than_two_free_slots() -> None:
    """Every multiset of one colour over 1..6 (two copies, up to two jokers) that splits into
    runs is laid whole by the program, whose free runs are at most two deep per colour."""
    for counts in product(range(3), repeat=6):
        for jokers in range(3):
            rack = [f"Y{n + 1}{'ab'[k]}" for n, c in enumerate(counts) for k in range(c)]
            rack += [f"J{k + 1}" for k in range(jokers)]
            if len(rack) < 3:
                continue
            laid_whole = len(play([], rack).placed) == len(rack)
            assert laid_whole == splits_into_runs(counts, jokers, 1), rack


def four_colour_state(rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """A table of up to three melds and a rack from four colours of three numbers."""
    low = rng.randint(1, 11)
    pool = [f"{c}{n}{copy}" for c in "RBKY" for n in range(low, low + 3) for copy in "ab"]
    pool += ["J1", "J2"]
    rng.shuffle(pool)
    table: list[list[str]] = []
    for _ in range(rng.randint(0, 3)):
        for _attempt in range(40):
            size = rng.randint(3, 4)
            if best_points([kind(t) for t in pool[:size]]) is not None:
                table.append(pool[:size])
                pool = pool[size:]
                break
            rng.shuffle(pool)
    return table, pool[: rng.randint(1, 7)]


@pytest.mark.parametrize("seed", range(4))
def test_the_program_matches_exhaustive_search_with_groups_of_four(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(50):
        table, rack = four_colour_state(rng)
        found = checked(table, rack)
        points = sum(30 if c == "J" else n for c, n in map(kind, found.placed))
        assert (len(found.placed), points, found.kept) == brute_force(table, rack, True), (
            table,
            rack,
        )


def old_groups_of_one_number(rng: random.Random) -> tuple[list[int], list[list[int]], list[int]]:
    """Up to four old groups of one number: their colours (at most two copies of a colour
    in all) and jokers (at most two in all)."""
    copies = [2, 2, 2, 2]
    jokers_left = 2
    colours: list[list[int]] = []
    jokers: list[int] = []
    for _ in range(rng.randint(0, 4)):
        wild = rng.randint(0, min(1, jokers_left))
        available = [c for c in range(4) if copies[c]]
        size = rng.randint(3, 4) - wild
        if len(available) < size:
            break
        chosen = rng.sample(available, size)
        for c in chosen:
            copies[c] -= 1
        jokers_left -= wild
        colours.append([int(c in chosen) for c in range(4)])
        jokers.append(wild)
    return [5] * len(colours), colours, jokers


def test_the_groups_bound_of_a_colour_step_is_the_best_over_the_colours_still_to_come() -> None:
    rng = random.Random(7)
    static, _splits = static_groups(False)
    for _ in range(150):
        values, colours, group_jokers = old_groups_of_one_number(rng)
        group_best = group_table(
            static,
            np.array(values, dtype=np.int64),
            np.array(colours, dtype=np.int64).reshape(-1, 4),
            np.array(group_jokers, dtype=np.int64),
        )
        ahead, cap = groups_ahead(group_best)
        assert cap[5] == len(values)
        for c, jokers in product(range(4), range(3)):
            for so_far in product(range(3), repeat=c + 1):
                best = max(
                    int(group_best[5, sum(n << (2 * i) for i, n in enumerate(so_far + rest)), k])
                    for rest in product(range(3), repeat=3 - c)
                    for k in range(jokers + 1)
                )
                code = sum(n << (2 * i) for i, n in enumerate(so_far))
                assert ahead[5, c, code, jokers] == best, (colours, group_jokers, so_far)


def mid_game_state(
    rng: random.Random, table_size: int, rack_size: int, jokers_on_table: bool = False
) -> tuple[list[list[str]], list[str]]:
    """A table of valid melds of about `table_size` tiles from a shuffled set (both jokers
    among them if `jokers_on_table`), and a rack of the rest (as the bench deals them)."""
    pool = [f"{c}{n}{copy}" for c in COLOURS for n in range(1, 14) for copy in "ab"]
    pool += ["J1", "J2"]
    rng.shuffle(pool)
    by_name: dict[str, list[str]] = {}
    for tile in pool:
        by_name.setdefault("J" if tile.startswith("J") else tile[:-1], []).append(tile)
    melds = list(catalogue())
    table: list[list[str]] = []
    while sum(map(len, table)) < table_size or (jokers_on_table and by_name["J"]):
        candidates = (
            melds
            if not by_name["J"] or not jokers_on_table
            else [m for m in melds if JOKER in m.layout]
        )
        names = ["J" if t == JOKER else type_name(t) for t in rng.choice(candidates).layout]
        if all(len(by_name.get(n, [])) >= names.count(n) for n in names):
            table.append([by_name[n].pop() for n in names])
    rest = [t for tiles in by_name.values() for t in tiles]
    rng.shuffle(rest)
    return table, rest[:rack_size]


@pytest.mark.parametrize("seed", range(2))
def test_the_program_matches_the_integer_program_on_mid_game_states(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The integer program is exact too, and shares nothing with the program's bounds, beam
    or dominance rules: on states of bench size but smaller, both find the same optimum."""
    rng = random.Random(300 + seed)
    for _ in range(15):
        table, rack = mid_game_state(rng, 35, 12)
        program = solve(table, rack, initial_meld_done=True)
        assert_is_a_legal_play(program, table, rack, True)
        monkeypatch.setattr(_solve, "_program", {"state": "warming"})
        integer = solve(table, rack, initial_meld_done=True)
        monkeypatch.setattr(_solve, "_program", {"state": "lazy"})
        found = (program.tiles_placed, program.points, program.kept)
        assert found == (integer.tiles_placed, integer.points, integer.kept), (table, rack)
        assert program.optimal


@pytest.mark.parametrize("seed", range(3))
def test_a_pass_below_the_optimum_outgrows_its_arrays_and_finds_the_optimum(seed: int) -> None:
    """A full pass whose floor is two old melds below the optimum holds hundreds of thousands
    of states, far more than its arrays and hash tables start with (they grow between the
    expansions of two states, each made room for first), and finds the optimum that the
    narrow pass and the proof found."""
    table, rack = mid_game_state(random.Random(seed), 70, 30)
    problem = _Problem.build(table, rack, TILE_WEIGHT, POINT_WEIGHT, attach=True)
    every_tile = int(problem.value[:4].sum()) - len(problem.runs)
    narrow, floor, _actions, _states = problem._pass(every_tile, BEAM)
    assert narrow == 1
    found, better, _actions, _states = problem._pass(floor + 1)
    optimum = better if found == 1 else floor
    found, best, _actions, states = problem._pass(optimum - 2)
    assert (found, best) == (1, optimum)
    assert states > 1 << 17


def test_threads_solving_at_once_find_what_one_thread_finds_alone() -> None:
    """Each thread's passes reuse arrays of their own (`_dp.search`): threads released by
    the compiled passes at once, on large and small states, find the plays one thread
    finds, and so does that thread again after a pass that grew its arrays."""
    rng = random.Random(77)
    states = [mid_game_state(rng, 30 + 8 * (i % 4), 8 + 4 * (i % 4)) for i in range(12)]

    def answers(chunk: list[tuple[list[list[str]], list[str]]]) -> list[tuple[int, int, int]]:
        found = [solve(table, rack, initial_meld_done=True) for table, rack in chunk]
        return [(s.tiles_placed, s.points, s.kept) for s in found]

    alone = answers(states)
    start = threading.Barrier(3)

    def together(offset: int) -> list[tuple[int, int, int]]:
        start.wait()
        return answers(states[offset:] + states[:offset])

    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(together, [0, 4, 8]))
    for offset, result in zip([0, 4, 8], results, strict=True):
        assert result == alone[offset:] + alone[:offset]
    assert answers(states) == alone


def test_the_bound_after_each_step_is_what_the_steps_after_it_may_add() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        value = rng.integers(0, 5000, size=(5, 14))
        value[:, 0] = 0
        ahead = _trivial_bounds(value)
        after = _bound_after(ahead, value)
        for v in range(14):
            assert ahead[v] == value[:, v + 1 :].sum()
        for step in range(STEPS):
            number, c = divmod(step, STEPS_PER_NUMBER)
            assert after[step] == value[c + 1 :, number + 1].sum() + ahead[number + 1]


@pytest.mark.parametrize(("jokers_on_table", "attach"), list(product([False, True], repeat=2)))
def test_the_program_finds_the_same_best_play_either_way_through_the_numbers(
    jokers_on_table: bool, attach: bool
) -> None:
    """Taking the numbers from 13 down to 1 is the same problem: the old runs mirrored
    (jokers where they stood), each tile worth its own number, and the play read back.
    Attaching, a joker a run needs stands at its other end, which lays the same tiles."""
    rng = random.Random(900 + jokers_on_table)
    for _ in range(12):
        table, rack = mid_game_state(rng, 40, 14, jokers_on_table)
        upward = _Problem.build(table, rack, TILE_WEIGHT, POINT_WEIGHT, attach=attach)
        downward = _Problem.build(
            table, rack, TILE_WEIGHT, POINT_WEIGHT, attach=attach, mirrored=True
        )
        assert downward.twin().mirrored is False
        best_up, laid_up = upward._optimum(0)
        best_down, laid_down = downward._optimum(0)
        assert best_up == best_down, (table, rack)
        for laid in (laid_up, laid_down):
            kept = laid.play.table[: laid.play.kept]
            assert all(meld in table for meld in kept), "a kept meld is the old meld as it was"
            program = Solution(
                table=laid.play.table, placed=laid.play.placed, points=0, kept=laid.play.kept
            )
            assert_is_a_legal_play(program, table, rack, True)
