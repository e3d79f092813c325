"""The melds along the path a pass of `_dp` found, as tile ids.

Old melds kept whole keep their own tiles and order; new melds take the loose table tiles of
the old melds that were broken before any rack tile of the same type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from app.bots.rummikub.solver._dp import STEPS, STEPS_PER_NUMBER, TRAILING_JOKER, IntArray
from app.bots.rummikub.solver._groups import GroupSplit, code
from app.bots.rummikub.solver._melds import JOKER
from app.bots.rummikub.solver._melds import tile_type as parse_tile_type

# A few hundred tile ids are read a hundred times a solve; parsing each was ~5% of a solve.
tile_type = lru_cache(maxsize=1024)(parse_tile_type)


@dataclass(frozen=True)
class Play:
    """The rearranged table, the rack tiles it lays, and how many old melds it keeps whole."""

    table: list[list[str]]
    placed: list[str]
    kept: int
    optimal: bool = True  # False: a time limit cut the proof short


@dataclass(frozen=True)
class Laid:
    """A play and the jokers it left off the table (the broken melds' first, then the rack's)."""

    play: Play
    loose_jokers: list[str]


@dataclass
class OldRun:
    meld: int  # index in the old table
    colour: int
    start: int
    end: int
    jokers: int  # bit v: a joker stands for number v


@dataclass
class OldGroup:
    meld: int
    value: int
    colours: tuple[int, ...]
    jokers: int


@dataclass
class _Open:
    label: int
    units: list[tuple[int, bool]]  # (number, is a joker)


def replay(
    table: list[list[str]],
    rack: Sequence[str],
    table_cnt: IntArray,
    runs: list[OldRun],
    groups: list[OldGroup],
    group_best: IntArray,
    splits: dict[tuple[int, int], GroupSplit],
    actions: IntArray,
    attach: bool,
    mirrored: bool = False,
) -> Laid:
    """Rebuild the melds along the program's best path (over the numbers 13..1 if
    `mirrored`: the program's number v is then 14 - v)."""
    kept_melds: set[int] = set()
    new_runs: list[tuple[int, list[tuple[int, bool]]]] = []  # (colour, units)
    new_groups: list[tuple[int, tuple[int, ...], int]] = []  # (number, colours, jokers)
    open_runs: list[list[_Open]] = [[], [], [], []]  # the free runs in progress
    # Real tiles of colour c and number v that the old runs kept so far take: an old run
    # chosen where it starts goes on to its end (the program has no other successor), so
    # it is counted then, not followed step by step.
    old_reals = [[0] * 14 for _ in range(4)]
    leftover = [0, 0, 0, 0]
    starting: dict[tuple[int, int], list[OldRun]] = {}
    for old in runs:
        starting.setdefault((old.colour, old.start), []).append(old)
    by_number: dict[int, list[OldGroup]] = {}
    for group in groups:
        by_number.setdefault(group.value, []).append(group)
    # Python ints: a numpy scalar read costs as much as the rest of a quiet step.
    on_table = table_cnt.tolist()
    for step, action in enumerate(actions[:STEPS].tolist()):
        v, c = divmod(step, STEPS_PER_NUMBER)
        v += 1
        if c == 4:
            if action or any(leftover):  # else no group is laid or kept at v
                here = by_number.get(v, [])
                _replay_groups(
                    v, leftover, action, here, group_best, splits, kept_melds, new_groups
                )
                leftover = [0, 0, 0, 0]
            continue
        reals = 0
        if open_runs[c] or action & 0x3FFFF:  # a free run goes on, ends or starts here
            reals = _replay_free_runs(v, c, action, open_runs, new_runs, attach)
        for k, old in enumerate(starting.get((c, v), ())):
            if (action >> (18 + k)) & 1:
                kept_melds.add(old.meld)
                for n in range(v, old.end + 1):
                    old_reals[c][n] += not old.jokers >> n & 1
        x = (action >> 24) & 7
        leftover[c] = x - reals - old_reals[c][v]
        assert 0 <= leftover[c] <= 2
        assert x >= on_table[c][v]
    for c in range(4):
        for run in open_runs[c]:
            assert run.label == 3, "every run is complete after 13"
            new_runs.append((c, run.units))
    if mirrored:
        new_runs = [(c, [(14 - v, j) for v, j in reversed(units)]) for c, units in new_runs]
        new_groups = [(14 - v, colours, j) for v, colours, j in new_groups]
    return _with_tile_ids(table, rack, kept_melds, new_runs, new_groups)


