"""Card notation, points and 52-bit masks.

A card is a small int: suit index * 13 + (rank - 1), suits in bridge order C, D, H, S (the
order also breaks ties in the low-card draw for the first dealer). A set of cards is a 52-bit
mask; suit s occupies bits 13*s .. 13*s+12, so one suit's ranks are one 13-bit word.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = ("C", "D", "H", "S")
RANKS = range(1, 14)
DECK_SIZE = 52
SUIT_BITS = 13
SUIT_WORD = (1 << SUIT_BITS) - 1

CARD_NAMES: tuple[str, ...] = tuple(f"{suit}{rank}" for suit in SUITS for rank in RANKS)
CARD_INDEX: dict[str, int] = {name: index for index, name in enumerate(CARD_NAMES)}
# Ace 1, two to ten face value, J/Q/K 10; by card number.
CARD_POINTS: tuple[int, ...] = tuple(min(rank, 10) for _suit in SUITS for rank in RANKS)


def suit_of(card: int) -> int:
    return card // SUIT_BITS


def rank_of(card: int) -> int:
    return card % SUIT_BITS + 1


def card_points(card: int) -> int:
    return CARD_POINTS[card]


def card_name(card: int) -> str:
    return CARD_NAMES[card]


def parse_card(name: object) -> int:
    """The card for a name such as "H7"; ValueError for anything else."""
    if not isinstance(name, str) or name not in CARD_INDEX:
        raise ValueError(f"unknown card {name!r}: expected a suit H, S, D, C and a rank 1-13")
    return CARD_INDEX[name]


def parse_cards(names: Iterable[object]) -> list[int]:
    """Cards for names; ValueError on an unknown name or a card named twice."""
    cards = [parse_card(name) for name in names]
    if len(set(cards)) != len(cards):
        raise ValueError("a card is named twice")
    return cards


# The three below are plain loops rather than sum(map(...)): compiled, a loop over typed ints
# runs without a call per card, and interpreted it is no slower.


def to_mask(cards: Iterable[int]) -> int:
    """The mask of distinct cards (a hand, a meld, the deck)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def from_mask(mask: int) -> list[int]:
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def names(cards: Iterable[int]) -> list[str]:
    """Names in display order: by suit, then rank."""
    return [CARD_NAMES[card] for card in sorted(cards)]


def points(cards: Iterable[int]) -> int:
    total = 0
    for card in cards:
        total += CARD_POINTS[card]
    return total
