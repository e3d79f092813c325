"""Where the melds of a turn go on the table: each in the place of the meld it came from, new
melds after them, so a player who follows the table finds the melds they know where they were,
after a whole play and after every step of a turn played move by move."""

from __future__ import annotations

from collections.abc import Sequence


def keep_places(before: Sequence[Sequence[str]], after: list[list[str]]) -> list[list[str]]:
    """The melds of `after`, each meld's tiles in their order.

    A meld of `after` came from the meld of `before` it shares the most tiles with (the
    earliest on a tie). The meld that holds the most tiles of an old meld (the earliest on a
    tie) takes that meld's place, in the order of `before`; every other meld (a new one, the
    smaller part of a split) follows, in the order of `after`. A merged meld is in the place of
    the larger of the melds it joined; an old meld that is gone leaves no gap.
    """
    old = [set(meld) for meld in before]
    heir: dict[int, tuple[int, int]] = {}  # old meld -> (tiles shared, meld of `after`)
    for index, meld in enumerate(after):
        shared = [len(tiles.intersection(meld)) for tiles in old]
        most = max(shared, default=0)
        if not most:
            continue
        origin = shared.index(most)
        if origin not in heir or heir[origin][0] < most:
            heir[origin] = (most, index)
    placed = [heir[origin][1] for origin in sorted(heir)]
    taken = set(placed)
    rest = [index for index in range(len(after)) if index not in taken]
    return [after[index] for index in placed + rest]
