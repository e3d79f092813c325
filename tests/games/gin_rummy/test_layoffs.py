"""The defender's answer to a knock is exact: brute force over every lay-off agrees."""

from __future__ import annotations

import itertools
import random

from app.games.gin_rummy import min_deadwood
from tests.games.gin_rummy.deals import answer_knock, outcome, player_record, rigged, seats


def rank(card: str) -> int:
    return int(card[1:])


def extends(meld: list[str], card: str) -> bool:
    """Whether `card` can be added to the meld as laid out so far."""
    if len({rank(c) for c in meld}) == 1:
        return len(meld) == 3 and rank(card) == rank(meld[0])
    if card[0] != meld[0][0]:
        return False
    ranks = [rank(c) for c in meld]
    return rank(card) in (min(ranks) - 1, max(ranks) + 1)


def can_lay_off(melds: list[list[str]], cards: list[str]) -> bool:
    """Every card laid off in some order, each onto a meld as extended so far."""
    if not cards:
        return True
    for card in cards:
        rest = [c for c in cards if c != card]
        for index, meld in enumerate(melds):
            if extends(meld, card):
                grown = [*melds[:index], [*meld, card], *melds[index + 1 :]]
                if can_lay_off(grown, rest):
                    return True
    return False


def brute_force_defence(melds: list[list[str]], defender: list[str]) -> int:
    near = [
        card
        for card in defender
        if any(card[0] == c[0] or rank(card) == rank(c) for meld in melds for c in meld)
    ]
    best = min_deadwood(defender)
    for size in range(1, len(near) + 1):
        for laid in itertools.combinations(near, size):
            if can_lay_off(melds, list(laid)):
                best = min(best, min_deadwood([c for c in defender if c not in laid]))
    return best


def knock_scenarios(count: int) -> list[tuple[list[str], list[str], str]]:
    """(knocker's 10 cards, defender's 10, upcard) where the knocker can knock after taking it."""
    rng = random.Random(77)
    found = []
    while len(found) < count:
        low = rng.randint(1, 8)
        pool = [f"{suit}{r}" for suit in "CDHS" for r in range(low, low + 6)]
        cards = rng.sample(pool, 11)
        knocker, upcard = cards[:10], cards[10]
        if not 0 < min_deadwood([*knocker[:9], upcard]) <= 10:
            continue
        others = [f"{suit}{r}" for suit in "CDHS" for r in range(1, 14)]
        others = [c for c in others if c not in cards]
        found.append((knocker, rng.sample(others, 10), upcard))
    return found


def test_the_defenders_deadwood_after_lay_offs_equals_brute_force() -> None:
    for knocker, defender, upcard in knock_scenarios(100):
        match = rigged(" ".join(knocker), " ".join(defender), upcard)
        first, second = seats(match)
        match.apply(first, {"type": "take_upcard"})
        match.apply(first, {"type": "knock", "card": knocker[9]})
        answer_knock(match)
        record = outcome(match)
        melds = player_record(record, first)["melds"]
        found = player_record(record, second)["deadwood_points"]
        assert found == brute_force_defence(melds, defender), (knocker, defender, upcard)
