"""The compiled core of the Rummikub solver: a dynamic program over the numbers 1..13.

After van Rijn, Takes and Vis, "The complexity of Rummikub problems" (2015), extended to a
table plus a rack and to the third goal (keep the most old melds whole). Numbers are taken
in order; per colour the state holds four run slots, each idle, a free run of length 1, 2 or
3+ in progress, or an old run of the table being kept whole (it must take exactly its own
tiles, real or joker, up to its own last number). The state also counts the jokers used so
far. At each number every colour's table copies must be used and its rack copies may be:
each copy continues a run, starts one, or goes to the groups of that number, where the
leftovers of the four colours and some jokers must split into groups (3 or 4 distinct
colours, jokers filling), keeping whole as many old groups of that number as they can.

Free runs need at most two slots per colour: the free tiles of one colour that split into
runs also split into runs at most two deep (checked exhaustively by the tests); old runs kept
whole take the others (four units at most per tile type: two copies and two jokers).

The score is lexicographic in one integer: rack tiles placed, then their points (joker 30),
then old melds kept (an old run scores where it begins, since a state that cannot end it has
no successor: the bound then needs no count of the old runs a state holds). A pass drops
every state whose score plus an upper bound on what is still to come is below a threshold
(within a number the bound counts only the old groups of that number the leftovers so far
can still keep, see `_groups.groups_ahead`), and every state that another state of
the same step dominates (`_drop_dominated`); it is exact when the optimum is at or above the
threshold.
A narrow pass instead keeps only the states of highest bound at each step (`beam`), which
finds a good play fast but proves nothing. `_rearrange` drives the passes.

When `attach` is set, jokers score nothing and stand only where a meld needs them: a joker
may not end a free run of three or more (such a run carries label 4 until a real tile follows)
nor start one except as 11, and a group takes a joker only to reach three; the caller adds
the other jokers to the new melds afterwards.

This module is one compiled kernel and the helpers it calls, kept in one file (past the usual
size) because numba's cache is checked against the file of the cached function only: a
helper changed in another module would leave a stale compiled `search` in the cache.

Numba counts references to arrays with atomic instructions and prunes the counts only within
simple control flow (numba issue 2345): an array passed to a helper, or reassigned, inside
the loops over states and moves cost an atomic update per move or state, about a fifth of a
pass. So the functions of those loops allocate nothing and are compiled without reference
counting (`_nrt=False`), and the pass's arrays grow in `search`, between calls of `_expand`,
which makes room (`_room`) before a state could outgrow them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from itertools import combinations_with_replacement
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

IntArray = npt.NDArray[np.int64]
# A pass's arrays: its states' keys, scores, debts, parents and actions, its hash table's slots.
_Workspace = tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]

SLOTS = 4
# Labels of a slot: 0 idle, 1-3 a free run of that length (3: three or more), 4 a free run of
# four or more whose last tile is a joker that must not end it (see `attach`), 5+i old run i.
LABELS = 15
TRAILING_JOKER = 4
OLD = 5
MAX_OLD_RUNS_PER_COLOUR = LABELS - OLD
MAX_STARTS = 4  # old runs of one colour starting at one number
STEPS_PER_NUMBER = 5  # four colours, then the groups
STEPS = 13 * STEPS_PER_NUMBER
MAX_FREE = 2  # free runs in progress per colour, see above
# Penalties are in 1/64 of a score unit (see `search`): a kept meld's reduced cost is often
# a half, and the floor of each penalty so scaled loses little.
PENALTY_SCALE = 64
NOTHING_CUT = -(1 << 62)  # a pass's `cut` when it dropped no state below its threshold
MAX_OLD_GROUPS = 3  # of one number: eight tiles and two jokers make at most three groups

_Function = TypeVar("_Function", bound=Callable[..., object])


def _uncounted(inline: str = "never") -> Callable[[_Function], _Function]:
    """`njit` for the functions inside the loops over states and moves: compiled without
    reference counting, see the end of the docstring (`_nrt` is an option numba's type
    hints leave out). They must not allocate."""
    options: dict[str, Any] = {"cache": True, "nogil": True, "inline": inline, "_nrt": False}
    return cast(Callable[[_Function], _Function], njit(**options))


def _label_tables() -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Sorted label tuples of a colour, their ranks, the ranks one slot ahead of each (see
    `_drop_dominated`), -1 padded, and how many slots of each tuple hold each label 0-4 and
    an old run (column 5; the old runs come first in a tuple)."""
    tuples = sorted(
        (tuple(sorted(c, reverse=True)) for c in combinations_with_replacement(range(LABELS), 4)),
        key=lambda t: (sum(t), t),
    )
    labels = np.array(tuples, dtype=np.int64)
    rank_of = np.full(LABELS**SLOTS, -1, dtype=np.int64)
    for rank, t in enumerate(tuples):
        rank_of[((t[0] * LABELS + t[1]) * LABELS + t[2]) * LABELS + t[3]] = rank
    ahead = np.full((len(tuples), 2 * SLOTS), -1, dtype=np.int64)
    for rank, t in enumerate(tuples):
        free = sum(1 <= label < OLD for label in t)
        found: list[int] = []
        for j, label in enumerate(t):
            if label == 3 or label >= OLD or label in t[:j]:
                continue
            # A free run of 3+ may stand for an idle slot (if a free slot is left), a longer
            # free run for a shorter one, one free to end for one that must go on.
            if label == 0:
                better_labels = [3] if free < 2 else []
            else:
                better_labels = [3] if label == TRAILING_JOKER else list(range(label + 1, 4))
            for better in better_labels:
                up = sorted([*t[:j], better, *t[j + 1 :]], reverse=True)
                found.append(
                    int(rank_of[((up[0] * LABELS + up[1]) * LABELS + up[2]) * LABELS + up[3]])
                )
        ahead[rank, : len(found)] = found
    held = np.zeros((len(tuples), OLD + 1), dtype=np.int64)
    for rank, t in enumerate(tuples):
        for label in t:
            held[rank, min(label, OLD)] += 1
    return labels, rank_of, ahead, held


