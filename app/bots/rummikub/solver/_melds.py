"""Rummikub tile types and the catalogue of small melds the solver chooses from.

A tile id is colour + number + copy (`R5a`, `K13b`) or a joker (`J1`, `J2`). The solver
works on tile *types*: 52 coloured numbers plus one joker type. A meld is a group (3 or 4
tiles of one number, distinct colours) or a run (3 to 13 consecutive numbers of one colour,
1 low only, no wrap); a joker stands for one tile.

Every run of six or more tiles splits into runs of three to five, so runs up to five plus
groups cover every table (van Rijn, Takes and Vis, "The complexity of Rummikub problems",
2015). Melds with the same multiset of types are interchangeable for placing tiles; the
catalogue keeps one layout per multiset, the one whose jokers stand for the most points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

COLOURS = "RBKY"
NUMBERS = range(1, 14)
JOKER = 52
TYPE_COUNT = 53
JOKER_POINTS = 30

_TILE_ID = re.compile(r"^(?:([RBKY])(1[0-3]|[1-9])[a-z]?|J\d*)$")


def tile_type(tile_id: str) -> int:
    """The type index of a tile id: colour * 13 + number - 1, or JOKER."""
    match = _TILE_ID.match(tile_id)
    if match is None:
        raise ValueError(f"expected a tile id like R5a or J1, got {tile_id!r}")
    colour, number = match.group(1), match.group(2)
    if colour is None:
        return JOKER
    return COLOURS.index(colour) * 13 + int(number) - 1


def type_name(tile: int) -> str:
    """`R5` for a coloured number, `J` for the joker type."""
    if tile == JOKER:
        return "J"
    return f"{COLOURS[tile // 13]}{tile % 13 + 1}"


def type_points(tile: int) -> int:
    """What a tile costs if left on the rack: its number, a joker 30."""
    return JOKER_POINTS if tile == JOKER else tile % 13 + 1


def meld_layout(types: Sequence[int]) -> tuple[int, ...] | None:
    """What each position of a meld stands for (types in table order), or None if invalid.

    A run is read left to right with jokers in place; in a group the jokers take the
    colours missing from it. A meld that reads both ways (`R5 J J`) is read the way that
    counts more points, as a player declaring the jokers would.
    """
    if not 3 <= len(types) <= 13 or all(t == JOKER for t in types):
        return None
    readings = [r for r in (_group_layout(types), _run_layout(types)) if r is not None]
    if not readings:
        return None
    return max(readings, key=lambda r: sum(t % 13 for t in r))


def _group_layout(types: Sequence[int]) -> tuple[int, ...] | None:
    real = [t for t in types if t != JOKER]
    colours = [t // 13 for t in real]
    if len(types) > 4 or len({t % 13 for t in real}) != 1 or len(set(colours)) != len(colours):
        return None
    missing = iter(c for c in range(4) if c not in colours)
    number = real[0] % 13
    return tuple(t if t != JOKER else next(missing) * 13 + number for t in types)


def _run_layout(types: Sequence[int]) -> tuple[int, ...] | None:
    first_real = next(i for i, t in enumerate(types) if t != JOKER)
    start = types[first_real] % 13 - first_real
    colour = types[first_real] // 13
    if start < 0 or start + len(types) > 13:
        return None
    stands = tuple(colour * 13 + start + i for i in range(len(types)))
    if any(t not in (JOKER, s) for t, s in zip(types, stands, strict=True)):
        return None
    return stands


def meld_points(types: Sequence[int]) -> int | None:
    """The points a meld counts for the initial meld (jokers as what they stand for)."""
    layout = meld_layout(types)
    if layout is None:
        return None
    return sum(t % 13 + 1 for t in layout)


@dataclass(frozen=True)
class CandidateMeld:
    """One multiset of tile types that forms a meld, laid out with its best joker places."""

    layout: tuple[int, ...]
    points: int

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(sorted(self.layout))


def _with_jokers(stands: Sequence[int], jokers: int) -> Iterable[tuple[int, ...]]:
    for places in combinations(range(len(stands)), jokers):
        yield tuple(JOKER if i in places else t for i, t in enumerate(stands))


def _small_melds() -> Iterable[tuple[int, ...]]:
    for number in range(13):
        for size in (3, 4):
            for colours in combinations(range(4), size):
                yield tuple(c * 13 + number for c in colours)
    for colour in range(4):
        for start in range(13):
            for length in (3, 4, 5):
                if start + length <= 13:
                    yield tuple(colour * 13 + start + i for i in range(length))


@cache
def catalogue() -> tuple[CandidateMeld, ...]:
    """Every distinct multiset of a group or a run of 3-5 tiles, with up to two jokers."""
    best: dict[tuple[int, ...], CandidateMeld] = {}
    for stands in _small_melds():
        for jokers in range(3):
            for layout in _with_jokers(stands, jokers):
                points = meld_points(layout)
                if points is None:
                    continue
                candidate = CandidateMeld(layout, points)
                known = best.get(candidate.key)
                if known is None or known.points < points:
                    best[candidate.key] = candidate
    return tuple(sorted(best.values(), key=lambda c: c.key))
