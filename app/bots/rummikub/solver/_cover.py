"""Exact-cover search: split a multiset of tiles into melds, keeping as many old melds as it can.

The solver's first move. When the table plus every rack tile that fits some meld can be split
into melds, that play is best on tiles and points, and only "change the table least" is left:
a depth-first branch and bound over the columns (melds) finds the split keeping the most old
melds. Tiles are covered in (number, colour) order, so a meld is only tried at its first
tile; the bound is the melds kept so far plus every old meld whose first tile is still ahead.

The search is exact when it finishes within its node budget (`Cover.complete`); otherwise it
reports the best split found, which the integer program takes as its starting point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.bots.rummikub.solver._melds import JOKER, TYPE_COUNT

# Tile types in the order the search covers them: by number, then colour; jokers last.
ORDER = [*sorted(range(TYPE_COUNT - 1), key=lambda t: (t % 13, t // 13)), JOKER]
_RANK = {tile: position for position, tile in enumerate(ORDER)}


@dataclass(frozen=True)
class Cover:
    """How many copies of each column the best split found uses, if any was found."""

    copies: list[int] | None
    kept: int
    complete: bool  # every split was considered: `copies` is the best one (or none exists)


def search_cover(
    columns: Sequence[Sequence[int]],
    upper: Sequence[int],
    kept_bonus: Sequence[int],
    target: Sequence[int],
    node_limit: int = 20_000,
) -> Cover:
    """Columns are melds as tuples of tile types; `target` counts the tiles to cover exactly."""
    by_first: list[list[int]] = [[] for _ in range(TYPE_COUNT)]
    for index, meld in enumerate(columns):
        first = min(meld, key=lambda t: _RANK[t])
        by_first[_RANK[first]].append(index)
    for candidates in by_first:
        # Old melds first: the first split found then keeps many, and the bound prunes well.
        candidates.sort(key=lambda i: (-kept_bonus[i], -len(columns[i])))
    old_ahead = [0] * (TYPE_COUNT + 1)
    for position in range(TYPE_COUNT - 1, -1, -1):
        old_ahead[position] = old_ahead[position + 1] + sum(
            upper[i] for i in by_first[position] if kept_bonus[i]
        )
    search = _Search(columns, upper, kept_bonus, by_first, old_ahead, node_limit)
    left = [target[t] for t in ORDER]
    search.run(left, 0, 0, 0)
    return Cover(search.best, search.best_kept, complete=search.nodes <= node_limit)


class _Search:
    def __init__(
        self,
        columns: Sequence[Sequence[int]],
        upper: Sequence[int],
        kept_bonus: Sequence[int],
        by_first: list[list[int]],
        old_ahead: list[int],
        node_limit: int,
    ) -> None:
        self.melds = [[_RANK[t] for t in meld] for meld in columns]
        self.upper = list(upper)
        self.bonus = kept_bonus
        self.by_first = by_first
        self.old_ahead = old_ahead
        self.node_limit = node_limit
        self.used = [0] * len(columns)
        self.nodes = 0
        self.best: list[int] | None = None
        self.best_kept = -1

    def run(self, left: list[int], position: int, kept: int, skip: int) -> None:
        """Cover the tiles from `position` on; at this position try candidates from `skip`
        on, so that two melds starting at the same tile are tried in one order only."""
        self.nodes += 1
        if self.nodes > self.node_limit:
            return
        if left[position] == 0:
            skip = 0
            while position < TYPE_COUNT and left[position] == 0:
                position += 1
        if position == TYPE_COUNT:
            if kept > self.best_kept:
                self.best, self.best_kept = list(self.used), kept
            return
        if kept + self.old_ahead[position] <= self.best_kept:
            return
        candidates = self.by_first[position]
        for choice in range(skip, len(candidates)):
            index = candidates[choice]
            if self.used[index] >= self.upper[index]:
                continue
            meld = self.melds[index]
            if not _fits(meld, left):
                continue
            for tile in meld:
                left[tile] -= 1
            self.used[index] += 1
            self.run(left, position, kept + self.bonus[index], choice)
            self.used[index] -= 1
            for tile in meld:
                left[tile] += 1
            if self.nodes > self.node_limit:
                return


def _fits(meld: list[int], left: list[int]) -> bool:
    for tile in meld:
        left[tile] -= 1
    fits = all(left[tile] >= 0 for tile in meld)
    for tile in meld:
        left[tile] += 1
    return fits