LABELS_OF, RANK_OF, UPGRADES, HELD_OF = _label_tables()
assert len(LABELS_OF) < 1 << 12


@_uncounted(inline="always")
def _rank(new: IntArray, count: int, rank_of: IntArray) -> int:
    """The rank of the first `count` labels of `new` (sorted in place, the rest idle)."""
    for i in range(count, SLOTS):
        new[i] = 0
    for i in range(1, count):  # insertion sort, descending
        x = new[i]
        j = i - 1
        while j >= 0 and new[j] < x:
            new[j + 1] = new[j]
            j -= 1
        new[j + 1] = x
    return int(rank_of[((new[0] * LABELS + new[1]) * LABELS + new[2]) * LABELS + new[3]])


@_uncounted(inline="always")
def _below(theta: int, slack: int, owes: int) -> int:
    """The most a state owing `owes` > `slack` could still score: a play's score is at most
    the relaxation's bound less its penalties, and the slack is the bound less the threshold
    less what the choices outside the program owe, rounded down in the penalties' scale."""
    return theta - 1 - (owes - slack - 1) // PENALTY_SCALE


@_uncounted(inline="always")
def _bits(subset: int) -> int:
    """How many of the four lowest bits are set."""
    return (0x4332322132212110 >> (4 * (subset & 15))) & 15


@_uncounted()
def _slot(key: int, mask: int) -> int:
    k = key ^ (key >> 29)
    k = k * 0x5851F42D4C957F2D
    k = k ^ (k >> 32)
    return int(k & mask)


@_uncounted()
def _find(key: int, keys: IntArray, slots_index: IntArray, mask: int) -> int:
    h = _slot(key, mask)
    while True:
        at = slots_index[h]
        if at < 0 or keys[at] == key:
            return int(at)
        h = (h + 1) & mask


@_uncounted()
def _score_of(key: int, keys: IntArray, scores: IntArray, slots_index: IntArray, mask: int) -> int:
    """The score of the state with this key in this step's hash table, as it was before
    `_drop_dominated` marked it; -1 if it is not there or no longer standing."""
    at = _find(key, keys, slots_index, mask)
    if at < 0:
        return -1
    score = scores[at]
    return int(-2 - score if score < -1 else score)


