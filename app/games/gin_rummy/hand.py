"""One hand at one table: two players, a stock, a discard pile, and what each may see.

Positions 0 and 1 are the two players of the hand: 0 is the non-dealer, who acts first, and 1
the dealer (with three players the dealer sits out and position 1 is the seat after the first
player). The stock and the discard pile are lists whose last element is the top card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any, Final

from app.games.gin_rummy.cards import (
    CARD_NAMES,
    CARD_POINTS,
    DECK_SIZE,
    card_points,
    names,
    rank_of,
    to_mask,
)
from app.games.gin_rummy.melds import Arrangement, arrangement_names, min_deadwood_mask
from app.games.patches import replace_changed

HAND_SIZE = 10
# Own-hand summaries by (cards, card taken this turn), for callers that ask again for the same
# hand; the engine keeps each seat's latest own view itself, so a small cache is enough.
OWN_SUMMARY_CACHE = 256


class HandPhase(StrEnum):
    UPCARD_OFFER = "upcard_offer"
    DRAW = "draw"
    DISCARD = "discard"
    # After a plain knock, while the defender chooses its lay-offs (its turn).
    LAY_OFF = "lay_off"
    OVER = "over"


# The members as module constants, for the code on every move: Python 3.11 reads an Enum
# class's attributes through a slow path (bench/bench_instructions.py, docs/performance.md).
UPCARD_OFFER: Final = HandPhase.UPCARD_OFFER
DRAW: Final = HandPhase.DRAW
DISCARD: Final = HandPhase.DISCARD
LAY_OFF: Final = HandPhase.LAY_OFF
OVER: Final = HandPhase.OVER


@dataclass
class Hand:
    number: int
    table: int
    dealer: int
    seats: list[int]
    cards: list[list[int]]
    stock: list[int]
    discard: list[int]
    knock_limit: int
    phase: HandPhase = UPCARD_OFFER
    turn: int = 0
    passes: int = 0
    # After both players pass the upcard, the non-dealer's draw must come from the stock.
    stock_only: bool = False
    taken: int | None = None
    # Cards each position was seen to take from the discard pile and still holds.
    known: list[list[int]] = field(default_factory=lambda: [[], []])
    knock_card: int | None = None
    # The knocker's position once a knock, gin or big gin is made.
    knocker: int | None = None
    # In phase LAY_OFF: the knocker's melds and deadwood as laid out.
    laid_out: Arrangement | None = None
    outcome: dict[str, Any] | None = None

    def position_of(self, seat: int | None) -> int | None:
        return self.seats.index(seat) if seat in self.seats else None

    def to_act(self) -> list[int]:
        return [] if self.phase is OVER else [self.seats[self.turn]]

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "table": self.table,
            "dealer": self.dealer,
            "seats": list(self.seats),
            "cards": [list(cards) for cards in self.cards],
            "stock": list(self.stock),
            "discard": list(self.discard),
            "knock_limit": self.knock_limit,
            "phase": self.phase.value,
            "turn": self.turn,
            "passes": self.passes,
            "stock_only": self.stock_only,
            "taken": self.taken,
            "known": [list(cards) for cards in self.known],
            "knock_card": self.knock_card,
            "knocker": self.knocker,
            "laid_out": None
            if self.laid_out is None
            else {
                "melds": [list(meld) for meld in self.laid_out.melds],
                "deadwood": list(self.laid_out.deadwood),
            },
            "outcome": self.outcome,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hand:
        return cls(
            number=data["number"],
            table=data["table"],
            dealer=data["dealer"],
            seats=list(data["seats"]),
            cards=[list(cards) for cards in data["cards"]],
            stock=list(data["stock"]),
            discard=list(data["discard"]),
            knock_limit=data["knock_limit"],
            phase=HandPhase(data["phase"]),
            turn=data["turn"],
            passes=data["passes"],
            stock_only=data["stock_only"],
            taken=data["taken"],
            known=[list(cards) for cards in data["known"]],
            knock_card=data["knock_card"],
            knocker=data.get("knocker"),
            laid_out=_arrangement(data.get("laid_out")),
            outcome=data["outcome"],
        )


def _arrangement(data: Any) -> Arrangement | None:
    if data is None:
        return None
    melds = tuple(tuple(meld) for meld in data["melds"])
    return Arrangement(melds=melds, deadwood=tuple(data["deadwood"]))


def knock_limit_for(upcard: int, config: Mapping[str, Any]) -> int:
    """The configured limit, or in Oklahoma the upcard's value (an ace: gin only)."""
    if not config["oklahoma"]:
        return int(config["knock_limit"])
    return 0 if rank_of(upcard) == 1 else card_points(upcard)


