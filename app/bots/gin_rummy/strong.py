"""A Gin Rummy bot that plays by expected value, in two levels ("normal", "hard").

Both levels look one draw ahead: a discard is judged by the expected cost of the deadwood
after the next draw from the stock (its points, plus steep steps for being above the knock
limit and far above it; each unseen card weighed by its chance of being in the stock), and
the discard top is taken when keeping it beats that expectation. The normal level knocks as
soon as it may. The hard level also follows its opponent (`opponent`): across the
match it learns how soon the opponent knocks, whether it keeps what it picks up and whether
it throws its highest loose card, and it weighs guesses at the opponent's hand by how well
they fit that play. Then it
- avoids a discard the opponent is likely to pick up (one that completes a meld in much of
  the weighted guesses): the chance beyond `FEED_FLOOR` costs `FEED_COST` deadwood points,
  so only a clear danger changes its choice (a broader aversion slowed its own hand more
  than it slowed the opponent's, on the bench);
- plays on past a knock with at most `PLAY_ON_DEADWOOD` points while the stock holds at least
  `PLAY_ON_STOCK` cards: it may go gin, and an opponent that knocks first seldom knocks
  lower, so its knock is likely undercut (on the bench this won more points a hand and
  more matches to 100, which are decided by points, not hands won);
- else knocks unless, with the guesses laying off onto the melds the engine would lay out for
  it, an undercut is likelier to cost than the knock to gain (the line bonus of the hand
  counted on both sides).
Both go gin and big gin whenever they can.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Literal

from app.bots.gin_rummy.memory import HandMemory, SeatMemory, TableSight, neighbours
from app.bots.gin_rummy.opponent import OpponentModel, completes, sample_hands
from app.games.gin_rummy.cards import CARD_INDEX, CARD_POINTS, SUIT_BITS
from app.games.gin_rummy.hand import knock_deadwood_mask
from app.games.gin_rummy.layoffs import knocker_layout
from app.games.gin_rummy.melds import min_deadwood_mask

View = dict[str, Any]
Action = dict[str, Any]
Level = Literal["normal", "hard"]

# Guesses at the opponent's hand per decision: enough for its chance of taking a card to
# within a few per cent (about 1 ms).
OPPONENT_SAMPLES = 128
# The cost of feeding the opponent, in deadwood points per unit of its chance of taking the
# card beyond the floor (bench/bench_gin_bots.py chose them; docs/performance.md).
FEED_COST = 20.0
FEED_FLOOR = 0.4
# A discard whose deadwood is this much above the best one is not worth a lookahead, and
# at most this many discards get one (it bounds a decision's time: about 2 ms each).
DISCARD_SHORTLIST_POINTS = 10
DISCARD_SHORTLIST_SIZE = 6
# Taking the discard top tells the opponent what we collect; it must beat the stock by this.
TAKE_MARGIN = 0.5
# Hands are races to the knock limit: a deadwood above it costs this much more than its
# points, and a deadwood more than `FAR_STEP` above it this much more again (a hand one good
# draw from knocking beats one that needs two). Against a player that knocks as soon as it
# may, the bench found a steep step best (docs/performance.md): most hands are decided by
# who knocks first, few by the points left.
OVER_LIMIT = 100.0
FAR = 30.0
FAR_STEP = 8
# The hard level plays on for gin or an undercut with this little deadwood while the stock
# holds this many cards (bench/bench_gin_bots.py chose them; docs/performance.md).
PLAY_ON_DEADWOOD = 3
PLAY_ON_STOCK = 10
_ENDINGS = ("big_gin", "gin")


def _best_ten(mask: int, keep: int | None = None) -> int:
    """The least deadwood of `mask` less one card (never the card `keep`)."""
    return knock_deadwood_mask(mask, keep)


def _cost(knock_limit: int) -> Callable[[int], float]:
    """How bad a deadwood is: its points, plus steps for being unable to knock."""

    def cost(deadwood: int) -> float:
        if deadwood <= knock_limit:
            return float(deadwood)
        return deadwood + OVER_LIMIT + (FAR if deadwood > knock_limit + FAR_STEP else 0.0)

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
        self.model = OpponentModel()
        self._hand_key: tuple[int, int] | None = None
        self._my_deadwood: int | None = None

    def choose(self, view: View, legal: list[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        seen = self.memory.update(view)
        if seen is not None and self.level == "hard":
            if seen[0].key != self._hand_key:
                last, self._hand_key = self._hand_key, seen[0].key
                self.model.new_hand(view, int(view["me"]["seat"]), last, self._my_deadwood)
            self.model.watch(*seen)
            self._my_deadwood = min_deadwood_mask(_mask(seen[1].hand))
        by_kind: dict[str, list[Action]] = {}
        for action in legal:
            by_kind.setdefault(action["type"], []).append(action)
        for ending in _ENDINGS:
            if ending in by_kind:
                return self._record(seen, by_kind[ending][0])
        if "lay_off" in by_kind:
            return by_kind["lay_off"][0]  # the best lay-offs come first
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
            card = CARD_INDEX[action["card"]]
            seen[0].record_discard(card)
            self._my_deadwood = min_deadwood_mask(_mask(seen[1].hand) & ~(1 << card))
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
        feeds: dict[int, float] = {}
        if self.level == "hard":
            hands, weights = sample_hands(memory, sight, self.model, OPPONENT_SAMPLES, self.rng)
            for action in shortlist:
                card = CARD_INDEX[action["card"]]
                feeds[card] = float(weights @ completes(hands, card))
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
            feed = FEED_COST * max(0.0, feeds.get(card, 0.0) - FEED_FLOOR)
            return (ahead / total_odds + feed, -CARD_POINTS[card], self.rng.random())

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
        if mine <= PLAY_ON_DEADWOOD and sight.stock_count >= PLAY_ON_STOCK:
            return None
        taken = _mask(sight.opponent_taken)
        layout = knocker_layout(
            kept,
            seen=hand | _mask(sight.pile),
            defender_known=taken,
            defender_hidden=sight.opponent_count - len(sight.opponent_taken),
        )
        layable = layoff_cards(layout.melds)
        # A hand won also earns its line bonus at the match's end (one lost, the other's).
        undercut, line = sight.undercut_bonus, sight.line_bonus
        hands, weights = sample_hands(memory, sight, self.model, OPPONENT_SAMPLES, self.rng)
        total = 0.0
        for opponent, weight in zip(hands.tolist(), weights.tolist(), strict=True):
            theirs = min(min_deadwood_mask(opponent), min_deadwood_mask(opponent & ~layable))
            if theirs > mine:
                total += weight * (theirs - mine + line)
            else:
                total -= weight * (undercut + mine - theirs + line)
        return best if total > 0 else None
