"""The exact meld finder: minimum deadwood and one best arrangement of any set of cards.

Why it is exact without a search tree: a card in a set cannot be in a run, and once the sets
are fixed the best runs are forced - in each suit every card inside a stretch of three or more
consecutive ranks can be melded (a stretch of any length is one run), and no other card can.
So the minimum is taken over the few ways to form sets (at most one set per rank) and each way
is scored with a table lookup per suit. Options that cannot win are pruned: a card that lies in
no run window is always better inside its rank's set than out of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from app.games.gin_rummy.cards import (
    CARD_INDEX,
    CARD_NAMES,
    SUIT_BITS,
    SUIT_WORD,
    from_mask,
    names,
    points,
    rank_of,
    suit_of,
)

_RANK_POINTS = [min(rank, 10) for rank in range(1, 14)]


def _word_points_table() -> list[int]:
    table = [0] * (1 << SUIT_BITS)
    for word in range(1, 1 << SUIT_BITS):
        low = word & -word
        table[word] = table[word ^ low] + _RANK_POINTS[low.bit_length() - 1]
    return table


def _run_cover(word: int) -> int:
    """Ranks of one suit that lie in some stretch of three or more consecutive ranks."""
    starts = word & (word >> 1) & (word >> 2)
    return starts | (starts << 1) | (starts << 2)


_WORD_POINTS = _word_points_table()
RUN_COVER: list[int] = [_run_cover(word) for word in range(1 << SUIT_BITS)]
# Deadwood of one suit's cards when only runs are formed.
RUN_DEADWOOD: list[int] = [_WORD_POINTS[word & ~RUN_COVER[word]] for word in range(1 << SUIT_BITS)]


# Where each suit's word starts in a mask.
_SUIT_SHIFTS = (0, SUIT_BITS, 2 * SUIT_BITS, 3 * SUIT_BITS)


def _deadwood_without(mask: int) -> int:
    return (
        RUN_DEADWOOD[mask & SUIT_WORD]
        + RUN_DEADWOOD[(mask >> 13) & SUIT_WORD]
        + RUN_DEADWOOD[(mask >> 26) & SUIT_WORD]
        + RUN_DEADWOOD[mask >> 39]
    )


def _set_options(words: tuple[int, int, int, int], rank_bit: int) -> list[int]:
    """Masks of the cards of one rank worth trying as a set (0 = no set)."""
    full = 0
    loose = 0
    coverable: list[int] = []
    for suit in range(4):
        if words[suit] & rank_bit:
            card = rank_bit << (SUIT_BITS * suit)
            full |= card
            if RUN_COVER[words[suit]] & rank_bit:
                coverable.append(card)
            else:
                loose += 1
    options = [full] if loose >= 3 else [0, full]
    if loose + len(coverable) == 4:
        options.extend(full ^ card for card in coverable)
    return options


def _set_choices(mask: int) -> list[int]:
    """Every combination of sets worth scoring, as masks of the cards placed in sets."""
    words = (
        mask & SUIT_WORD,
        (mask >> 13) & SUIT_WORD,
        (mask >> 26) & SUIT_WORD,
        mask >> 39,
    )
    w0, w1, w2, w3 = words
    triples = (w0 & w1 & (w2 | w3)) | ((w0 | w1) & w2 & w3)
    choices = [0]
    while triples:
        rank_bit = triples & -triples
        triples ^= rank_bit
        options = _set_options(words, rank_bit)
        if len(options) == 1:
            choices = [chosen | options[0] for chosen in choices]
        else:
            choices = [chosen | option for chosen in choices for option in options]
    return choices


def min_deadwood_mask(mask: int) -> int:
    """Minimum deadwood of the cards in a 52-bit mask."""
    table = RUN_DEADWOOD
    w0 = mask & SUIT_WORD
    w1 = (mask >> 13) & SUIT_WORD
    w2 = (mask >> 26) & SUIT_WORD
    w3 = mask >> 39
    if not (w0 & w1 & (w2 | w3)) | ((w0 | w1) & w2 & w3):
        return table[w0] + table[w1] + table[w2] + table[w3]
    best = 1 << 30
    for chosen in _set_choices(mask):
        rest = mask & ~chosen
        deadwood = (
            table[rest & SUIT_WORD]
            + table[(rest >> 13) & SUIT_WORD]
            + table[(rest >> 26) & SUIT_WORD]
            + table[rest >> 39]
        )
        if deadwood < best:
            best = deadwood
    return best


@dataclass(frozen=True)
class Arrangement:
    """Melds (each a tuple of cards, sets before runs) and the deadwood cards left over."""

    melds: tuple[tuple[int, ...], ...]
    deadwood: tuple[int, ...]

    @property
    def deadwood_points(self) -> int:
        return points(self.deadwood)

    def to_json(self) -> dict[str, object]:
        return {
            "melds": [names(meld) for meld in self.melds],
            "deadwood": names(self.deadwood),
            "deadwood_points": self.deadwood_points,
        }


def _stretches(covered: int) -> list[tuple[int, int]]:
    """The runs of one suit's ranks in `covered` (a RUN_COVER word): (first rank, length)."""
    found: list[tuple[int, int]] = []
    while covered:
        start = (covered & -covered).bit_length() - 1
        stretch = covered >> start
        # The number of consecutive ranks from `start`: the trailing ones of `stretch`.
        length = ((stretch + 1) & ~stretch).bit_length() - 1
        found.append((start, length))
        covered &= ~(((1 << length) - 1) << start)
    return found


