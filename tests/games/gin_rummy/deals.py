"""Rigged first hands for rule tests: name the cards, get a match dealt exactly so."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from app.games.gin_rummy import GinRummy, min_deadwood
from app.games.gin_rummy.cards import CARD_NAMES


def rigged(
    non_dealer: str,
    dealer: str,
    upcard: str,
    stock: str = "",
    *,
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> GinRummy:
    """A two-player match whose first hand deals these cards; `stock` is its top, top first."""
    first, second, top = non_dealer.split(), dealer.split(), stock.split()
    assert len(first) == len(second) == 10
    named = [*first, *second, upcard, *top]
    rest = [card for card in CARD_NAMES if card not in named]
    dealt = [card for pair in zip(first, second, strict=True) for card in pair]
    return GinRummy.new(config or {}, 2, seed=seed, deck=[*dealt, upcard, *top, *rest])


def seats(match: GinRummy, table: int = 0) -> tuple[int, int]:
    """(non-dealer, dealer) of the current hand at a table, read from the public view."""
    first, second = match.view(None)["tables"][table]["seats"]
    return first, second


def table(match: GinRummy, seat: int | None = None, index: int = 0) -> dict[str, Any]:
    view: dict[str, Any] = match.view(seat)["tables"][index]
    return view


def outcome(match: GinRummy) -> dict[str, Any]:
    result: dict[str, Any] = table(match)["outcome"]
    return result


def knocked(
    knocker: str, defender: str, upcard: str, card: str = "C13", **config: object
) -> tuple[GinRummy, int, int]:
    """The non-dealer, dealt `knocker`, takes the upcard and knocks with `card`:
    (match, knocker, defender). Where the defender may choose its lay-offs, the hand then
    waits for it (`answer_knock`)."""
    match = rigged(knocker, defender, upcard, config=config)
    first, second = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "knock", "card": card})
    return match, first, second


def answer_knock(match: GinRummy, layoffs: list[dict[str, Any]] | None = None) -> None:
    """Where the table waits for the defender's lay-offs, the defender lays off `layoffs`
    (None: its best)."""
    view = table(match)
    if view["phase"] == "lay_off":
        action: dict[str, Any] = {"type": "lay_off"}
        if layoffs is not None:
            action["layoffs"] = layoffs
        match.apply(view["turn"], action)


def player_record(record: Mapping[str, Any], seat: int) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in record["players"] if p["seat"] == seat)
    return found


_ENDING_ORDER = {"big_gin": 0, "gin": 1, "knock": 2}


def greedy_action(
    match: GinRummy, seat: int, rng: random.Random, patience: float = 0.0
) -> dict[str, Any]:
    """Big gin, gin or (unless waiting for gin, with probability `patience`) a knock when it
    may; else draws at random and discards to the least deadwood."""
    legal = match.legal_actions(seat)
    endings = sorted(
        (a for a in legal if a["type"] in _ENDING_ORDER), key=lambda a: _ENDING_ORDER[a["type"]]
    )
    if endings and (endings[0]["type"] != "knock" or rng.random() >= patience):
        return endings[0]
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        return rng.choice(legal)
    hand = match.view(seat)["me"]["hand"]
    return min(
        discards,
        key=lambda a: (min_deadwood([c for c in hand if c != a["card"]]), rng.random()),
    )


def seeded_move(match: GinRummy, rng: random.Random) -> tuple[int | None, dict[str, Any]]:
    """The next move of a seeded random match: a new hand when one is over, else a seat to act
    playing at random three times in ten and greedily (patient for gin half the time)
    otherwise."""
    if match.phase == "hand_over":
        return None, {"type": "next_hand"}
    actor = rng.choice(match.to_act())
    legal = match.legal_actions(actor)
    careless = rng.random() < 0.3
    action = rng.choice(legal) if careless else greedy_action(match, actor, rng, 0.5)
    assert action in legal or "melds" in action
    return actor, action


def play_round(match: GinRummy, rng: random.Random) -> None:
    """Greedy play at every table until the round (or the match) is over."""
    while match.phase == "playing":
        seat = rng.choice(match.to_act())
        match.apply(seat, greedy_action(match, seat, rng))
