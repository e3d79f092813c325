"""The baseline Gin Rummy bot: greedy on deadwood, knocks as soon as it may.

It reads only its seat's view (own cards, the discard pile) and the legal actions: it takes the
upcard or the discard top when that lowers its deadwood, else draws from the stock; it goes
big gin, gin or knocks (with the card that leaves the least deadwood) whenever it may; else it
discards the card whose loss leaves the least deadwood, the highest such card first. Against a
knock it lays off its best.
"""

from __future__ import annotations

import random
from typing import Any

from app.bots.base import Action, View
from app.games.gin_rummy import min_deadwood
from app.games.gin_rummy.cards import card_points, parse_card

_ENDINGS = ("big_gin", "gin", "knock")


def _points(name: str) -> int:
    return card_points(parse_card(name))


def _without(cards: list[str], card: str) -> list[str]:
    return [held for held in cards if held != card]


class BasicGinBot:
    """Chooses from the legal actions using its own cards and the discard pile only."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, legal: list[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        kinds = {action["type"] for action in legal}
        me = view.get("me") or {}
        hand: list[str] = list(me.get("hand") or [])
        for ending in _ENDINGS:
            if ending in kinds:
                return self._best_ending(hand, [a for a in legal if a["type"] == ending])
        if "lay_off" in kinds:
            return legal[0]  # the best lay-offs come first
        if "take_upcard" in kinds or "draw" in kinds:
            return self._draw(view, hand, legal)
        discards = [action for action in legal if action["type"] == "discard"]
        if discards:
            return self._best_discard(hand, discards)
        return self.rng.choice(legal)

    def _best_ending(self, hand: list[str], endings: list[Action]) -> Action:
        if "card" not in endings[0]:
            return endings[0]
        return min(endings, key=lambda action: min_deadwood(_without(hand, action["card"])))

    def _best_discard(self, hand: list[str], discards: list[Action]) -> Action:
        def badness(action: Action) -> tuple[int, int, float]:
            card = action["card"]
            return (min_deadwood(_without(hand, card)), -_points(card), self.rng.random())

        return min(discards, key=badness)

    def _draw(self, view: View, hand: list[str], legal: list[Action]) -> Action:
        top = _discard_top(view)
        take = next(
            (
                action
                for action in legal
                if action["type"] == "take_upcard"
                or (action["type"] == "draw" and action.get("source") == "discard")
            ),
            None,
        )
        if take is not None and top is not None and _improves(hand, top):
            return take
        return next(
            (action for action in legal if action["type"] == "pass" or action == _STOCK),
            legal[0],
        )


_STOCK: dict[str, Any] = {"type": "draw", "source": "stock"}


def _discard_top(view: View) -> str | None:
    me = view.get("me") or {}
    tables = view.get("tables") or []
    table = me.get("table")
    if table is None or table >= len(tables):
        return None
    pile = tables[table].get("discard_pile") or []
    return pile[-1] if pile else None


def _improves(hand: list[str], card: str) -> bool:
    """Whether taking `card` (and then discarding another card) lowers the deadwood."""
    now = min_deadwood(hand)
    held = [*hand, card]
    after = min(min_deadwood(_without(held, other)) for other in hand)
    return after < now
