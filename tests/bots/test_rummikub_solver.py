"""The exact Rummikub solver against the rules and against exhaustive search on small states."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from functools import cache
from itertools import combinations

import highspy
import numpy as np
import pytest

from app.bots.rummikub.solver import Solution, solve

Tile = tuple[str, int]  # (colour, number); colour "J" for a joker


def kind(tile_id: str) -> Tile:
    return ("J", 0) if tile_id.startswith("J") else (tile_id[0], int(tile_id[1:].rstrip("ab")))


def best_points(tiles: list[Tile]) -> int | None:
    """Independent of the solver: the most points a meld of these tiles counts, or None."""
    real = [t for t in tiles if t[0] != "J"]
    size = len(tiles)
    if not 3 <= size <= 13 or not real:
        return None
    readings: list[int] = []
    colours = [c for c, _ in real]
    numbers = [n for _, n in real]
    if size <= 4 and len(set(numbers)) == 1 and len(set(colours)) == len(colours):
        readings.append(numbers[0] * size)
    if len(set(colours)) == 1 and len(set(numbers)) == len(numbers):
        low, high = min(numbers), max(numbers)
        start = min(low, 14 - size)
        if high - low + 1 <= size and start >= 1 and start + size - 1 >= high:
            readings.append(size * start + size * (size - 1) // 2)
    return max(readings, default=None)


Piece = tuple[Tile, bool]  # a tile's kind and whether it is optional (from the rack)


def melds_with_first(
    pieces: tuple[Piece, ...],
) -> Iterator[tuple[tuple[Piece, ...], tuple[Piece, ...]]]:
    """Every valid meld holding the first piece, with the pieces left over.

    Pieces are sorted with table copies before rack copies of the same kind, and only the
    first way of picking each kind of meld is tried: using a table copy is never worse.
    """
    first, rest = pieces[0], pieces[1:]
    seen: set[tuple[Tile, ...]] = set()
    for size in range(2, min(len(rest), 6) + 1):
        for picked in combinations(range(len(rest)), size):
            meld = (first, *(rest[i] for i in picked))
            kinds = tuple(sorted(p[0] for p in meld))
            if kinds in seen or best_points(list(kinds)) is None:
                continue
            seen.add(kinds)
            yield meld, tuple(p for i, p in enumerate(rest) if i not in picked)


Score = tuple[int, int, int]


def best_play(pieces: tuple[Piece, ...], old: Counter[tuple[Tile, ...]]) -> Score | None:
    """The best (rack tiles, rack points, old melds kept) over every split of the pieces into
    valid melds that uses every table piece; rack pieces may stay behind. None if none."""

    @cache
    def best(left: tuple[Piece, ...], old_left: tuple[tuple[tuple[Tile, ...], int], ...]) -> Score:
        if not left:
            return (0, 0, 0)
        found: Score = (-1, 0, 0)
        if left[0][1]:
            found = best(left[1:], old_left)
        remaining_old = dict(old_left)
        for meld, rest in melds_with_first(left):
            kinds = tuple(sorted(p[0] for p in meld))
            is_old = remaining_old.get(kinds, 0) > 0
            after = dict(remaining_old)
            if is_old:
                after[kinds] -= 1
            tail = best(rest, tuple(sorted(after.items())))
            if tail[0] < 0:
                continue
            rack = [p[0] for p in meld if p[1]]
            points = sum(30 if c == "J" else n for c, n in rack)
            found = max(found, (tail[0] + len(rack), tail[1] + points, tail[2] + is_old))
        return found

    result = best(tuple(sorted(pieces, key=lambda p: (p[0], p[1]))), tuple(sorted(old.items())))
    return None if result[0] < 0 else result


def most_points(tiles: tuple[Tile, ...]) -> int | None:
    """The most initial-meld points a split of `tiles` into valid melds counts, or None."""

    @cache
    def best(left: tuple[Tile, ...]) -> int:
        if not left:
            return 0
        found = -1
        for meld, rest in melds_with_first(tuple((t, False) for t in left)):
            tail = best(tuple(p[0] for p in rest))
            if tail >= 0:
                found = max(found, tail + (best_points([p[0] for p in meld]) or 0))
        return found

    result = best(tiles)
    return None if result < 0 else result


def brute_force(table: list[list[str]], rack: list[str], initial_meld_done: bool) -> Score:
    """(tiles placed, points placed, old melds kept) of the best play, by trying everything."""
    if initial_meld_done:
        old = Counter(tuple(sorted(kind(t) for t in meld)) for meld in table)
        pieces = [(kind(t), False) for meld in table for t in meld]
        pieces += [(kind(t), True) for t in rack]
        found = best_play(tuple(pieces), old)
        assert found is not None, "the old table is always a valid split"
        return found
    best = (0, 0, len(table))
    for mask in range(1, 1 << len(rack)):
        chosen = [kind(rack[i]) for i in range(len(rack)) if mask >> i & 1]
        points = sum(30 if c == "J" else n for c, n in chosen)
        counted = most_points(tuple(sorted(chosen)))
        if counted is not None and counted >= 30:
            best = max(best, (len(chosen), points, len(table)))
    return best


def assert_is_a_legal_play(
    solution: Solution, table: list[list[str]], rack: list[str], initial_meld_done: bool
) -> None:
    new_ids = [t for meld in solution.table for t in meld]
    old_ids = [t for meld in table for t in meld]
    assert len(new_ids) == len(set(new_ids))
    assert set(new_ids) == set(old_ids) | set(solution.placed)
    assert set(solution.placed) <= set(rack)
    for meld in solution.table:
        assert best_points([kind(t) for t in meld]) is not None, meld
    if not initial_meld_done and solution.placed:
        assert all(meld in solution.table for meld in table)
        new = [m for m in solution.table if any(t in solution.placed for t in m)]
        assert sum(best_points([kind(t) for t in m]) or 0 for m in new) >= 30


def score(solution: Solution) -> tuple[int, int, int]:
    return (solution.tiles_placed, solution.points, solution.kept)


def test_a_long_run_is_split_to_free_a_tile_for_a_group() -> None:
    table = [[f"R{n}a" for n in range(1, 8)]]
    rack = ["K4a", "B4a"]
    solution = solve(table, rack, initial_meld_done=True)
    assert sorted(solution.placed) == ["B4a", "K4a"]
    assert_is_a_legal_play(solution, table, rack, True)


def test_a_four_run_cannot_give_up_its_second_tile() -> None:
    table = [["R4a", "R5a", "R6a", "R7a"]]
    rack = ["R8a", "K5a", "B5a"]
    solution = solve(table, rack, initial_meld_done=True)
    assert solution.placed == ["R8a"]
    assert_is_a_legal_play(solution, table, rack, True)


def test_a_joker_can_end_a_long_run() -> None:
    rack = ["Y7a", "Y8a", "Y9a", "Y10a", "Y11a", "Y12a", "J1"]
    solution = solve([], rack, initial_meld_done=True)
    assert solution.tiles_placed == 7
    assert_is_a_legal_play(solution, [], rack, True)


def test_a_joker_can_complete_a_group_of_four() -> None:
    table = [["R9a", "B9a", "K9a"], ["R1a", "R2a", "R3a"]]
    rack = ["J2", "Y9a"]
    solution = solve(table, rack, initial_meld_done=True)
    assert solution.tiles_placed == 2
    assert_is_a_legal_play(solution, table, rack, True)


def test_the_initial_meld_needs_thirty_points_from_the_rack() -> None:
    table = [["R10a", "R11a", "R12a"]]
    rack = ["B9a", "K9a", "Y9a", "R13a"]
    solution = solve(table, rack, initial_meld_done=False)
    assert solution.placed == []
    assert solution.table == table


def test_the_initial_meld_counts_a_joker_as_the_tile_it_stands_for() -> None:
    rack = ["B10a", "K10a", "J1", "R2a"]
    solution = solve([["R1a", "R3a", "R4a"]], rack, initial_meld_done=False)
    assert sorted(solution.placed) == ["B10a", "J1", "K10a"]
    assert solution.table[0] == ["R1a", "R3a", "R4a"]


def test_a_table_that_needs_no_change_is_kept_whole() -> None:
    table = [["R1a", "R2a", "R3a"], ["B7a", "K7a", "Y7a"]]
    rack = ["K11a", "K12a", "K13a"]
    solution = solve(table, rack, initial_meld_done=True)
    assert solution.kept == 2
    assert solution.table[:2] == table


def test_a_rack_that_fits_nowhere_places_nothing() -> None:
    table = [["R1a", "R2a", "R3a"]]
    solution = solve(table, ["B7a", "Y11a"], initial_meld_done=True)
    assert solution.placed == []
    assert solution.table == table


COLOURS_SMALL = "RBK"


def small_state(rng: random.Random, low: int, rack_size: int) -> tuple[list[list[str]], list[str]]:
    """A table of up to three melds and a rack from a small, dense set of tiles."""
    numbers = range(low, low + 5)  # runs of at most seven tiles, so a meld has at most 7
    pool = [f"{c}{n}{copy}" for c in COLOURS_SMALL for n in numbers for copy in "ab"]
    pool += ["J1", "J2"]
    rng.shuffle(pool)
    table: list[list[str]] = []
    for _ in range(rng.randint(0, 3)):
        for _attempt in range(40):
            size = rng.randint(3, 5)
            if best_points([kind(t) for t in pool[:size]]) is not None:
                table.append(pool[:size])
                pool = pool[size:]
                break
            rng.shuffle(pool)
    return table, pool[: rng.randint(1, rack_size)]


@pytest.mark.parametrize("initial_meld_done", [True, False])
def test_the_solver_matches_exhaustive_search_on_small_states(initial_meld_done: bool) -> None:
    rng = random.Random(7 if initial_meld_done else 8)
    for case in range(250):
        low = rng.randint(1, 9) if initial_meld_done else rng.randint(6, 9)
        table, rack = small_state(rng, low, 8)
        if not initial_meld_done and case % 2:
            table = []
        solution = solve(table, rack, initial_meld_done=initial_meld_done)
        assert_is_a_legal_play(solution, table, rack, initial_meld_done)
        expected = brute_force(table, rack, initial_meld_done)
        assert score(solution) == expected, (table, rack)


def test_the_solver_still_works_after_another_highs_model_ran_in_the_process() -> None:
    other = highspy.Highs()
    other.setOptionValue("output_flag", False)
    lp = highspy.HighsLp()
    lp.num_col_ = 1
    lp.col_cost_ = np.array([1.0])
    lp.col_lower_ = np.array([0.0])
    lp.col_upper_ = np.array([1.0])
    lp.integrality_ = [highspy.HighsVarType.kInteger]
    other.passModel(lp)
    other.run()
    # The initial meld is still solved by the integer program.
    solution = solve(
        [["R4a", "R5a", "R6a"]], ["R10a", "R11a", "R12a", "B2a"], initial_meld_done=False
    )
    assert sorted(solution.placed) == ["R10a", "R11a", "R12a"]
