"""What one Gin Rummy seat has seen of a hand, and how likely each unseen card is theirs.

A bot is fed its seat's views in order; between two of them the opponent made one turn. From
the discard pile and the cards the view says the opponent took from it, the memory infers
which cards the opponent discarded and which it passed over (left on the pile and drew from
the stock instead). A memory created mid-hand starts from what the current view shows.

Cards are ints 0..51 as in `app.games.gin_rummy.cards` (suit * 13 + rank - 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.games.gin_rummy.cards import CARD_INDEX, SUIT_BITS

View = dict[str, Any]

# How much likelier a card is to be in the opponent's hand than an average unseen card.
NEAR_TAKEN = 2.0  # it melds with a card the opponent took from the pile
NEAR_REFUSED = 0.5  # it melds with a card the opponent threw away or passed over


def cards_of(names: list[str] | None) -> list[int]:
    return [CARD_INDEX[name] for name in names or []]


def neighbours(card: int) -> list[int]:
    """Cards that meld with `card` alongside a third: same rank, or one or two apart in suit."""
    suit, rank = divmod(card, SUIT_BITS)
    near = [other * SUIT_BITS + rank for other in range(4) if other != suit]
    near += [suit * SUIT_BITS + r for r in (rank - 2, rank - 1, rank + 1, rank + 2) if 0 <= r < 13]
    return near


@dataclass
class TableSight:
    """One moment's view of the seat's table, reduced to cards."""

    hand: list[int]
    pile: list[int]
    opponent_taken: list[int]
    opponent_count: int
    stock_count: int
    phase: str
    first_to_play: bool
    knock_limit: int
    undercut_bonus: int
    line_bonus: int

    @classmethod
    def from_view(cls, view: View) -> TableSight | None:
        me = view.get("me")
        if not me or me.get("table") is None:
            return None
        table = view["tables"][me["table"]]
        opponent = next(p for p in table["players"] if p["seat"] != me["seat"])
        return cls(
            hand=cards_of(me["hand"]),
            pile=cards_of(table["discard_pile"]),
            opponent_taken=cards_of(opponent["taken_from_discard"]),
            opponent_count=opponent["card_count"],
            stock_count=table["stock_count"],
            phase=table["phase"],
            first_to_play=table["seats"][0] == me["seat"],
            knock_limit=int(table.get("knock_limit") or 0),
            undercut_bonus=int((view.get("config") or {}).get("undercut_bonus", 25)),
            line_bonus=int((view.get("config") or {}).get("line_bonus", 25)),
        )


@dataclass
class HandMemory:
    """Everything remembered about one hand at one table."""

    key: tuple[int, int]
    my_discards: set[int] = field(default_factory=set)
    refused: set[int] = field(default_factory=set)  # discarded or passed over by the opponent
    last_discard: int | None = None
    upcard: int | None = None
    # In the order the seat saw them: the opponent's discards, and every card refused.
    opponent_discards: list[int] = field(default_factory=list)
    refusals: list[int] = field(default_factory=list)

    @property
    def opponent_turns(self) -> int:
        """The opponent's turns seen ended with a discard."""
        return len(self.opponent_discards)

    def observe(self, sight: TableSight) -> None:
        """Update the inferences from a new view of this hand."""
        pile = sight.pile
        if sight.phase == "upcard_offer":
            self.upcard = pile[-1] if pile else None
            if not sight.first_to_play and self.upcard is not None:
                self._refuse(self.upcard)  # the non-dealer passed on it
            return
        mine_or_upcard = self.my_discards | ({self.upcard} if self.upcard is not None else set())
        for card in pile:
            if card not in mine_or_upcard and card not in self.opponent_discards:
                self.opponent_discards.append(card)
                self._refuse(card)
        last = self.last_discard
        if last is not None and last in pile[:-1]:
            self._refuse(last)  # left on the pile: the opponent drew from the stock

    def _refuse(self, card: int) -> None:
        if card not in self.refused:
            self.refused.add(card)
            self.refusals.append(card)

    def record_discard(self, card: int) -> None:
        self.my_discards.add(card)
        self.last_discard = card

    def unseen(self, sight: TableSight) -> list[int]:
        """Cards in the stock or the opponent's unknown cards."""
        seen = set(sight.hand) | set(sight.pile) | set(sight.opponent_taken)
        return [card for card in range(52) if card not in seen]

    def weights(self, sight: TableSight, unseen: list[int]) -> list[float]:
        """How likely each unseen card is to be in the opponent's hand, relatively."""
        toward: dict[int, float] = {}
        for card in sight.opponent_taken:
            for near in neighbours(card):
                toward[near] = toward.get(near, 1.0) * NEAR_TAKEN
        for card in self.refused:
            for near in neighbours(card):
                toward[near] = toward.get(near, 1.0) * NEAR_REFUSED
        return [toward.get(card, 1.0) for card in unseen]

    def stock_odds(self, sight: TableSight, unseen: list[int]) -> list[float]:
        """For each unseen card, the chance that it is in the stock rather than the opponent's
        hand (cards the opponent likely holds are less likely to be drawn)."""
        hidden = max(0, sight.opponent_count - len(sight.opponent_taken))
        weights = self.weights(sight, unseen)
        total = sum(weights) or 1.0
        return [1.0 - min(0.95, hidden * w / total) for w in weights]


class SeatMemory:
    """The memory of the current hand for one seat; a new hand starts a new memory."""

    def __init__(self) -> None:
        self.hand: HandMemory | None = None

    def update(self, view: View) -> tuple[HandMemory, TableSight] | None:
        sight = TableSight.from_view(view)
        if sight is None:
            return None
        me = view["me"]
        key = (int(view.get("hand_number", 0)), int(me["table"]))
        if self.hand is None or self.hand.key != key:
            self.hand = HandMemory(key)
        self.hand.observe(sight)
        return self.hand, sight