def deal(
    *,
    number: int,
    table: int,
    dealer: int,
    seats: list[int],
    deck: list[int],
    config: Mapping[str, Any],
) -> Hand:
    """Ten cards each, alternately from the non-dealer; the next card is the upcard."""
    if sorted(deck) != list(range(DECK_SIZE)):
        raise ValueError("a deck is each of the 52 cards exactly once")
    dealt = 2 * HAND_SIZE
    return Hand(
        number=number,
        table=table,
        dealer=dealer,
        seats=list(seats),
        cards=[sorted(deck[0:dealt:2]), sorted(deck[1:dealt:2])],
        stock=list(reversed(deck[dealt + 1 :])),
        discard=[deck[dealt]],
        knock_limit=knock_limit_for(deck[dealt], config),
    )


def hidden_cards(hand: Hand, seat: int | None) -> set[int]:
    """Cards of this hand that `seat` may not see now (another table's seat sees as a spectator).

    Hidden: the stock; the knock card (face down) from all but the knocker; each hand from the
    others, except cards seen taken from the discard pile, until a knock or gin lays both
    hands open (the knocker's alone while the defender chooses its lay-offs). A drawn hand
    is not shown.
    """
    hidden = set(hand.stock)
    own = hand.position_of(seat)
    if hand.knock_card is not None and (own is None or own != hand.knocker):
        hidden.add(hand.knock_card)
    for position in (0, 1):
        if position != own and not is_shown(hand, position):
            hidden.update(set(hand.cards[position]) - set(hand.known[position]))
    return hidden


def player_view(hand: Hand, position: int, shown: bool) -> dict[str, Any]:
    """One player of the hand: the cards only if `shown` (to themselves, or laid open)."""
    return {
        "seat": hand.seats[position],
        "card_count": len(hand.cards[position]),
        "taken_from_discard": names(hand.known[position]),
        "cards": names(hand.cards[position]) if shown else None,
    }


def is_shown(hand: Hand, position: int) -> bool:
    """Whether a player's cards lie open on the table: both after a knock, gin or big gin;
    the knocker's alone while the defender chooses its lay-offs."""
    if hand.phase is LAY_OFF:
        return position == hand.knocker
    return hand.outcome is not None and hand.outcome["ending"] != "draw"


def laid_out_view(hand: Hand) -> dict[str, Any] | None:
    """The knocker's layout while the defender chooses its lay-offs; None otherwise."""
    if hand.phase is not LAY_OFF or hand.laid_out is None or hand.knocker is None:
        return None
    return {
        "seat": hand.seats[hand.knocker],
        "melds": [names(meld) for meld in hand.laid_out.melds],
        "deadwood": names(hand.laid_out.deadwood),
        "deadwood_points": hand.laid_out.deadwood_points,
    }


class TableViews:
    """One table's part of the views, the same for every viewer: a player's own cards are in
    its own part of the view (`me`), so the table shows cards only once a knock lays them open.

    Parts are kept with the inputs they were built from and reused while those are equal, so
    a part that did not change is the same (read-only) object in every view that shows it.
    """

    def __init__(self) -> None:
        self._players: list[tuple[tuple[Any, ...], dict[str, Any]] | None] = [None, None]
        self._pile: tuple[list[int], list[str]] = ([], [])
        self._seats: list[int] = []
        # The knocker's layout while the defender chooses, kept per (hand, phase).
        self._knock: tuple[tuple[int, HandPhase], dict[str, Any] | None]
        self._knock = ((0, DRAW), None)

    def player(self, hand: Hand, position: int, shown: bool) -> dict[str, Any]:
        cards = hand.cards[position]
        key = (hand.number, tuple(cards) if shown else len(cards), tuple(hand.known[position]))
        kept = self._players[position]
        if kept is None or kept[0] != key:
            kept = self._players[position] = (key, player_view(hand, position, shown))
        return kept[1]

    def public(self, hand: Hand) -> dict[str, Any]:
        """The table as everyone sees it."""
        pile = hand.discard
        if pile != self._pile[0]:
            self._pile = (list(pile), [CARD_NAMES[card] for card in pile])
        if hand.seats != self._seats:
            self._seats = list(hand.seats)
        knock_key = (hand.number, hand.phase)
        if knock_key != self._knock[0]:
            self._knock = (knock_key, laid_out_view(hand))
        return {
            "table": hand.table,
            "hand": hand.number,
            "dealer": hand.dealer,
            "seats": self._seats,
            "phase": hand.phase.value,
            "turn": None if hand.phase is OVER else hand.seats[hand.turn],
            "stock_count": len(hand.stock),
            "discard_pile": self._pile[1],
            "knock_limit": hand.knock_limit,
            "players": [self.player(hand, at, is_shown(hand, at)) for at in (0, 1)],
            "knock": self._knock[1],
            "outcome": hand.outcome,
        }


