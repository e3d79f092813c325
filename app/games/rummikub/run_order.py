"""Putting a run in the making in order: its numbers low to high, each joker where it fits.

A meld is a run in the making when it holds at least two numbered tiles, all of one colour and
no number twice. Its jokers first fill the numbers missing between its tiles (the lowest gap
first); the spare ones stay before the lowest number as far as they were there and 1 allows,
the rest go after the highest as far as 13 allows, and any left over go before it after all.
A group, or a meld that is neither yet, is left as it is: any order of a group reads alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from app.games.rummikub.tiles import NUMBERED_TILES, is_joker


def in_run_order(tiles: Sequence[str]) -> list[str] | None:
    """The tiles of a run in the making in order (perhaps the order given); None for a meld
    that is not one (a group, mixed colours, a number twice, fewer than two numbered tiles)."""
    naturals: list[tuple[int, str]] = []
    jokers: list[str] = []
    leading = 0
    colours: set[str] = set()
    for tile in tiles:
        if is_joker(tile):
            jokers.append(tile)
            leading += not naturals
            continue
        decoded = NUMBERED_TILES.get(tile)
        if decoded is None:
            return None
        colours.add(decoded[0])
        naturals.append((decoded[1], tile))
    numbers = {number for number, _ in naturals}
    if len(naturals) < 2 or len(colours) > 1 or len(numbers) < len(naturals):
        return None
    naturals.sort()
    gaps = [b - a - 1 for (a, _), (b, _) in pairwise(naturals)]
    spare = max(0, len(jokers) - sum(gaps))
    low, high = naturals[0][0], naturals[-1][0]
    front = min(leading, spare, low - 1)
    back = min(spare - front, 13 - high)
    front = spare - back
    ordered = jokers[:front]
    fillers = iter(jokers[front : len(jokers) - back])
    for (_, tile), gap in zip(naturals, [*gaps, 0], strict=True):
        ordered.append(tile)
        ordered.extend(joker for _, joker in zip(range(gap), fillers, strict=False))
    ordered.extend(jokers[len(jokers) - back :])
    return ordered
