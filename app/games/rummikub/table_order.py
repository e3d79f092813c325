"""Where a whole play's melds go on the table: each in the place of the meld it shares the most
tiles with, so a player who follows the table sees the melds they know where they were."""

from __future__ import annotations


def keep_places(before: list[list[str]], after: list[list[str]]) -> list[list[str]]:
    """The melds of `after`, each meld's tiles in their order: first one for each meld of
    `before` that shares tiles with it (the one sharing the most, the earliest on a tie), in the
    order of `before`; then the rest (new melds) in their order."""
    remaining = list(range(len(after)))
    placed: list[int] = []
    for old in before:
        tiles = set(old)
        shared = {index: len(tiles.intersection(after[index])) for index in remaining}
        best = max(remaining, key=lambda index: shared[index], default=None)
        if best is not None and shared[best]:
            placed.append(best)
            remaining.remove(best)
    return [after[index] for index in placed + remaining]