@_uncounted()
def _drop_dominated(
    keys: IntArray,
    scores: IntArray,
    lo: int,
    hi: int,
    slots_index: IntArray,
    mask: int,
    upgrades: IntArray,
    free_jokers: bool,
    colour: int,
) -> None:
    """Mark (score -1) every state still standing that a state one slot ahead, still standing
    and scoring as much, dominates.

    A free run of 3+ can do whatever an idle slot can (end now, go on where the idle slot
    would start a run, or end and host an old run), and a longer free run whatever a shorter
    one can (go on), so a state with one slot so upgraded and no lower score loses nothing.
    When jokers score nothing, neither does the same state with fewer jokers used.

    After the step of a colour only that colour's slots are upgraded: most states one slot
    ahead in another colour came from parents the steps before compared already, and the
    lookups were a third of a pass (checking every colour cost more time than the states it
    saved). A state is first marked -2 - score, so that the states after it
    still read its score.
    """
    for index in range(lo, hi):
        key = keys[index]
        score = scores[index]
        if score < 0:
            continue
        dominated = False
        if free_jokers:
            for fewer in range((key >> 48) & 3):
                other = key & ~(np.int64(3) << 48) | (fewer << 48)
                if _score_of(other, keys, scores, slots_index, mask) >= score:
                    dominated = True
                    break
        for c in range(0 if dominated else 4):
            if colour < 4 and c != colour:
                continue
            shift = 12 * c
            rank = (key >> shift) & 4095
            others = key & ~(np.int64(4095) << shift)
            for k in range(upgrades.shape[1]):
                up = upgrades[rank, k]
                if up < 0:
                    break
                if _score_of(others | (up << shift), keys, scores, slots_index, mask) >= score:
                    dominated = True
                    break
            if dominated:
                break
        if dominated:
            scores[index] = -2 - score
    for index in range(lo, hi):
        if scores[index] < -1:
            scores[index] = -1


@njit(cache=True, nogil=True)
def _keep_best(
    keys: IntArray,
    scores: IntArray,
    lo: int,
    hi: int,
    beam: int,
    bound: int,
    joker_score: int,
    table_jokers: int,
    rack_jokers: int,
    groups_lost: IntArray,  # per leftover code: old groups of the number given up
) -> None:
    """Mark (score -1) all but the `beam` states of highest bound (ties kept), among equal
    bounds those with fewer jokers used: a joker in hand still fits anywhere, and the finer
    order keeps fewer ties (the bench: a third less narrow pass, as many first plays best)."""
    limits = np.full(hi - lo, -1, dtype=np.int64)
    for index in range(lo, hi):
        score = scores[index]
        if score < 0:
            continue
        key = keys[index]
        u = (key >> 48) & 3
        bound_here = (
            score
            + bound
            + joker_score * (rack_jokers - max(0, u - table_jokers))
            - groups_lost[(key >> 50) & 255]
        )
        limits[index - lo] = bound_here * 4 + 3 - u
    cutoff = np.partition(limits, len(limits) - beam)[len(limits) - beam]
    for index in range(lo, hi):
        if limits[index - lo] < cutoff:
            scores[index] = -1


def _add_sorted(left: int, count: int, g: int) -> int:
    """The leftovers of the first `count` colours (sorted, largest first) and one more,
    sorted again: where no old group is at stake only how many colours have 1 or 2 matters."""
    out = 0
    placed = False
    at = 0
    for i in range(count):
        have = (left >> (2 * i)) & 3
        if not placed and g > have:
            out |= g << (2 * at)
            at += 1
            placed = True
        out |= have << (2 * at)
        at += 1
    if not placed:
        out |= g << (2 * at)
    return out


# ADD_SORTED[left, count, g] = _add_sorted(left, count, g), read by the program from the
# table (a tenth less time on the long passes than computing it each move).
ADD_SORTED = np.array(
    [
        [[_add_sorted(left, count, g) for g in range(3)] for count in range(4)]
        for left in range(256)
    ],
    dtype=np.int64,
)


@njit(cache=True, nogil=True)
def _grow(a: IntArray, size: int) -> IntArray:
    b = np.empty(size, dtype=np.int64)
    b[: len(a)] = a
    return b


