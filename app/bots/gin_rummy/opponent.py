"""What a Gin Rummy seat learns of its opponent, and guesses at the opponent's hand.

`OpponentModel` follows one opponent through a match and estimates three habits from
what the seat sees of its play, each as a Beta posterior over "the opponent plays so":
- it knocks as soon as it may: from the deadwood it knocks with (a record of the match's
  history gives the points; the seat knows its own deadwood), and from its gins;
- it picks up only a card that completes a meld: from whether it keeps the cards it takes
  or throws them away again;
- it throws its highest loose card: from the points of the first cards it throws in a hand.

`sample_hands` draws guesses at the opponent's hidden cards from the unseen ones and weighs
each by how well it fits what was seen, the more the more the model trusts each habit:
- a card the opponent threw away, or left on the pile, completed no meld with its cards
  (so guesses in which it would are unlikely);
- an opponent that knocks at once and has not knocked holds more deadwood than the limit;
- an opponent that throws its highest loose card holds no loose card worth more than its
  last discard.
The guesses are 52-bit masks in a numpy array; `completes` says for each whether a card
would complete a meld with it, which is what decides whether the opponent takes that card.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from app.bots.gin_rummy.memory import HandMemory, TableSight
from app.games.gin_rummy.cards import CARD_POINTS, SUIT_BITS
from app.games.gin_rummy.melds import min_deadwood_mask

View = dict[str, Any]
Masks = npt.NDArray[np.uint64]
Floats = npt.NDArray[np.float64]

# How much a guess that breaks a habit counts, at full trust in the habit: a guess the
# opponent's play rules out keeps a little weight, as people (and bots) are not rules.
BROKEN = 0.05
# A card thrown or passed over some turns ago says less: the opponent has drawn since.
FADING = 0.75
# What the model believes of an opponent it has not yet seen play (Beta prior counts):
# most players knock early, keep what they pick up and throw high cards first.
PRIOR = {"eager": (3.0, 1.0), "keeps": (3.0, 1.0), "high": (2.0, 1.0)}
# A knock with at least this deadwood (of the limit 10) is one a patient player rarely makes.
EAGER_DEADWOOD = 0.4
# A first discard of a hand worth at least this many points is a high card thrown.
HIGH_CARD = 7


def _mask(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _partners(card: int) -> tuple[int, list[int]]:
    """The other cards of `card`'s rank, and the pairs of cards that make a run with it."""
    suit, rank = divmod(card, SUIT_BITS)
    same_rank = _mask([s * SUIT_BITS + rank for s in range(4) if s != suit])
    pairs = []
    for low in (rank - 2, rank - 1, rank):
        ranks = [r for r in (low, low + 1, low + 2) if r != rank]
        if low >= 0 and low + 2 <= 12 and len(ranks) == 2:
            pairs.append(_mask([suit * SUIT_BITS + r for r in ranks]))
    return same_rank, pairs


_PARTNERS = [_partners(card) for card in range(52)]


def completes(hands: Masks, card: int) -> npt.NDArray[np.bool_]:
    """For each hand, whether `card` would make a set or a run with two of its cards."""
    same_rank, pairs = _PARTNERS[card]
    found: npt.NDArray[np.bool_] = np.bitwise_count(hands & np.uint64(same_rank)) >= 2
    for pair in pairs:
        found |= (hands & np.uint64(pair)) == np.uint64(pair)
    return found


@dataclass
class Habit:
    """A Beta posterior that the opponent plays by one habit."""

    yes: float
    no: float

    @property
    def trust(self) -> float:
        return self.yes / (self.yes + self.no)

    def seen(self, follows: bool, weight: float = 1.0) -> None:
        if follows:
            self.yes += weight
        else:
            self.no += weight


def _habits() -> dict[str, Habit]:
    return {name: Habit(*counts) for name, counts in PRIOR.items()}