def _runs_of(mask: int) -> list[tuple[int, ...]]:
    runs: list[tuple[int, ...]] = []
    for suit in range(4):
        covered = RUN_COVER[(mask >> (SUIT_BITS * suit)) & SUIT_WORD]
        for start, length in _stretches(covered):
            first = suit * SUIT_BITS + start
            runs.append(tuple(range(first, first + length)))
    return runs


def _sets_of(chosen: int) -> list[tuple[int, ...]]:
    """The sets the cards in `chosen` make (all its cards of one rank are one set), by rank."""
    sets: list[tuple[int, ...]] = []
    ranks = (chosen | chosen >> 13 | chosen >> 26 | chosen >> 39) & SUIT_WORD
    while ranks:
        low = ranks & -ranks
        ranks ^= low
        rank = low.bit_length() - 1
        sets.append(tuple([shift + rank for shift in _SUIT_SHIFTS if chosen >> shift & low]))
    return sets


def _arrangement_with_sets(mask: int, chosen: int) -> Arrangement:
    rest = mask & ~chosen
    runs = _runs_of(rest)
    in_runs = (
        RUN_COVER[rest & SUIT_WORD]
        | RUN_COVER[(rest >> 13) & SUIT_WORD] << 13
        | RUN_COVER[(rest >> 26) & SUIT_WORD] << 26
        | RUN_COVER[rest >> 39] << 39
    )
    deadwood = tuple(from_mask(rest & ~in_runs))
    melds = tuple(_sets_of(chosen) + runs) if chosen else tuple(runs)
    return Arrangement(melds=melds, deadwood=deadwood)


def _best_sets(mask: int) -> int:
    """The cards placed in sets by one minimum-deadwood arrangement (the first such choice)."""
    choices = _set_choices(mask)
    if len(choices) == 1:
        return choices[0]
    return min(choices, key=lambda sets: _deadwood_without(mask & ~sets))


def best_arrangement_mask(mask: int) -> Arrangement:
    """One arrangement of the cards in `mask` with the minimum deadwood."""
    return _arrangement_with_sets(mask, _best_sets(mask))


# Card names as a list: a slice of it is a run's names, already a list.
_NAME_LIST: list[str] = list(CARD_NAMES)


def arrangement_names(mask: int) -> tuple[list[list[str]], list[str], int, int]:
    """`best_arrangement_mask(mask)` as a view shows it, built from the masks without the
    arrangement's tuples: its melds' names, its deadwood's names, the deadwood points and
    the mask of the deadwood cards. The same arrangement, in the same order (sets by rank,
    then runs by suit and rank; cards ascending)."""
    chosen = _best_sets(mask)
    melds = [[_NAME_LIST[card] for card in cards] for cards in _sets_of(chosen)] if chosen else []
    rest = mask & ~chosen
    deadwood_mask = 0
    deadwood_points = 0
    for shift in _SUIT_SHIFTS:
        word = (rest >> shift) & SUIT_WORD
        if not word:
            continue
        covered = RUN_COVER[word]
        deadwood_points += RUN_DEADWOOD[word]
        deadwood_mask |= (word & ~covered) << shift
        if covered:
            for start, length in _stretches(covered):
                melds.append(_NAME_LIST[shift + start : shift + start + length])
    # Named bit by bit rather than through from_mask: a list and a call fewer on every move.
    deadwood: list[str] = []
    loose = deadwood_mask
    while loose:
        low = loose & -loose
        loose ^= low
        deadwood.append(_NAME_LIST[low.bit_length() - 1])
    return melds, deadwood, deadwood_points, deadwood_mask


def best_arrangements_mask(mask: int) -> list[Arrangement]:
    """Every minimum-deadwood arrangement that differs in its sets (runs are then forced)."""
    scored = [(_deadwood_without(mask & ~sets), sets) for sets in _set_choices(mask)]
    lowest = min(deadwood for deadwood, _ in scored)
    return [_arrangement_with_sets(mask, sets) for deadwood, sets in scored if deadwood == lowest]


def _mask_of_names(cards: Iterable[str]) -> int:
    mask = 0
    count = 0
    for name in cards:
        index = CARD_INDEX.get(name) if isinstance(name, str) else None
        if index is None:
            raise ValueError(f"unknown card {name!r}: expected a suit H, S, D, C and a rank 1-13")
        mask |= 1 << index
        count += 1
    if mask.bit_count() != count:
        raise ValueError("a card is named twice")
    return mask


def min_deadwood(cards: Iterable[str]) -> int:
    """Minimum deadwood of cards in notation ("H1", "S12", ...); ValueError on bad names."""
    return min_deadwood_mask(_mask_of_names(cards))


def best_arrangement(cards: Iterable[str]) -> Arrangement:
    """One minimum-deadwood arrangement of cards in notation; ValueError on bad names."""
    return best_arrangement_mask(_mask_of_names(cards))


def is_set(cards: Iterable[int]) -> bool:
    """Three or four cards of one rank."""
    group = list(cards)
    return 3 <= len(group) <= 4 and len({rank_of(card) for card in group}) == 1


def is_run(cards: Iterable[int]) -> bool:
    """Three or more consecutive ranks of one suit, ace low only."""
    group = sorted(cards)
    if len(group) < 3 or len({suit_of(card) for card in group}) != 1:
        return False
    return all(later - earlier == 1 for earlier, later in pairwise(group))


def is_meld(cards: Iterable[int]) -> bool:
    group = list(cards)
    return is_set(group) or is_run(group)
