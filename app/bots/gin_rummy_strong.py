"""A Gin Rummy bot that plays by expected value, in two levels ("normal", "hard").

Both levels look one draw ahead: a discard is judged by the expected deadwood after the next
draw from the stock (every unseen card equally likely), and the discard top is taken when
keeping it beats that expectation. The hard level also remembers what the opponent took,
threw away and passed over (`gin_rummy_memory`), samples the opponent's hand from the unseen
cards weighted by those clues (Monte Carlo), and
- scores each discard by how much it would lower the sampled opponents' deadwood (so it
  avoids feeding their likely melds);
- knocks only when the sampled opponents, after laying off onto its melds, would on average
  pay more than an undercut would cost; otherwise it plays on towards a lower knock or gin.
The normal level knocks as soon as it may. Both go gin and big gin whenever they can.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any, Literal

from app.bots.gin_rummy_memory import HandMemory, SeatMemory, TableSight, neighbours
from app.games.gin_rummy.cards import CARD_INDEX, CARD_POINTS, SUIT_BITS
from app.games.gin_rummy.hand import knock_deadwood_mask
from app.games.gin_rummy.melds import best_arrangement_mask, min_deadwood_mask

View = dict[str, Any]
Action = dict[str, Any]
Level = Literal["normal", "hard"]

OPPONENT_SAMPLES = 32
# A guessed opponent hand counts in proportion to exp(-deadwood / this): a player who has been
# discarding its worst card for several turns rarely holds a hand full of deadwood.
PLAUSIBLE_DEADWOOD = 8.0
# A discard whose deadwood is this much above the best one is not worth a lookahead, and
# at most this many discards get one (it bounds a decision's time: about 2 ms each).
DISCARD_SHORTLIST_POINTS = 10
DISCARD_SHORTLIST_SIZE = 6
# One point of the opponent's deadwood saved counts this much against one of ours:
# less than one, since they take the card only when it helps and we learn what they hold.
FEED_WEIGHT = 0.6
# Taking the discard top tells the opponent what we collect; it must beat the stock by this.
TAKE_MARGIN = 0.5
# Hands are races to the knock limit: a deadwood above it costs this much more than its points.
OVER_LIMIT = 10.0
_ENDINGS = ("big_gin", "gin")


def _best_ten(mask: int, keep: int | None = None) -> int:
    """The least deadwood of `mask` less one card (never the card `keep`)."""
    return knock_deadwood_mask(mask, keep)


def _cost(knock_limit: int) -> Callable[[int], float]:
    """How bad a deadwood is: its points, plus a step for being unable to knock."""

    def cost(deadwood: int) -> float:
        return deadwood + OVER_LIMIT if deadwood > knock_limit else float(deadwood)

    return cost


def _cards(mask: int) -> list[int]:
    cards: list[int] = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def _mask(cards: Sequence[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _worst_loose_points(mask: int, deadwood: int) -> int:
    """The most one card's removal lowers the deadwood: the worst loose card's points."""
    return max((deadwood - min_deadwood_mask(mask & ~(1 << c)) for c in _cards(mask)), default=0)


_NEAR_MASK = [_mask(neighbours(card)) for card in range(52)]


def _after_draw(kept: int, deadwood: int, card: int, worst: int) -> int:
    """The least deadwood after drawing `card` onto the ten `kept` cards and discarding one;
    `worst` is what the worst loose card of `kept` costs."""
    if kept & _NEAR_MASK[card]:
        return min(deadwood, _best_ten(kept | 1 << card))
    # A card that melds with nothing held can only take the place of the worst loose card.
    return min(deadwood, deadwood - worst + CARD_POINTS[card])


def layoff_cards(melds: Sequence[Sequence[int]]) -> int:
    """Cards another hand could lay off onto these melds: a set's fourth card, the cards just
    beyond a run's ends (and beyond those, as a defender may lay off several in a row)."""
    mask = 0
    for meld in melds:
        ranks = {card % SUIT_BITS for card in meld}
        suits = {card // SUIT_BITS for card in meld}
        if len(ranks) == 1:
            rank = next(iter(ranks))
            mask |= _mask([s * SUIT_BITS + rank for s in range(4) if s not in suits])
        else:
            suit = next(iter(suits))
            low, high = min(ranks), max(ranks)
            for rank in [*range(max(0, low - 3), low), *range(high + 1, min(13, high + 4))]:
                mask |= 1 << (suit * SUIT_BITS + rank)
    return mask


class StrongGinBot:
    """Chooses draw, discard and knock by expected value; see the module docstring."""

    def __init__(self, seed: int = 0, level: Level = "hard") -> None:
        if level not in ("normal", "hard"):
            raise ValueError(f"level must be 'normal' or 'hard', got {level!r}")
        self.rng = random.Random(seed)
        self.level = level
        self.memory = SeatMemory()

    def choose(self, view: View, legal: list[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        seen = self.memory.update(view)
        by_kind: dict[str, list[Action]] = {}
        for action in legal:
            by_kind.setdefault(action["type"], []).append(action)
        for ending in _ENDINGS:
            if ending in by_kind:
                return self._record(seen, by_kind[ending][0])
        if seen is None:
            return legal[0]
        memory, sight = seen
        hand = _mask(sight.hand)
        if "knock" in by_kind:
            knock = self._knock(memory, sight, hand, by_kind["knock"])
            if knock is not None:
                return self._record(seen, knock)
        if "discard" in by_kind:
            return self._record(seen, self._discard(memory, sight, hand, by_kind["discard"]))
        take = next(
            (a for a in legal if a["type"] == "take_upcard" or a.get("source") == "discard"),
            None,
        )
        if take is not None and sight.pile and self._should_take(memory, sight, hand):
            return take
        return next(
            (a for a in legal if a["type"] == "pass" or a.get("source") == "stock"),
            take or legal[0],
        )

    def _record(self, seen: tuple[HandMemory, TableSight] | None, action: Action) -> Action:
        if seen is not None and "card" in action:
            seen[0].record_discard(CARD_INDEX[action["card"]])
        return action

    def _should_take(self, memory: HandMemory, sight: TableSight, hand: int) -> bool:
        top = sight.pile[-1]
        cost = _cost(sight.knock_limit)
        with_top = cost(_best_ten(hand | 1 << top, keep=top))
        unseen = memory.unseen(sight)
        odds = memory.stock_odds(sight, unseen)
        from_stock = sum(
            p * cost(_best_ten(hand | 1 << c)) for c, p in zip(unseen, odds, strict=True)
        ) / max(1e-9, sum(odds))
        return with_top + TAKE_MARGIN < from_stock

    def _discard(
        self, memory: HandMemory, sight: TableSight, hand: int, options: list[Action]
    ) -> Action:
        now = {a["card"]: min_deadwood_mask(hand & ~(1 << CARD_INDEX[a["card"]])) for a in options}
        least = min(now.values())
        ranked = sorted(
            options, key=lambda a: (now[a["card"]], -CARD_POINTS[CARD_INDEX[a["card"]]])
        )
        shortlist = [
            a
            for a in ranked[:DISCARD_SHORTLIST_SIZE]
            if now[a["card"]] <= least + DISCARD_SHORTLIST_POINTS
        ]
        unseen = memory.unseen(sight)
        odds = memory.stock_odds(sight, unseen)
        total_odds = max(1e-9, sum(odds))
        opponents = self._opponents(memory, sight) if self.level == "hard" else []
        cost = _cost(sight.knock_limit)

        def score(action: Action) -> tuple[float, int, float]:
            card = CARD_INDEX[action["card"]]
            kept = hand & ~(1 << card)
            deadwood = now[action["card"]]
            worst = _worst_loose_points(kept, deadwood)
            ahead = sum(
                p * cost(_after_draw(kept, deadwood, c, worst))
                for c, p in zip(unseen, odds, strict=True)
            )
            feed = sum(w * (dw - _best_ten(o | 1 << card)) for o, dw, w in opponents)
            return (ahead / total_odds + FEED_WEIGHT * feed, -CARD_POINTS[card], self.rng.random())

        return min(shortlist, key=score)

    def _knock(
        self, memory: HandMemory, sight: TableSight, hand: int, options: list[Action]
    ) -> Action | None:
        def left(action: Action) -> tuple[int, int]:
            card = CARD_INDEX[action["card"]]
            return (min_deadwood_mask(hand & ~(1 << card)), -CARD_POINTS[card])

        best = min(options, key=left)
        if self.level == "normal":
            return best
        kept = hand & ~(1 << CARD_INDEX[best["card"]])
        mine = min_deadwood_mask(kept)
        melds = best_arrangement_mask(kept).melds
        layable = layoff_cards(melds)
        undercut = sight.undercut_bonus
        total = 0.0
        for opponent, deadwood, weight in self._opponents(memory, sight):
            theirs = min(deadwood, min_deadwood_mask(opponent & ~layable))
            total += weight * (theirs - mine if theirs > mine else -(undercut + mine - theirs))
        return best if total > 0 else None

    def _opponents(self, memory: HandMemory, sight: TableSight) -> list[tuple[int, int, float]]:
        """Guessed opponent hands with their deadwood and plausibility (weights sum to 1)."""
        hands = memory.sample_opponents(sight, OPPONENT_SAMPLES, self.rng)
        deadwoods = [min_deadwood_mask(hand) for hand in hands]
        weights = [math.exp(-dw / PLAUSIBLE_DEADWOOD) for dw in deadwoods]
        total = sum(weights) or 1.0
        return [(h, dw, w / total) for h, dw, w in zip(hands, deadwoods, weights, strict=True)]
