"""Groups of one number: how the tiles left over for groups split, and how many of the old
groups of that number they can keep whole (the tables `_dp` reads at its group
steps, and at each colour step through `groups_ahead`).

A leftover code packs two bits a colour (0-2 copies). These functions are compiled with
numba but called from Python only, once a problem, so they may live apart from the program's
own module (numba's cache checks only the file of a cached function, not what it calls).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

import numpy as np
from numba import njit

from app.bots.rummikub.solver._dp import IntArray

GroupSplit = tuple[tuple[tuple[int, ...], int], ...]  # (colours, jokers) per group


def split_groups(left: tuple[int, ...], jokers: int, spare: bool) -> GroupSplit | None:
    """Leftover copies per colour and jokers as groups of 3-4 distinct colours, if possible;
    without `spare`, no group holds a joker it could do without."""
    if not any(left):
        return () if jokers == 0 else None
    first = next(c for c in range(4) if left[c])
    others = [c for c in range(4) if left[c] and c != first]
    for extra in range(len(others), -1, -1):
        for chosen in combinations(others, extra):
            colours = (first, *chosen)
            for wild in range(min(jokers, 4 - len(colours)) + 1):
                if not 3 <= len(colours) + wild <= 4 or (
                    wild and not spare and len(colours) + wild == 4
                ):
                    continue
                rest = tuple(n - (c in colours) for c, n in enumerate(left))
                tail = split_groups(rest, jokers - wild, spare)
                if tail is not None:
                    return ((colours, wild), *tail)
    return None


def code(left: Sequence[int]) -> int:
    """The leftover code of copies per colour (four colours)."""
    return left[0] | left[1] << 2 | left[2] << 4 | left[3] << 6


@cache
def static_groups(spare: bool) -> tuple[IntArray, dict[tuple[int, int], GroupSplit]]:
    static = np.full((256, 3), -1, dtype=np.int64)
    splits: dict[tuple[int, int], GroupSplit] = {}
    for counts in np.ndindex(3, 3, 3, 3):
        for jokers in range(3):
            split = split_groups(tuple(counts), jokers, spare)
            if split is not None:
                static[code(counts), jokers] = 0
                splits[code(counts), jokers] = split
    return static, splits


@njit(cache=True, nogil=True)
def group_table(
    static: IntArray,  # (256, 3): 0 if the leftovers split into groups with k jokers, else -1
    group_value: IntArray,  # per old group
    group_colours: IntArray,  # (groups, 4): 1 where the group holds that colour's real tile
    group_jokers: IntArray,
) -> IntArray:
    """Per number, leftover code and jokers: the most old groups kept whole (-1: no split)."""
    out = np.empty((14, 256, 3), dtype=np.int64)
    for v in range(14):
        out[v] = static
    ids = np.empty(len(group_value), dtype=np.int64)
    need = np.zeros(4, dtype=np.int64)
    for v in range(1, 14):
        n = 0
        for i in range(len(group_value)):
            if group_value[i] == v:
                ids[n] = i
                n += 1
        for subset in range(1, 1 << n):
            need[:] = 0
            need_jokers = 0
            size = 0
            for k in range(n):
                if (subset >> k) & 1:
                    size += 1
                    need_jokers += group_jokers[ids[k]]
                    for c in range(4):
                        need[c] += group_colours[ids[k], c]
            if need_jokers > 2:
                continue
            for g in range(256):
                rest = 0
                fits = True
                for c in range(4):
                    have = (g >> (2 * c)) & 3
                    if have > 2 or have < need[c]:
                        fits = False
                        break
                    rest |= (have - need[c]) << (2 * c)
                if not fits:
                    continue
                for k in range(need_jokers, 3):
                    if static[rest, k - need_jokers] >= 0 and out[v, g, k] < size:
                        out[v, g, k] = size
    return out


@njit(cache=True, nogil=True)
def groups_ahead(group_best: IntArray) -> tuple[IntArray, IntArray]:
    """Per number, colour step, leftovers of the colours so far and jokers still free (0-2):
    the most old groups of that number still keepable whatever the later colours leave over
    (-1: the leftovers can no longer split into groups); and per number, the most old groups
    kept at all.

    A colour step bounds its states with these in place of "every old group of the number
    kept", so a state that gave up an old group's tile (or any chance of groups) is pruned
    at once rather than after the later colours of the number multiply it.
    """
    ahead = np.full((14, 4, 256, 3), -1, dtype=np.int64)
    cap = np.zeros(14, dtype=np.int64)
    for v in range(1, 14):
        for code in range(256):
            best = -1
            for k in range(3):
                best = max(best, group_best[v, code, k])
                ahead[v, 3, code, k] = best
            cap[v] = max(cap[v], best)
        for c in range(2, -1, -1):
            for code in range(1 << (2 * c + 2)):
                for k in range(3):
                    best = -1
                    for g in range(3):
                        best = max(best, ahead[v, c + 1, code | (g << (2 * c + 2)), k])
                    ahead[v, c, code, k] = best
    return ahead, cap