@_uncounted()
def _put(
    keys: IntArray,
    scores: IntArray,
    owed: IntArray,
    parents: IntArray,
    actions: IntArray,
    slots_index: IntArray,
    mask: int,
    size: int,
    key: int,
    score: int,
    penalties: tuple[IntArray, ...] | None,
    owes: int,
    parent: int,
    action: int,
) -> int:
    """Add a state to this step's hash table, or raise the score of the same state already
    there; the new count of states. The caller has made room (`_room`).

    Of two ways to one state the higher score stands, and it owes the larger of the two
    penalties (see `search`), the other's less what it scored less: both bound what
    the state's futures may add. Without `penalties` (a pass compiled apart, see
    `search`) it keeps no debts."""
    h = _slot(key, mask)
    while True:
        at = slots_index[h]
        if at < 0:
            slots_index[h] = size
            keys[size] = key
            scores[size] = score
            if penalties is not None:
                owed[size] = owes
            parents[size] = parent
            actions[size] = action
            return size + 1
        if keys[at] == key:
            before = scores[at]
            if before < score:
                scores[at] = score
                parents[at] = parent
                actions[at] = action
                if penalties is not None:
                    owed[at] = max(owes, owed[at] - PENALTY_SCALE * (score - before))
            elif penalties is not None:
                owed[at] = max(owed[at], owes - PENALTY_SCALE * (before - score))
            return size
        h = (h + 1) & mask


@njit(cache=True, nogil=True)
def _room(
    keys: IntArray,
    scores: IntArray,
    owed: IntArray,
    parents: IntArray,
    actions: IntArray,
    slots_index: IntArray,
    table_bits: int,
    level_begin: int,
    size: int,
    room: int,
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, int]:
    """The pass's arrays grown to hold `room` states, and the step's hash table to hold them
    at most half full (rehashed), with its size in bits.

    Made before a state is expanded, for as many states as it may add, so that `_put` never
    grows an array (see the module's docstring).
    """
    if room > len(keys):
        grown = max(2 * len(keys), room)
        keys = _grow(keys, grown)
        scores = _grow(scores, grown)
        owed = _grow(owed, grown)
        parents = _grow(parents, grown)
        actions = _grow(actions, grown)
    if 2 * (room - level_begin) > (1 << table_bits) - 1:
        while 2 * (room - level_begin) > (1 << table_bits) - 1:
            table_bits += 1
        mask = (1 << table_bits) - 1
        slots_index = np.full(1 << table_bits, -1, dtype=np.int64)
        for j in range(level_begin, size):
            h = _slot(keys[j], mask)
            while slots_index[h] >= 0:
                h = (h + 1) & mask
            slots_index[h] = j
    return keys, scores, owed, parents, actions, slots_index, table_bits


