"""The baseline Rummikub bot: lays what its own rack makes, extends table melds, else draws.

It sees only its seat's view. Before its initial meld it plays when the melds found in its
rack reach the threshold; afterwards it plays every new meld it finds in its rack and every
tile that extends a table meld at either end. It never rearranges the table.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from app.games.rummikub import IllegalAction, check_play, is_valid_meld, meld_value, read_meld
from app.games.rummikub.play import carry_declarations
from app.games.rummikub.tiles import COLOURS, NUMBERED_TILES, face, is_joker

View = dict[str, Any]
Action = dict[str, Any]
Meld = list[str]


def _runs(tiles: Sequence[str]) -> list[Meld]:
    """Longest runs of distinct numbers per colour (one copy of each), 3 tiles or more."""
    by_colour: dict[str, dict[int, str]] = defaultdict(dict)
    for tile in tiles:
        colour, number = NUMBERED_TILES[tile]
        by_colour[colour].setdefault(number, tile)
    found: list[Meld] = []
    for numbers in by_colour.values():
        current: Meld = []
        for number in range(1, 15):
            if number in numbers:
                current.append(numbers[number])
                continue
            if len(current) >= 3:
                found.append(current)
            current = []
    return found


def _groups(tiles: Sequence[str]) -> list[Meld]:
    """Groups of 3 or 4 distinct colours per number."""
    by_number: dict[int, dict[str, str]] = defaultdict(dict)
    for tile in tiles:
        colour, number = NUMBERED_TILES[tile]
        by_number[number].setdefault(colour, tile)
    return [list(colours.values()) for colours in by_number.values() if len(colours) >= 3]


def _take(melds: Iterable[Meld], remaining: list[str]) -> list[Meld]:
    taken: list[Meld] = []
    for meld in melds:
        if all(tile in remaining for tile in meld):
            for tile in meld:
                remaining.remove(tile)
            taken.append(meld)
    return taken


def _joker_melds(remaining: list[str]) -> list[Meld]:
    """Pairs a joker completes: R5 R6 -> R5 R6 J, R5 R7 -> R5 J R7, R5 B5 -> R5 B5 J."""
    found: list[Meld] = []
    jokers = [tile for tile in remaining if is_joker(tile)]
    naturals = sorted(
        (t for t in remaining if not is_joker(t)), key=lambda t: -NUMBERED_TILES[t][1]
    )
    for first in naturals:
        if not jokers:
            break
        for second in naturals:
            if first == second or first not in remaining or second not in remaining:
                continue
            for meld in ([first, second, jokers[0]], [first, jokers[0], second]):
                if is_valid_meld(meld):
                    found.append(meld)
                    remaining.remove(first)
                    remaining.remove(second)
                    remaining.remove(jokers.pop(0))
                    break
            else:
                continue
            break
    return found


def rack_melds(rack: Sequence[str]) -> list[Meld]:
    """Melds found in a rack: the better of runs-first and groups-first, then joker pairs."""
    naturals = [tile for tile in rack if not is_joker(tile)]
    best: tuple[int, list[Meld], list[str]] = (-1, [], list(rack))
    for first_runs in (True, False):
        remaining = list(rack)
        melds: list[Meld] = []
        for finder in (_runs, _groups) if first_runs else (_groups, _runs):
            melds += _take(finder([t for t in naturals if t in remaining]), remaining)
        points = sum(meld_value(meld) for meld in melds)
        if points > best[0]:
            best = (points, melds, remaining)
    _, melds, remaining = best
    return melds + _joker_melds(list(remaining))


def _wanted_faces(meld: Meld) -> set[str]:
    """Faces that might extend a meld: a run's next number at either end, a group's colours."""
    reading = read_meld(meld)
    if reading.kind == "run":
        colour, low = reading.stands_for[0][0][0], int(reading.stands_for[0][0][1:])
        high = low + len(meld) - 1
        return {f"{colour}{n}" for n in (low - 1, high + 1) if 1 <= n <= 13}
    if reading.kind == "group" and len(meld) < 4:
        number = int(reading.stands_for[0][0][1:])
        return {f"{colour}{number}" for colour in COLOURS}
    return set()


def _extend(table: list[Meld], rack: list[str], order: random.Random) -> list[str]:
    """Add rack tiles to either end of table melds while one fits; returns the tiles used."""
    spare = [tile for tile in rack if not is_joker(tile)]
    order.shuffle(spare)
    used: list[str] = []
    changed = True
    while changed:
        changed = False
        for meld in table:
            wanted = _wanted_faces(meld)
            for tile in spare:
                if tile in used or face(tile) not in wanted:
                    continue
                for candidate in ([*meld, tile], [tile, *meld]):
                    if is_valid_meld(candidate):
                        meld[:] = candidate
                        used.append(tile)
                        changed = True
                        break
                if changed:
                    break
    return used


class BasicRummikubBot:
    """Plays from its own rack, extends table melds, else draws (or passes)."""

    def __init__(self, seed: int = 0) -> None:
        self._random = random.Random(seed)

    def choose(self, view: View, legal: list[Action]) -> Action:
        kinds = {action["type"] for action in legal}
        if "play" in kinds:
            play = self._play(view)
            if play is not None:
                return play
        for kind in ("draw", "pass", "next_round", "timeout"):
            if kind in kinds:
                return {"type": kind}
        return dict(legal[0])

    def _play(self, view: View) -> Action | None:
        rack: list[str] = list(view["rack"])
        seat = view["seat"]
        melded: bool = view["seats"][seat]["initial_meld_done"]
        need: int = view["config"]["initial_meld_points"]
        before = [meld["tiles"] for meld in view["table"]]
        declared = {j: f for meld in view["table"] for j, f in meld["declared"].items()}
        new_melds = rack_melds(rack)
        if not melded and sum(meld_value(meld) for meld in new_melds) < need:
            return None
        table = [list(meld) for meld in before] + new_melds
        if melded:
            left = [tile for tile in rack if all(tile not in meld for meld in new_melds)]
            _extend(table, left, self._random)
        for attempt in (table, [list(meld) for meld in before] + new_melds):
            jokers = carry_declarations(before, attempt, declared, {})
            try:
                check_play(before, attempt, rack, melded, initial_meld_points=need, jokers=jokers)
            except IllegalAction:
                continue
            return {"type": "play", "table": attempt}
        return None