def _replay_free_runs(
    v: int,
    c: int,
    action: int,
    open_runs: list[list[_Open]],
    new_runs: list[tuple[int, list[tuple[int, bool]]]],
    attach: bool,
) -> int:
    """The free runs of colour c at number v go on, end or start; the real tiles they take."""
    j1, j2 = action & 7, (action >> 3) & 7
    c3r, c3j = (action >> 6) & 7, (action >> 9) & 7
    sr, sj, j4 = (action >> 12) & 7, (action >> 15) & 7, (action >> 27) & 7
    reals = 0
    still: list[_Open] = []
    by_label: dict[int, list[_Open]] = {}
    for run in open_runs[c]:
        by_label.setdefault(run.label, []).append(run)
    for label, jokers, after in ((1, j1, 2), (2, j2, 3)):
        for i, run in enumerate(by_label.get(label, [])):
            run.units.append((v, i < jokers))
            reals += i >= jokers
            run.label = after
            still.append(run)
    for i, run in enumerate(by_label.get(TRAILING_JOKER, [])):
        run.units.append((v, i < j4))
        reals += i >= j4
        run.label = TRAILING_JOKER if i < j4 else 3
        still.append(run)
    for i, run in enumerate(by_label.get(3, [])):
        if i < c3r + c3j:
            run.units.append((v, i >= c3r))
            run.label = TRAILING_JOKER if attach and i >= c3r else 3
            still.append(run)
        else:
            new_runs.append((c, run.units))
    still += [_Open(1, [(v, i >= sr)]) for i in range(sr + sj)]
    open_runs[c] = still
    return reals + c3r + sr


def _replay_groups(
    v: int,
    leftover: list[int],
    jokers: int,
    groups: list[OldGroup],  # those of number v
    group_best: IntArray,
    splits: dict[tuple[int, int], GroupSplit],
    kept_melds: set[int],
    new_groups: list[tuple[int, tuple[int, ...], int]],
) -> None:
    best = int(group_best[v, code(leftover), jokers])
    for chosen in combinations(groups, best):
        left = list(leftover)
        for group in chosen:
            for c in group.colours:
                left[c] -= 1
        wild = jokers - sum(g.jokers for g in chosen)
        if min(left) < 0 or wild < 0 or (code(left), wild) not in splits:
            continue
        kept_melds.update(g.meld for g in chosen)
        new_groups.extend((v, colours, j) for colours, j in splits[code(left), wild])
        return
    raise AssertionError(f"no group split at {v} for {leftover} with {jokers} jokers")


def _with_tile_ids(
    table: list[list[str]],
    rack: Sequence[str],
    kept_melds: set[int],
    new_runs: list[tuple[int, list[tuple[int, bool]]]],
    new_groups: list[tuple[int, tuple[int, ...], int]],
) -> Laid:
    free: dict[int, list[str]] = {}
    for index, meld in enumerate(table):
        if index not in kept_melds:
            for tile in meld:
                free.setdefault(tile_type(tile), []).append(tile)
    for tile in rack:
        free.setdefault(tile_type(tile), []).append(tile)
    melds: list[list[str]] = []
    for colour, units in new_runs:
        melds.append([free[JOKER if j else colour * 13 + v - 1].pop(0) for v, j in units])
    for v, colours, jokers in new_groups:
        melds.append([free[c * 13 + v - 1].pop(0) for c in colours])
        melds[-1] += [free[JOKER].pop(0) for _ in range(jokers)]
    rack_ids = set(rack)
    placed = [t for meld in melds for t in meld if t in rack_ids]
    kept = [meld for index, meld in enumerate(table) if index in kept_melds]
    return Laid(Play(table=kept + melds, placed=placed, kept=len(kept)), free.get(JOKER, []))