# One long function: the hot loop over states and moves, whose parts share many locals (the
# state being expanded, its colour's slots, the move) that calls would pass back and forth.
@_uncounted()
def _expand(
    step: int,
    lo: int,
    hi: int,
    theta: int,
    attach: bool,
    joker_score: int,
    jokers: IntArray,
    tables: tuple[IntArray, ...],
    kept_ahead: IntArray,
    kept_cap: IntArray,
    bound: int,
    tile_weight: int,
    point_weight: int,
    penalties: tuple[IntArray, ...] | None,
    slack: int,
    keys: IntArray,
    scores: IntArray,
    owed: IntArray,
    parents: IntArray,
    actions: IntArray,
    slots_index: IntArray,
    mask: int,
    level_begin: int,
    size: int,
    new: IntArray,  # scratch: the labels of a colour after a move
    carried: IntArray,  # scratch: the old runs it carries on
    cut: IntArray,  # (1,): the most any state dropped below the threshold could still score
) -> tuple[int, int, int]:
    """Expand the states `lo`..`hi` - 1 of a step into the next step's hash table, until one
    may add more states than the arrays or the table have room for.

    Returns (the first state not expanded, `hi` once all are; the count of states; the room
    the state not expanded needs).
    """
    (
        table_cnt,  # (4, 14): table copies of colour c, number v
        rack_cnt,  # (4, 14)
        run_end,  # per old run
        run_jokers,  # per old run: bit v set where a joker stands for number v
        run_of,  # (4, MAX_OLD_RUNS_PER_COLOUR): old run id of each local index
        run_local,  # per old run: its local index in its colour
        starts,  # (4, 14, MAX_STARTS): old runs of colour c starting at v
        start_count,  # (4, 14)
        group_best,  # (14, 256, 3): most old groups kept, -1 if the rest won't split
        symmetric,  # (14,): 1 where group_best ignores which colour a leftover has
        number_points,  # (14,): the points of a tile of each number (see `_rearrange`)
        labels_of,  # LABELS_OF, RANK_OF, HELD_OF, ADD_SORTED
        rank_of,
        held_of,
        add_sorted,  # ADD_SORTED
    ) = tables
    v = step // STEPS_PER_NUMBER + 1
    c = step % STEPS_PER_NUMBER
    table_jokers = jokers[0]
    rack_jokers = jokers[1]
    total_jokers = table_jokers + rack_jokers
    per_tile = tile_weight + number_points[v] * point_weight  # the score of a rack copy laid
    start_jokers = 0  # bit k: a joker stands for v in the k-th old run of colour c starting at v
    if c < 4:
        for k in range(start_count[c, v]):
            start_jokers |= ((run_jokers[starts[c, v, k]] >> v) & 1) << k
    for index in range(lo, hi):
        key = keys[index]
        score = scores[index]
        if score < 0:
            continue  # dominated
        debt = 0
        if penalties is not None:
            debt = owed[index]
            if debt > slack:
                cut[0] = max(cut[0], _below(theta, slack, debt))
                continue  # its penalties bound it below the threshold
        used = (key >> 48) & 3
        if c == 4:
            room = size + total_jokers - used + 1
            if room > len(keys) or 2 * (room - level_begin) > mask:
                return index, size, room
            g = (key >> 50) & 255
            base = key & ((1 << 48) - 1)
            for extra in range(total_jokers - used + 1):
                kept = group_best[v, g, extra]
                if kept < 0:
                    continue
                u = used + extra
                gain = kept + joker_score * (max(0, u - table_jokers) - max(0, used - table_jokers))
                if v == 13 and u < table_jokers:
                    continue
                total = score + gain
                limit = total + bound + joker_score * (rack_jokers - max(0, u - table_jokers))
                if v == 13:
                    limit = total
                if limit < theta:
                    cut[0] = max(cut[0], limit)
                    continue
                owes = debt
                if penalties is not None:
                    owes += penalties[2][v, kept]
                    if owes > slack:
                        cut[0] = max(cut[0], _below(theta, slack, owes))
                        continue
                new_key = base | (u << 48)
                size = _put(
                    keys,
                    scores,
                    owed,
                    parents,
                    actions,
                    slots_index,
                    mask,
                    size,
                    new_key,
                    total,
                    penalties,
                    owes,
                    index,
                    extra,
                )
            continue
        shift = 12 * c
        rank = (key >> shift) & 4095
        t = table_cnt[c, v]
        r = rack_cnt[c, v]
        # the colour's slots, counted by label from a table (a tenth less time a pass than
        # reading the four labels), then the old runs, which come first
        n0 = held_of[rank, 0]
        n1 = held_of[rank, 1]
        n2 = held_of[rank, 2]
        n3 = held_of[rank, 3]
        n4 = held_of[rank, TRAILING_JOKER]
        old_reals = 0
        old_jokers = 0
        n_carried = 0
        for i in range(held_of[rank, OLD]):
            label = labels_of[rank, i]
            run = run_of[c, label - OLD]
            if (run_jokers[run] >> v) & 1:
                old_jokers += 1
            else:
                old_reals += 1
            if run_end[run] != v:
                carried[n_carried] = label
                n_carried += 1
        if n1 > 0 and v > 12:
            continue
        n_starts = start_count[c, v]
        # at most one state a move: pairs (c3r, c3j) and (sr, sj) of sums up to n3 and n0
        room = size + (n1 + 1) * (n4 + 1) * (n2 + 1) * (n3 + 1) * (n3 + 2) * (n0 + 1) * (
            n0 + 2
        ) // 4 * ((r + 1) << n_starts)
        if room > len(keys) or 2 * (room - level_begin) > mask:
            return index, size, room
        others = key & ~(np.int64(4095) << shift) & ~(np.int64(3) << 48)
        # Attaching (see _rearrange), a joker may not end a run of three or
        # more, nor start one except as 11 (as in J R12 R13).
        last_joker = 0 if attach and v == 13 else 1
        # Free runs may go on or start in at most two slots (those of label 1, 2 or 4 must
        # go on, and already do), and none starts past 11.
        opening = MAX_FREE - n1 - n2 - n4 if v <= 11 else 0
        # The copies and jokers the old runs kept leave to the free runs (and old runs
        # starting here): the loops stop where a move would take more.
        reals_left = t + r - old_reals
        jokers_left = total_jokers - used - old_jokers
        if reals_left < 0 or jokers_left < 0:
            continue
        for j1 in range(min(n1, jokers_left) + 1):
            for j4 in range(min(n4 * last_joker, jokers_left - j1) + 1):
                for j2 in range(min(n2, jokers_left - j1 - j4) + 1):
                    going = n1 - j1 + n2 - j2 + n4 - j4  # real tiles of runs that must go on
                    if going > reals_left:
                        continue
                    wild = j1 + j4 + j2
                    for c3r in range(min(n3, reals_left - going) + 1):
                        for c3j in range(min((n3 - c3r) * last_joker, jokers_left - wild) + 1):
                            ended = n3 - c3r - c3j
                            starting = max(0, opening - c3r - c3j)
                            for sr in range(min(n0, starting, reals_left - going - c3r) + 1):
                                jokers_starting = min(
                                    min(n0, starting) - sr, jokers_left - wild - c3j
                                )
                                for sj in range(1 if attach and v != 11 else jokers_starting + 1):
                                    hosts = n0 - sr - sj + ended
                                    for chosen in range(1 << n_starts):
                                        count = _bits(chosen)
                                        s_jokers = _bits(chosen & start_jokers)
                                        s_reals = count - s_jokers
                                        if count > hosts:
                                            continue
                                        reals = old_reals + going + c3r + sr + s_reals
                                        u = used + old_jokers + wild + c3j + sj + s_jokers
                                        if u > total_jokers or reals > t + r:
                                            continue
                                        gained = (
                                            score
                                            + count
                                            + joker_score
                                            * (
                                                max(0, u - table_jokers)
                                                - max(0, used - table_jokers)
                                            )
                                        )
                                        ahead = bound + joker_score * (
                                            rack_jokers - max(0, u - table_jokers)
                                        )
                                        new_rank = -1  # found once a successor passes
                                        starting_debt = debt
                                        if penalties is not None:
                                            starting_debt += penalties[1][c, v, chosen]
                                        for x in range(max(t, reals), t + r + 1):
                                            g = x - reals
                                            total = gained + (x - t) * per_tile
                                            left = (others >> 50) & 255
                                            if symmetric[v]:
                                                left = add_sorted[left, c, g]
                                            else:
                                                left |= g << (2 * c)
                                            groups_left = kept_ahead[
                                                v, c, left, min(2, total_jokers - u)
                                            ]
                                            if groups_left < 0:
                                                continue
                                            most = total + ahead + groups_left - kept_cap[v]
                                            if most < theta:
                                                cut[0] = max(cut[0], most)
                                                continue
                                            owes = starting_debt
                                            if penalties is not None:
                                                owes += penalties[0][c, v, x - t]
                                                if owes > slack:
                                                    cut[0] = max(cut[0], _below(theta, slack, owes))
                                                    continue
                                            if new_rank < 0:
                                                m = 0
                                                for i in range(n_carried):
                                                    new[m] = carried[i]
                                                    m += 1
                                                for _ in range(n1):
                                                    new[m] = 2
                                                    m += 1
                                                for _ in range(n2 + c3r + n4 - j4):
                                                    new[m] = 3
                                                    m += 1
                                                for _ in range(c3j + j4):
                                                    new[m] = TRAILING_JOKER if attach else 3
                                                    m += 1
                                                for _ in range(sr + sj):
                                                    new[m] = 1
                                                    m += 1
                                                for k in range(n_starts):
                                                    if (chosen >> k) & 1:
                                                        new[m] = OLD + run_local[starts[c, v, k]]
                                                        m += 1
                                                new_rank = _rank(new, m, rank_of)
                                            new_key = (
                                                (others & ((1 << 50) - 1))
                                                | (new_rank << shift)
                                                | (u << 48)
                                                | (left << 50)
                                            )
                                            action = (
                                                j1
                                                | (j2 << 3)
                                                | (c3r << 6)
                                                | (c3j << 9)
                                                | (sr << 12)
                                                | (sj << 15)
                                                | (chosen << 18)
                                                | (x << 24)
                                                | (j4 << 27)
                                            )
                                            size = _put(
                                                keys,
                                                scores,
                                                owed,
                                                parents,
                                                actions,
                                                slots_index,
                                                mask,
                                                size,
                                                new_key,
                                                total,
                                                penalties,
                                                owes,
                                                index,
                                                action,
                                            )
    return hi, size, 0


