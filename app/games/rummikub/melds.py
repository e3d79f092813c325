"""Reading one meld: is it a run or a group, what each joker stands for, what it is worth.

A meld is read in the order it is laid. A run runs left to right in ascending order with
each joker standing for the number of its place (`R4 J R6`: the joker is R5). In a group the
jokers take the number of the group and stand for any of its missing colours (`R5 J K5`:
the joker is B5 or Y5). A meld that reads both ways (one numbered tile and two jokers) is read
the way worth more points, as a group on a tie (`J J R5` is the group of 5s, worth 15; `R5 J J`
is the run R5 R6 R7, worth 18). A player may declare a joker explicitly (`{"J1": "R4"}`);
the meld must then read so that the joker stands for that face.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from app.games.engine import IllegalAction
from app.games.rummikub.tiles import COLOURS, NUMBERED_TILES, is_joker, parse_face

Natural = tuple[int, str, int]  # (place in the meld, colour, number)


@dataclass(frozen=True)
class MeldReading:
    """A meld as read: its kind, or the reason it is not a meld."""

    kind: str | None
    error: str | None
    value: int
    # One entry per tile, in order: the faces that tile stands for (several only for a
    # joker in a group whose colour is open).
    stands_for: tuple[tuple[str, ...], ...]

    @property
    def valid(self) -> bool:
        return self.error is None


def _invalid(reason: str) -> MeldReading:
    return MeldReading(None, reason, 0, ())


# Readings kept by tiles and declared faces: a table's melds are read again by every check of a
# play and every view while they stay on it, and a reading is immutable.
READINGS_KEPT = 4096


def read_meld(tiles: Sequence[str], declared: Mapping[str, str] | None = None) -> MeldReading:
    """Read tiles (ids like `R5a`, `J1`, or faces like `R5`, `J`) as laid into one meld."""
    laid = tuple(tiles)
    if not declared:
        return _read_laid(laid, ())
    return _read_laid(laid, tuple([(tile, declared[tile]) for tile in laid if tile in declared]))


@lru_cache(maxsize=READINGS_KEPT)
def _read_laid(tiles: tuple[str, ...], faces: tuple[tuple[str, str], ...]) -> MeldReading:
    declared = dict(faces)
    naturals: list[Natural] = []
    jokers: list[int] = []
    for place, tile in enumerate(tiles):
        decoded = NUMBERED_TILES.get(tile)
        if decoded is None:
            if is_joker(tile) or tile == "J":
                jokers.append(place)
                continue
            decoded = parse_face(tile)
            if decoded is None:
                return _invalid(f"unknown tile {tile}")
        naturals.append((place, decoded[0], decoded[1]))
    if len(tiles) < 3:
        return _invalid(f"a meld needs at least 3 tiles, this one has {len(tiles)}")
    if not naturals:
        return _invalid("a meld needs at least one numbered tile")
    wanted = _declared_faces(tiles, jokers, declared) if declared and jokers else {}
    _, colour, number = naturals[0]
    if len(naturals) > 1:
        # Two numbered tiles already decide the kind: a shared number makes a group (a run
        # cannot repeat a number), a shared colour with different numbers a run.
        if all(n == number for _, _, n in naturals):
            return _read_group(len(tiles), naturals, jokers, wanted)
        if all(c == colour for _, c, _ in naturals):
            return _read_run(len(tiles), naturals, wanted)
        return _invalid("neither a group (numbers differ) nor a run (colours differ)")
    group = _read_group(len(tiles), naturals, jokers, wanted)
    run = _read_run(len(tiles), naturals, wanted)
    if group.valid and run.valid:
        return run if run.value > group.value else group
    if run.valid or (not group.valid and any(c == colour for c, _ in wanted.values())):
        return run
    return group


def _declared_faces(
    tiles: Sequence[str], jokers: list[int], declared: Mapping[str, str]
) -> dict[int, tuple[str, int]]:
    wanted: dict[int, tuple[str, int]] = {}
    for place in jokers:
        text = declared.get(tiles[place])
        parsed = parse_face(text) if text is not None else None
        if parsed is not None:
            wanted[place] = parsed
    return wanted


def _read_group(
    size: int, naturals: list[Natural], jokers: list[int], wanted: dict[int, tuple[str, int]]
) -> MeldReading:
    if size > 4:
        return _invalid(f"a group holds at most 4 tiles, this one has {size}")
    number = naturals[0][2]
    seen: set[str] = set()
    for _, colour, other in naturals:
        if other != number:
            return _invalid(f"group mixes numbers {number} and {other}")
        if colour in seen:
            return _invalid(f"group repeats colour {colour}")
        seen.add(colour)
    for colour, declared_number in wanted.values():
        name = f"{colour}{declared_number}"
        if declared_number != number:
            return _invalid(f"joker declared as {name} in a group of {number}s")
        if colour in seen:
            return _invalid(f"joker declared as {name} repeats colour {colour} in the group")
        seen.add(colour)
    open_faces = tuple(f"{c}{number}" for c in COLOURS if c not in seen)
    stands: list[tuple[str, ...]] = [()] * size
    for place, colour, _ in naturals:
        stands[place] = (f"{colour}{number}",)
    for place in jokers:
        declared = wanted.get(place)
        stands[place] = (f"{declared[0]}{number}",) if declared else open_faces
    return MeldReading("group", None, number * size, tuple(stands))


def _read_run(
    size: int, naturals: list[Natural], wanted: dict[int, tuple[str, int]]
) -> MeldReading:
    if size > 13:
        return _invalid(f"a run holds at most 13 tiles, this one has {size}")
    first_place, colour, first_number = naturals[0]
    for (place_a, _, a), (place_b, colour_b, b) in pairwise(naturals):
        if colour_b != colour:
            return _invalid(f"run mixes colours {colour} and {colour_b}")
        if b - a == place_b - place_a:
            continue
        if b == a:
            return _invalid(f"run repeats {colour}{a}")
        if b < a:
            return _invalid(f"run is out of order: {colour}{a} before {colour}{b}")
        if b - a > place_b - place_a:
            return _invalid(f"run has a gap between {colour}{a} and {colour}{b}")
        # More jokers between two numbers than numbers missing there: the joker is out of
        # place (it belongs at an end), not one too many for the run.
        missing = b - a - 1
        jokers = place_b - place_a - 1
        between = f"between {colour}{a} and {colour}{b}"
        if missing == 0:
            return _invalid(f"run has a joker {between}, where no number is missing")
        numbers = "1 number is" if missing == 1 else f"{missing} numbers are"
        return _invalid(f"run has {jokers} jokers {between}, where only {numbers} missing")
    start = first_number - first_place
    if start < 1:
        return _invalid("run would need a number below 1 (1 is low only)")
    if start + size - 1 > 13:
        return _invalid("run would need a number above 13 (no wrap from 13 to 1)")
    for place, (declared_colour, number) in wanted.items():
        if (declared_colour, number) != (colour, start + place):
            return _invalid(
                f"joker declared as {declared_colour}{number} "
                f"stands for {colour}{start + place} in this run"
            )
    stands = tuple((f"{colour}{start + place}",) for place in range(size))
    return MeldReading("run", None, size * start + size * (size - 1) // 2, stands)


def is_valid_meld(tiles: Sequence[str], jokers: Mapping[str, str] | None = None) -> bool:
    """Whether the tiles, in the order laid, form a run or a group."""
    return read_meld(tiles, jokers).valid


def meld_value(tiles: Sequence[str], jokers: Mapping[str, str] | None = None) -> int:
    """Points of a valid meld, each joker counting as what it stands for.

    Raises IllegalAction("invalid_meld") naming the problem when the tiles are no meld.
    """
    reading = read_meld(tiles, jokers)
    if reading.error is not None:
        raise IllegalAction("invalid_meld", reading.error)
    return reading.value
