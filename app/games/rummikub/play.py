"""Checking a whole play: the table after a turn against the table before and the rack.

A play is legal when the table after holds every tile of the table before plus at least one
tile from the player's rack and nothing else, every meld on it is valid, and, before the
player's initial meld, the old melds are untouched and the new ones are worth enough.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.games.engine import IllegalAction
from app.games.rummikub.melds import MeldReading, read_meld
from app.games.rummikub.tiles import is_joker, is_tile, parse_face

Table = list[list[str]]


@dataclass(frozen=True)
class CheckedPlay:
    """A legal play: the rack tiles it lays (in table order) and each meld as read."""

    played: tuple[str, ...]
    readings: tuple[MeldReading, ...]
    initial_points: int


def parse_table(raw: object) -> Table:
    """A table from an action: a list of melds, each a list of tile ids."""
    if not isinstance(raw, list) or not all(isinstance(meld, list) for meld in raw):
        raise IllegalAction("bad_action", "table must be a list of melds, each a list of tile ids")
    seen: set[str] = set()
    for meld in raw:
        for tile in meld:
            if not is_tile(tile):
                raise IllegalAction("bad_action", f"unknown tile {tile!r}")
            if tile in seen:
                raise IllegalAction("bad_action", f"tile {tile} is on the table twice")
            seen.add(tile)
    return [list(meld) for meld in raw]


def parse_declarations(raw: object) -> dict[str, str]:
    """Joker declarations from an action: `{"J1": "R5"}`."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise IllegalAction("bad_action", 'jokers must map a joker to a face, e.g. {"J1": "R5"}')
    for joker, text in raw.items():
        if not isinstance(joker, str) or not is_joker(joker):
            raise IllegalAction("bad_action", f"{joker!r} is not a joker (J1 or J2)")
        if parse_face(text) is None:
            raise IllegalAction("bad_action", f"joker {joker} declared as {text!r}, not a face")
    return dict(raw)


def check_play(
    table_before: Sequence[Sequence[str]],
    table_after: object,
    rack: Sequence[str],
    initial_meld_done: bool,
    *,
    initial_meld_points: int = 30,
    jokers: Mapping[str, str] | None = None,
) -> list[str]:
    """The rack tiles a play lays, or IllegalAction naming exactly what is wrong."""
    checked = check_whole_play(
        table_before,
        parse_table(table_after),
        rack,
        initial_meld_done,
        initial_meld_points=initial_meld_points,
        jokers=jokers,
    )
    return list(checked.played)


def check_whole_play(
    table_before: Sequence[Sequence[str]],
    table_after: Table,
    rack: Sequence[str],
    initial_meld_done: bool,
    *,
    initial_meld_points: int = 30,
    jokers: Mapping[str, str] | None = None,
) -> CheckedPlay:
    """Like `check_play` for a table already parsed, with the reading of every meld."""
    played = _played_tiles(table_before, table_after, rack)
    old_melds: set[frozenset[str]] = set()
    if not initial_meld_done:
        old_melds = _untouched_melds(table_before, table_after)
    readings: list[MeldReading] = []
    points = 0
    for meld in table_after:
        reading = read_meld(meld, jokers)
        if reading.error is not None:
            raise IllegalAction("invalid_meld", f"{' '.join(meld)}: {reading.error}")
        readings.append(reading)
        if not initial_meld_done and frozenset(meld) not in old_melds:
            points += reading.value
    if not initial_meld_done and points < initial_meld_points:
        raise IllegalAction(
            "initial_meld_below_30", f"initial meld worth {points} < {initial_meld_points}"
        )
    return CheckedPlay(tuple(played), tuple(readings), points)


def _played_tiles(
    table_before: Sequence[Sequence[str]], table_after: Table, rack: Sequence[str]
) -> list[str]:
    after = {tile for meld in table_after for tile in meld}
    before: set[str] = set()
    for meld in table_before:
        for tile in meld:
            before.add(tile)
            if tile in after:
                continue
            if is_joker(tile):
                raise IllegalAction(
                    "freed_joker_not_played", f"freed joker {tile} must be played this turn"
                )
            raise IllegalAction("table_tile_missing", f"table tile {tile} is missing")
    on_rack = set(rack)
    played = [tile for meld in table_after for tile in meld if tile not in before]
    for tile in played:
        if tile not in on_rack:
            raise IllegalAction("tile_not_on_rack", f"tile {tile} is not on your rack")
    if not played:
        raise IllegalAction("no_tile_played", "a play must lay at least one tile from your rack")
    return played


def _untouched_melds(
    table_before: Sequence[Sequence[str]], table_after: Table
) -> set[frozenset[str]]:
    """The old melds, each still on the table as it was; raises if one changed (rule 5)."""
    after = {frozenset(meld) for meld in table_after}
    old: set[frozenset[str]] = set()
    for meld in table_before:
        key = frozenset(meld)
        if key not in after:
            raise IllegalAction(
                "initial_meld_touches_table",
                f"before your initial meld you may not change the table meld {' '.join(meld)}",
            )
        old.add(key)
    return old


def carry_declarations(
    table_before: Sequence[Sequence[str]],
    table_after: Sequence[Sequence[str]],
    declared_before: Mapping[str, str],
    declared_now: Mapping[str, str],
) -> dict[str, str]:
    """Declarations in force after a play.

    A joker keeps its declaration while its meld is unchanged; a new declaration wins.
    """
    unchanged = {frozenset(meld) for meld in table_before} & {
        frozenset(meld) for meld in table_after
    }
    kept = {
        joker: face
        for joker, face in declared_before.items()
        if any(joker in meld for meld in unchanged)
    }
    on_table = {tile for meld in table_after for tile in meld}
    kept.update((joker, face) for joker, face in declared_now.items() if joker in on_table)
    return kept
