"""The well-known simple Gin Rummy strategy, as a bench opponent for the strong bots.

It is the simple player of the Gin Rummy AI competitions (Neller's `SimpleGinRummyPlayer`,
EAAI 2021): take the face-up card (the first upcard or the discard top) only when it
completes a meld with cards already held; discard a highest-point card left out of the
best melds (never the card just taken; ties at random); knock, or go gin, as soon as the
rules allow; never lay off (against a knock it answers `lay_off` with none, so it plays this
way only where the defender chooses its lay-offs, the engine's default).
"""

from __future__ import annotations

import random

from app.bots.base import Action, View
from app.games.gin_rummy.cards import CARD_INDEX, CARD_POINTS, to_mask
from app.games.gin_rummy.melds import best_arrangement_mask

_ENDINGS = ("big_gin", "gin", "knock")


def _hand_mask(view: View) -> int:
    me = view.get("me") or {}
    return to_mask(CARD_INDEX[name] for name in me.get("hand") or [])


def _melded(mask: int) -> int:
    """The cards of one best arrangement's melds."""
    return to_mask(card for meld in best_arrangement_mask(mask).melds for card in meld)


def _discard_top(view: View) -> int | None:
    me = view.get("me") or {}
    table = (view.get("tables") or [])[me["table"]] if me.get("table") is not None else None
    pile = (table or {}).get("discard_pile") or []
    return CARD_INDEX[pile[-1]] if pile else None


class SimpleGinBot:
    """Chooses from the legal actions by the simple strategy (see the module docstring)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, legal: list[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        by_kind: dict[str, list[Action]] = {}
        for action in legal:
            by_kind.setdefault(action["type"], []).append(action)
        if "lay_off" in by_kind:
            return {"type": "lay_off", "layoffs": []}
        hand = _hand_mask(view)
        for ending in _ENDINGS:
            if ending in by_kind:
                return self._least_deadwood(hand, by_kind[ending])
        if "discard" in by_kind:
            return self._discard(hand, by_kind["discard"])
        top = _discard_top(view)
        take = by_kind.get("take_upcard", []) + [
            a for a in by_kind.get("draw", []) if a.get("source") == "discard"
        ]
        if take and top is not None and _melded(hand | 1 << top) >> top & 1:
            return take[0]
        rest = by_kind.get("pass", []) + [
            a for a in by_kind.get("draw", []) if a.get("source") == "stock"
        ]
        return rest[0] if rest else legal[0]

    def _discard(self, hand: int, options: list[Action]) -> Action:
        loose = hand & ~_melded(hand)
        pool = [a for a in options if loose >> CARD_INDEX[a["card"]] & 1] or options
        highest = max(CARD_POINTS[CARD_INDEX[a["card"]]] for a in pool)
        return self.rng.choice([a for a in pool if CARD_POINTS[CARD_INDEX[a["card"]]] == highest])

    def _least_deadwood(self, hand: int, endings: list[Action]) -> Action:
        """The ending whose set-aside card leaves the least deadwood (its first if none)."""
        if "card" not in endings[0]:
            return endings[0]
        # Every knock card offered leaves deadwood within the limit: set aside the highest
        # loose card, as the simple player discards it.
        return self._discard(hand, endings)