# The keys of a table's public part (`TableViews.public`) and of each player in it, by how
# `table_patch` compares them.
TABLE_VALUES = (
    "table",
    "dealer",
    "seats",
    "phase",
    "turn",
    "stock_count",
    "knock_limit",
    "knock",
    "outcome",
)
TABLE_KEYS = frozenset((*TABLE_VALUES, "hand", "discard_pile", "players"))
PLAYER_KEYS = ("seat", "card_count", "taken_from_discard", "cards")


def table_patch(
    before: Mapping[str, Any], after: Mapping[str, Any], path: str, ops: list[dict[str, Any]]
) -> None:
    """Append to `ops` the JSON Patch from one public part of a table to a later one.

    It knows what a move can change (scalars, the top of the discard pile, a player's counts)
    and replaces the whole table when a new hand was dealt at it.
    """
    if before["hand"] != after["hand"] or len(after) != len(TABLE_KEYS):
        ops.append({"op": "replace", "path": path, "value": after})
        return
    replace_changed(before, after, TABLE_VALUES, path, ops)
    old, new = before["discard_pile"], after["discard_pile"]
    if old is not new:
        card_list_patch(old, new, f"{path}/discard_pile", ops)
    for position, (was, now) in enumerate(zip(before["players"], after["players"], strict=True)):
        if was is not now:
            replace_changed(was, now, PLAYER_KEYS, f"{path}/players/{position}", ops)


def move_table_ops(
    hand: Hand,
    position: int,
    kind: str,
    card: int | None,
    known: bool,
    table: int,
    prefix: str,
) -> list[dict[str, Any]]:
    """The JSON Patch of a table's public part (`TableViews.public`) after a move that left
    the hand in play: `kind` made by the player at `position`, naming `card` (a discard),
    which it had been seen taking from the discard pile if `known`."""
    path = f"{prefix}/tables/{table}"
    ops: list[dict[str, Any]] = []
    if kind == "pass":
        ops.append({"op": "replace", "path": f"{path}/turn", "value": hand.seats[hand.turn]})
        if hand.phase is DRAW:
            ops.append({"op": "replace", "path": f"{path}/phase", "value": hand.phase.value})
        return ops
    player = f"{path}/players/{position}"
    ops.append({"op": "replace", "path": f"{path}/phase", "value": hand.phase.value})
    if kind == "discard":
        assert card is not None
        ops.append({"op": "replace", "path": f"{path}/turn", "value": hand.seats[hand.turn]})
        ops.append({"op": "add", "path": f"{path}/discard_pile/-", "value": CARD_NAMES[card]})
    elif hand.taken is None:
        ops.append({"op": "replace", "path": f"{path}/stock_count", "value": len(hand.stock)})
    else:
        # A card taken from the discard pile: the top one, now seen in the player's hand.
        ops.append({"op": "remove", "path": f"{path}/discard_pile/{len(hand.discard)}"})
        known = True
    count = len(hand.cards[position])
    ops.append({"op": "replace", "path": f"{player}/card_count", "value": count})
    if known:
        seen = names(hand.known[position])
        ops.append({"op": "replace", "path": f"{player}/taken_from_discard", "value": seen})
    return ops


# (points, mask of the cards worth them), highest first.
_CARDS_BY_POINTS = tuple(
    (points, to_mask(card for card in range(DECK_SIZE) if CARD_POINTS[card] == points))
    for points in range(10, 0, -1)
)


