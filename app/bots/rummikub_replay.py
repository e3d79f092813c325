"""The melds along the path a pass of `rummikub_dp` found, as tile ids.

Old melds kept whole keep their own tiles and order; new melds take the loose table tiles of
the old melds that were broken before any rack tile of the same type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from app.bots.rummikub_dp import OLD, STEPS, STEPS_PER_NUMBER, TRAILING_JOKER, IntArray
from app.bots.rummikub_groups import GroupSplit, code
from app.bots.rummikub_melds import JOKER
from app.bots.rummikub_melds import tile_type as parse_tile_type

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
    run: int  # the old run kept whole, or -1


def replay(
    table: list[list[str]],
    rack: Sequence[str],
    table_cnt: IntArray,
    runs: list[OldRun],
    groups: list[OldGroup],
    group_best: IntArray,
    splits: dict[tuple[int, int], GroupSplit],
    actions: IntArray,
    keys: IntArray,
    attach: bool,
) -> Laid:
    """Rebuild the melds along the program's best path."""
    kept_melds: set[int] = set()
    new_runs: list[tuple[int, list[tuple[int, bool]]]] = []  # (colour, units)
    new_groups: list[tuple[int, tuple[int, ...], int]] = []  # (number, colours, jokers)
    open_runs: list[list[_Open]] = [[], [], [], []]
    leftover = [0, 0, 0, 0]
    local = {c: [i for i, r in enumerate(runs) if r.colour == c] for c in range(4)}
    starting: dict[tuple[int, int], list[int]] = {}
    for i, r in enumerate(runs):
        starting.setdefault((r.colour, r.start), []).append(i)
    by_number: dict[int, list[OldGroup]] = {}
    for group in groups:
        by_number.setdefault(group.value, []).append(group)
    # Python ints: a numpy scalar read costs as much as the rest of a quiet step.
    on_table = table_cnt.tolist()
    for step, action in enumerate(actions[:STEPS].tolist()):
        v, c = divmod(step, STEPS_PER_NUMBER)
        v += 1
        if c == 4:
            here = by_number.get(v, [])
            _replay_groups(v, leftover, action, here, group_best, splits, kept_melds, new_groups)
            leftover = [0, 0, 0, 0]
            continue
        if not open_runs[c] and action & 0xFFFFFF == 0:
            # no run of this colour goes on or starts here: every copy laid goes to groups
            leftover[c] = action >> 24
            assert on_table[c][v] <= leftover[c] <= 2
            continue
        j1, j2 = action & 7, (action >> 3) & 7
        c3r, c3j = (action >> 6) & 7, (action >> 9) & 7
        sr, sj = (action >> 12) & 7, (action >> 15) & 7
        chosen, x, j4 = (action >> 18) & 63, (action >> 24) & 7, (action >> 27) & 7
        reals = 0
        still: list[_Open] = []
        by_label: dict[int, list[_Open]] = {}
        for run in open_runs[c]:
            by_label.setdefault(run.label, []).append(run)
        for run in sorted(open_runs[c], key=lambda o: o.label):
            if run.label >= OLD:
                old = runs[run.run]
                joker = bool(old.jokers >> v & 1)
                reals += not joker
                if old.end == v:
                    kept_melds.add(old.meld)
                else:
                    still.append(run)
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
        reals += c3r + sr
        still += [_Open(1, [(v, i >= sr)], -1) for i in range(sr + sj)]
        for k, index in enumerate(starting.get((c, v), [])):
            if chosen >> k & 1:
                reals += not (runs[index].jokers >> v & 1)
                still.append(_Open(OLD + local[c].index(index), [], index))
        open_runs[c] = still
        leftover[c] = x - reals
        assert 0 <= leftover[c] <= 2
        assert x >= on_table[c][v]
    for c in range(4):
        for run in open_runs[c]:
            assert run.label == 3, "every run is complete after 13"
            new_runs.append((c, run.units))
    return _with_tile_ids(table, rack, kept_melds, new_runs, new_groups)


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