@njit(cache=True, nogil=True)
def search(
    theta: int,
    beam: int,  # if positive, keep only about this many states per step, the most promising
    budget: int,  # if positive, give up (found -1) once a pass holds more states than this
    attach: bool,  # jokers score nothing and stand only where needed, see _rearrange
    joker_score: int,
    jokers: IntArray,  # (table jokers, rack jokers)
    tables: tuple[IntArray, ...],  # the problem's and the labels' arrays, see `_expand`
    kept_ahead: IntArray,  # (14, 4, 256, 3) and (14,): see _groups
    kept_cap: IntArray,
    bound_after: IntArray,  # (STEPS,): most score still possible after each step
    tile_weight: int,
    point_weight: int,
    penalties: tuple[IntArray, ...] | None,  # see below
    slack: int,
    upgrades: IntArray,
    workspace: _Workspace,
) -> tuple[int, int, IntArray, IntArray, _Workspace, int]:
    """One pass at threshold `theta`.

    With `penalties` (from the linear relaxation's prices, scaled by `PENALTY_SCALE`:
    by tile type and rack copies laid, by colour, number and old runs starting there kept,
    by number and old groups kept) a state also owes what its choices so far take off the
    relaxation's bound (`_bound`), and one owing more than `slack` cannot reach the threshold.
    A pass without them (None) is compiled apart, without the debts (numba prunes the
    branches on an argument that is None), which keeps the passes that need none as fast.

    The pass's arrays come in `workspace` (keys, scores, debts, parents, actions of the
    states, and the hash table's slots: any contents, the first five at least `MIN_STATES`
    long) and go back out with the rest, grown if the pass outgrew them, for the next pass
    to reuse: fresh arrays this large fault in a page per 4 KiB on first touch, which took
    about a twentieth of the slow solves of bench/bench_rummikub_solver.py (under perf).

    Returns (found: 1, 0, or -1 out of budget; best score; action per step; where each
    step's states begin in the pass's arrays; the workspace; the cut: the most any state
    dropped for its bound or its debts could still have scored, `NOTHING_CUT` if none was, so
    that when nothing is found no play of the problem, within the relaxation's fixings it was
    given, scores more than the cut).
    """
    table_jokers = jokers[0]
    rack_jokers = jokers[1]
    total_jokers = table_jokers + rack_jokers
    keys, scores, owed, parents, actions, slots_index = workspace
    level_start = np.zeros(STEPS + 2, dtype=np.int64)
    keys[0] = 0
    scores[0] = 0
    owed[0] = 0
    parents[0] = -1
    actions[0] = 0
    size = 1
    level_start[1] = 1
    new = np.zeros(SLOTS, dtype=np.int64)
    carried = np.zeros(SLOTS, dtype=np.int64)
    cut = np.full(1, NOTHING_CUT, dtype=np.int64)
    for step in range(STEPS):
        v = step // STEPS_PER_NUMBER + 1
        c = step % STEPS_PER_NUMBER
        lo = level_start[step]
        hi = level_start[step + 1]
        # A fresh hash table sized for this step (it grows if the step outgrows it); only
        # its used prefix is cleared, since steps after a large one are often small (at
        # 4096 slots or more, clearing took half the time of a pass that finds nothing).
        # At least 512 slots: one state may add dozens, and `_room` wants the table at
        # most half full with all of them. A large step's table starts at eight slots a
        # state it expands, which spares most rehashing as it grows (a tenth less time on
        # the long passes than four).
        table_bits = 9
        while (1 << table_bits) < max(4 * (hi - lo) + 256, 8 * (hi - lo)):
            table_bits += 1
        if len(slots_index) < (1 << table_bits):
            slots_index = np.full(1 << table_bits, -1, dtype=np.int64)
        else:
            slots_index[: 1 << table_bits] = -1
        mask = (1 << table_bits) - 1
        level_begin = size
        index = lo
        while True:
            index, size, room = _expand(
                step,
                index,
                hi,
                theta,
                attach,
                joker_score,
                jokers,
                tables,
                kept_ahead,
                kept_cap,
                bound_after[step],
                tile_weight,
                point_weight,
                penalties,
                slack,
                keys,
                scores,
                owed,
                parents,
                actions,
                slots_index,
                mask,
                level_begin,
                size,
                new,
                carried,
                cut,
            )
            if index == hi:
                break
            keys, scores, owed, parents, actions, slots_index, table_bits = _room(
                keys,
                scores,
                owed,
                parents,
                actions,
                slots_index,
                table_bits,
                level_begin,
                size,
                room,
            )
            mask = (1 << table_bits) - 1
        level_start[step + 2] = size
        if 0 < budget < size:
            workspace = (keys, scores, owed, parents, actions, slots_index)
            return -1, 0, np.zeros(STEPS, np.int64), level_start, workspace, cut[0]
        if beam > 0 and size - level_begin > beam and step < STEPS - 1:
            _keep_best(
                keys,
                scores,
                level_begin,
                size,
                beam,
                bound_after[step],
                joker_score,
                table_jokers,
                rack_jokers,
                kept_cap[v] - kept_ahead[v, c, :, min(2, total_jokers)]
                if c < 4
                else np.zeros(256, dtype=np.int64),
            )
        # After the beam, so a narrow pass looks up the upgrades of the states it keeps only
        # (a fifth of its lookups; dominated states were a third of its time).
        _drop_dominated(keys, scores, level_begin, size, slots_index, mask, upgrades, attach, c)
    workspace = (keys, scores, owed, parents, actions, slots_index)
    path_actions = np.zeros(STEPS, dtype=np.int64)
    lo = level_start[STEPS]
    hi = level_start[STEPS + 1]
    if hi == lo:
        return 0, 0, path_actions, level_start, workspace, cut[0]
    best = lo
    for index in range(lo, hi):
        if scores[index] > scores[best]:
            best = index
    at = best
    for step in range(STEPS - 1, -1, -1):
        path_actions[step] = actions[at]
        at = parents[at]
    return 1, int(scores[best]), path_actions, level_start, workspace, cut[0]


