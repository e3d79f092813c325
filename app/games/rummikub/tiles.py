"""The 106 Rummikub tiles and their ids.

A tile id is colour + number + copy (`R5a`, `R5b`, `K13b`) or a joker (`J1`, `J2`). The
face of a tile is its id without the copy letter (`R5`, `J`); the rules treat both copies of
a face alike.
"""

from __future__ import annotations

from collections.abc import Iterable

COLOURS = "RBKY"
NUMBERS = range(1, 14)
JOKERS = ("J1", "J2")
JOKER_RACK_POINTS = 30

ALL_TILES: tuple[str, ...] = (
    *(f"{colour}{number}{copy}" for copy in "ab" for colour in COLOURS for number in NUMBERS),
    *JOKERS,
)

# Decoding ids is the hottest path of the play checker, so every id is decoded once here.
NUMBERED_TILES: dict[str, tuple[str, int]] = {
    tile: (tile[0], int(tile[1:-1])) for tile in ALL_TILES if tile not in JOKERS
}


def is_tile(tile: object) -> bool:
    """Whether `tile` is one of the 106 tile ids."""
    return isinstance(tile, str) and (tile in NUMBERED_TILES or tile in JOKERS)


def is_joker(tile: str) -> bool:
    return tile in JOKERS


def colour_and_number(tile: str) -> tuple[str, int]:
    """`("R", 5)` for `R5a`; raises KeyError for a joker or an unknown id."""
    return NUMBERED_TILES[tile]


def face(tile: str) -> str:
    """`R5` for `R5a`, `J` for a joker."""
    return "J" if tile in JOKERS else tile[:-1]


def parse_face(text: object) -> tuple[str, int] | None:
    """`("R", 5)` for the face `R5`, None for anything that is not a numbered face."""
    if not isinstance(text, str) or len(text) < 2 or text[0] not in COLOURS:
        return None
    digits = text[1:]
    if not digits.isdigit() or digits.startswith("0"):
        return None
    number = int(digits)
    return (text[0], number) if number in NUMBERS else None


def rack_points(tile: str) -> int:
    """What a tile left on a rack costs: its number, a joker 30."""
    return JOKER_RACK_POINTS if tile in JOKERS else NUMBERED_TILES[tile][1]


def rack_value(tiles: Iterable[str]) -> int:
    return sum(rack_points(tile) for tile in tiles)