def knock_deadwood_mask(
    mask: int, taken: int | None, deadwood: int = 0, whole: int | None = None
) -> int:
    """The lowest deadwood left by setting aside one card (not the one just taken) of 11.

    `deadwood`, if given, masks the deadwood cards of one best arrangement of the 11, and
    `whole` is the 11's minimum deadwood, if known.
    """
    if whole is None:
        whole = min_deadwood_mask(mask)
    best = 1 << 30
    keep = mask if taken is None else mask & ~(1 << taken)
    # Setting card c aside leaves at least whole - points(c), and exactly that for a deadwood
    # card (the arrangement stands without it): the highest deadwood card gives a bound at
    # once, and only melded cards worth more can beat it.
    loose = keep & deadwood
    for points, worth in _CARDS_BY_POINTS if loose else ():
        if loose & worth:
            best = whole - points
            break
    # Trying the highest cards first lets the search stop as soon as no remaining card could
    # do better.
    for points, worth in _CARDS_BY_POINTS:
        if whole - points >= best:
            break
        cards = keep & worth & ~loose
        while cards:
            card = cards & -cards
            cards ^= card
            after = min_deadwood_mask(mask ^ card)
            if after < best:
                best = after
    return best


@lru_cache(maxsize=OWN_SUMMARY_CACHE)
def _own_summary(cards: tuple[int, ...], taken: int | None) -> tuple[Any, ...]:
    """The parts of the own view that depend on the cards alone: hand, arrangement (melds,
    deadwood, points) and knock deadwood. Views are read-only, so each own view of the same
    cards holds these very lists."""
    mask = to_mask(cards)
    melds, deadwood, deadwood_points, loose = arrangement_names(mask)
    knock = None
    if len(cards) > HAND_SIZE:
        knock = knock_deadwood_mask(mask, taken, loose, deadwood_points)
    # Cards, melds and deadwood come in ascending card order, which is the display order.
    return (
        [CARD_NAMES[card] for card in cards],
        {"melds": melds, "deadwood": deadwood, "deadwood_points": deadwood_points},
        knock,
    )


# The keys of a seat's own part (`own_view`) that `own_patch` compares as values, and of its
# arrangement.
OWN_VALUES = ("seat", "table", "knock_deadwood", "taken_this_turn")
OWN_KEYS = frozenset((*OWN_VALUES, "hand", "arrangement"))
ARRANGEMENT_VALUES = ("melds", "deadwood_points")


def own_patch(
    before: Mapping[str, Any], after: Mapping[str, Any], path: str, ops: list[dict[str, Any]]
) -> None:
    """Append to `ops` the JSON Patch from one own part of a seat to a later one.

    It knows what a move does to a hand (a card in or out) and to its deadwood, so the
    differ need not walk the part.
    """
    replace_changed(before, after, OWN_VALUES, path, ops)
    card_list_patch(before["hand"], after["hand"], f"{path}/hand", ops)
    was, now = before["arrangement"], after["arrangement"]
    if was is not now:
        replace_changed(was, now, ARRANGEMENT_VALUES, f"{path}/arrangement", ops)
        card_list_patch(was["deadwood"], now["deadwood"], f"{path}/arrangement/deadwood", ops)


def card_list_patch(old: list[str], new: list[str], path: str, ops: list[dict[str, Any]]) -> None:
    """A list of cards' change (a hand, its deadwood, a discard pile): one card added or removed
    anywhere, else the whole list."""
    size = len(old)
    if len(new) == size + 1:
        at = _first_difference(old, new)
        if new[at + 1 :] == old[at:]:
            where = "-" if at == size else str(at)
            ops.append({"op": "add", "path": f"{path}/{where}", "value": new[at]})
            return
    elif len(new) == size - 1:
        at = _first_difference(new, old)
        if old[at + 1 :] == new[at:]:
            ops.append({"op": "remove", "path": f"{path}/{at}"})
            return
    if old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _first_difference(shorter: list[str], longer: list[str]) -> int:
    for index, card in enumerate(shorter):
        if longer[index] != card:
            return index
    return len(shorter)


def own_view(hand: Hand, seat: int, taken: int | None) -> dict[str, Any]:
    """The seat's own cards, best arrangement and (holding 11) the lowest knock deadwood;
    `taken` is the card it took from the discard pile this turn, if it is the seat's turn."""
    position = hand.seats.index(seat)
    cards, arrangement, knock = _own_summary(tuple(sorted(hand.cards[position])), taken)
    return {
        "seat": seat,
        "table": hand.table,
        "hand": cards,
        "arrangement": arrangement,
        "knock_deadwood": knock,
        "taken_this_turn": None if taken is None else CARD_NAMES[taken],
    }