_typed_search = cast(Callable[..., tuple[int, int, IntArray, IntArray, _Workspace, int]], search)
# Each thread's workspace (see `search`), kept between passes while it holds at most
# `KEPT_STATES` states (a few MiB; a larger one, from a rare long pass, is let go).
MIN_STATES = 1 << 14
KEPT_STATES = 1 << 18
_workspaces = threading.local()


def _workspace() -> _Workspace:
    held: _Workspace | None = getattr(_workspaces, "arrays", None)
    if held is None:
        keys, scores, owed, parents, actions, slots = (
            np.empty(MIN_STATES, dtype=np.int64) for _ in range(6)
        )
        held = (keys, scores, owed, parents, actions, slots)
    return held


def run_pass(
    theta: int,
    beam: int,
    budget: int,
    attach: bool,
    joker_score: int,
    arrays: tuple[IntArray, ...],
    bound_after: IntArray,
    tile_weight: int,
    point_weight: int,
    penalties: tuple[IntArray, ...] | None = None,
    slack: int = 0,
) -> tuple[int, int, IntArray, int, int, int]:
    """One pass of `search` over a problem's `arrays` (jokers, the problem's arrays of
    `_expand`, kept_ahead, kept_cap): (found: 1, 0, or -1 out of budget; best score; action
    per step; states the pass held; steps it completed; its cut, see `search`). Without
    `penalties` no state owes any."""
    jokers, *tables, kept_ahead, kept_cap = arrays
    found, best, actions, levels, workspace, cut = _typed_search(
        theta,
        beam,
        budget,
        attach,
        joker_score,
        jokers,
        (*tables, LABELS_OF, RANK_OF, HELD_OF, ADD_SORTED),
        kept_ahead,
        kept_cap,
        bound_after,
        tile_weight,
        point_weight,
        penalties,
        slack,
        UPGRADES,
        _workspace(),
    )
    _workspaces.arrays = workspace if len(workspace[0]) <= KEPT_STATES else None
    reached = int(np.count_nonzero(levels[2:]))
    return int(found), int(best), actions, int(levels.max()), reached, int(cut)