@dataclass
class OpponentModel:
    """The opponent's habits as seen so far in the match."""

    habits: dict[str, Habit] = field(default_factory=_habits)
    hands_seen: int = 0  # records of the history already counted
    _taken: dict[int, bool] = field(default_factory=dict)  # card taken -> still held
    _first_discards: int = 0

    def trust(self, habit: str) -> float:
        return self.habits[habit].trust

    def new_hand(
        self, view: View, seat: int, last: tuple[int, int] | None, my_deadwood: int | None
    ) -> None:
        """Count what the finished hands of the history show of the seat's own hands (the
        last one, `last` = (hand number, table), it left with `my_deadwood`): the opponent's
        gins, and its knocks with the deadwood they were made with. Also count the cards
        the opponent took last hand and kept to its end."""
        history = view.get("history") or []
        for record in history[self.hands_seen :]:
            knocker = record.get("knocker")
            if knocker is None or knocker == seat or (record["hand"], record["table"]) != last:
                continue
            if record.get("ending") in ("gin", "big_gin"):
                self.habits["eager"].seen(False, 0.5)
            elif record.get("ending") == "knock" and my_deadwood is not None:
                # The knocker's deadwood is ours (before lay-offs, an upper bound) less
                # the points it scored.
                limit = int((view.get("config") or {}).get("knock_limit", 10)) or 1
                theirs = my_deadwood - int(record.get("points", 0))
                self.habits["eager"].seen(theirs >= EAGER_DEADWOOD * limit)
        self.hands_seen = len(history)
        for kept in self._taken.values():
            self.habits["keeps"].seen(kept, 0.5)
        self._taken.clear()
        self._first_discards = 0

    def watch(self, memory: HandMemory, sight: TableSight) -> None:
        """Count what the opponent did since the seat's last look at this hand."""
        held = set(sight.opponent_taken)
        for card in held:
            self._taken.setdefault(card, True)
        for card in self._taken:
            if card not in held and card in sight.pile:
                if self._taken[card]:
                    self.habits["keeps"].seen(False)  # picked up, then thrown away
                self._taken[card] = False
        thrown = memory.opponent_discards
        while self._first_discards < min(len(thrown), 3):
            card = thrown[self._first_discards]
            self.habits["high"].seen(CARD_POINTS[card] >= HIGH_CARD)
            self._first_discards += 1


def sample_hands(
    memory: HandMemory,
    sight: TableSight,
    model: OpponentModel,
    count: int,
    rng: random.Random,
) -> tuple[Masks, Floats]:
    """`count` guesses at the opponent's whole hand and their weights (summing to 1)."""
    unseen = memory.unseen(sight)
    known = _mask(sight.opponent_taken)
    hidden = max(0, min(sight.opponent_count - len(sight.opponent_taken), len(unseen)))
    prior = np.array(memory.weights(sight, unseen), dtype=np.float64)
    generator = np.random.default_rng(rng.getrandbits(64))
    # Weighted sampling without replacement: the `hidden` largest of u ** (1 / w)
    # (Efraimidis and Spirakis, 2006), taken as logarithms.
    keys = np.log(generator.random((count, len(unseen)))) / prior
    chosen = np.argpartition(-keys, hidden - 1, axis=1)[:, :hidden] if hidden else None
    bits = np.array([1 << card for card in unseen], dtype=np.uint64)
    hands = np.full(count, known, dtype=np.uint64)
    if chosen is not None:
        hands |= np.bitwise_or.reduce(bits[chosen], axis=1)
    weights = np.ones(count)
    keeps = model.trust("keeps")
    for age, card in enumerate(reversed(memory.refusals)):
        fit = 1.0 - keeps * (1.0 - BROKEN) * FADING**age
        weights[completes(hands, card)] *= fit
    if memory.opponent_discards:
        weights *= _fits_high_discards(hands, memory.opponent_discards[-1], model.trust("high"))
    if memory.opponent_turns and sight.knock_limit > 0:
        eager = model.trust("eager")
        deadwood = np.array([min_deadwood_mask(int(hand)) for hand in hands])
        weights[deadwood <= sight.knock_limit] *= 1.0 - eager * (1.0 - BROKEN)
    return hands, weights / weights.sum()


def _fits_high_discards(hands: Masks, last: int, trust: float) -> Floats:
    """Guesses holding a card worth more than the last discard that melds with nothing of
    theirs fit an opponent that throws its highest loose card less."""
    fit = np.ones(len(hands))
    for card in range(52):
        if CARD_POINTS[card] <= CARD_POINTS[last]:
            continue
        holds = (hands >> np.uint64(card)) & np.uint64(1) == 1
        loose = holds & ~completes(hands & ~np.uint64(1 << card), card)
        fit[loose] *= 1.0 - trust * (1.0 - BROKEN)
    return fit
