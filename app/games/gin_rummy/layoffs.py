"""The defender's best answer to a knock: own melds plus lay-offs onto the knocker's melds.

A defender card can be laid off onto a set of three (the missing suit) or onto either end of a
run, also card after card, so each end of a run offers a chain of defender cards of which any
prefix may be laid off. Laying a card off is not always best (it may be worth more inside the
defender's own meld), so every combination of prefixes is scored exactly; there are few.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.games.gin_rummy.cards import CARD_POINTS, SUIT_BITS, names, rank_of, suit_of
from app.games.gin_rummy.melds import (
    Arrangement,
    best_arrangement_mask,
    best_arrangements_mask,
    is_set,
    min_deadwood_mask,
)


@dataclass(frozen=True)
class Defence:
    """The defender's melds and deadwood after laying off `layoffs` (card, knocker meld index)."""

    arrangement: Arrangement
    layoffs: tuple[tuple[int, int], ...]


def _chains(defender: int, meld: tuple[int, ...]) -> list[list[int]]:
    """Runs of defender cards that can be laid off onto one meld, nearest card first."""
    if is_set(meld):
        if len(meld) != 3:
            return []
        rank = rank_of(meld[0])
        missing = [
            suit * SUIT_BITS + rank - 1
            for suit in range(4)
            if suit * SUIT_BITS + rank - 1 not in meld
        ]
        return [[card] for card in missing if defender >> card & 1]
    suit = suit_of(meld[0])
    low, high = min(rank_of(card) for card in meld), max(rank_of(card) for card in meld)
    chains = []
    for ranks in (range(low - 1, 0, -1), range(high + 1, 14)):
        chain = []
        for rank in ranks:
            card = suit * SUIT_BITS + rank - 1
            if not defender >> card & 1:
                break
            chain.append(card)
        if chain:
            chains.append(chain)
    return chains


def chosen_defence(
    defender: int, knocker_melds: tuple[tuple[int, ...], ...], layoffs: list[tuple[int, int]]
) -> Defence:
    """The defender's answer when it lays off exactly `layoffs` (card, knocker meld index):
    those cards go, the rest is laid out with the least deadwood. Raises ValueError naming
    the first lay-off that is not possible."""
    chosen: dict[int, int] = {}
    for card, index in layoffs:
        shown = names([card])[0]
        if not defender >> card & 1:
            raise ValueError(f"{shown} is not in your hand")
        if card in chosen:
            raise ValueError(f"{shown} is laid off twice")
        if not 0 <= index < len(knocker_melds):
            raise ValueError(f"the knocker has no meld {index}")
        chosen[card] = index
    for index, meld in enumerate(knocker_melds):
        onto = {card for card, target in chosen.items() if target == index}
        fits = set()
        for chain in _chains(defender, meld):
            # Along a run's end, a card fits only after every card between it and the meld.
            for card in chain:
                if card not in onto:
                    break
                fits.add(card)
        for card in sorted(onto - fits):
            shown, target = names([card])[0], " ".join(names(meld))
            raise ValueError(f"{shown} cannot be laid off onto {target}")
    remaining = defender
    for card in chosen:
        remaining &= ~(1 << card)
    return Defence(
        arrangement=best_arrangement_mask(remaining), layoffs=tuple(sorted(chosen.items()))
    )


def best_defence(defender: int, knocker_melds: tuple[tuple[int, ...], ...]) -> Defence:
    """The defender's arrangement and lay-offs with the lowest deadwood."""
    options: list[dict[int, int]] = [{}]
    for index, meld in enumerate(knocker_melds):
        for chain in _chains(defender, meld):
            options = [
                {**chosen, **{card: index for card in chain[:length] if card not in chosen}}
                for chosen in options
                for length in range(len(chain) + 1)
            ]

    def remaining(chosen: dict[int, int]) -> int:
        mask = defender
        for card in chosen:
            mask &= ~(1 << card)
        return mask

    best = min(options, key=lambda chosen: min_deadwood_mask(remaining(chosen)))
    return Defence(
        arrangement=best_arrangement_mask(remaining(best)),
        layoffs=tuple(sorted(best.items())),
    )


def knocker_layout(kept: int, seen: int, defender_known: int, defender_hidden: int) -> Arrangement:
    """The arrangement a knocker who lays out no melds of their own gets: among those with
    the least deadwood, the one that lets the defender lay off the fewest points, as far as
    the knocker can tell (the first such on a tie).

    It reads only what the knocker sees: `seen` are cards the defender cannot hold (the
    knocker's own, knock card included, and the discard pile), `defender_known` those the
    defender was seen taking from the pile and still holds, and `defender_hidden` how many
    other cards the defender holds. Arrangements with equal deadwood can differ in what they
    let the defender lay off (H4-H7 with 7-7-7, or H4-H6 with 7-7-7-7): a card that could be
    laid off counts its points times the chance that the defender holds it (1 for a card
    seen taken, else the defender's share of the unseen cards), a card beyond it in a run
    also times the chance of the card before it; a card the knocker sees ends the run.
    """
    candidates = best_arrangements_mask(kept)
    if len(candidates) == 1:
        return candidates[0]
    unseen = 52 - (seen | defender_known).bit_count()
    chance = defender_hidden / unseen if unseen else 0.0

    def exposure(layout: Arrangement) -> float:
        total = 0.0
        for chain in _open_ends(layout.melds):
            held = 1.0
            for card in chain:
                if seen >> card & 1:
                    break
                held *= 1.0 if defender_known >> card & 1 else chance
                total += held * CARD_POINTS[card]
        return total

    return min(candidates, key=exposure)


def _open_ends(melds: tuple[tuple[int, ...], ...]) -> list[list[int]]:
    """For each meld, the cards another hand could lay off onto it in turn: a three-card
    set's missing card; the cards below a run's lowest card and above its highest."""
    chains: list[list[int]] = []
    for meld in melds:
        if is_set(meld):
            if len(meld) == 3:
                rank = rank_of(meld[0])
                suits = {suit_of(card) for card in meld}
                chains += [[s * SUIT_BITS + rank - 1] for s in range(4) if s not in suits]
            continue
        suit = suit_of(meld[0])
        low, high = min(map(rank_of, meld)), max(map(rank_of, meld))
        chains.append([suit * SUIT_BITS + r - 1 for r in range(low - 1, 0, -1)])
        chains.append([suit * SUIT_BITS + r - 1 for r in range(high + 1, 14)])
    return chains
