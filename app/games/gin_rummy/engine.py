"""The Gin Rummy match: tables, dealers, scores, views, and the Engine interface."""

from __future__ import annotations

import random
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, ClassVar, Final, Self

from app.games.engine import (
    Action,
    Config,
    IllegalAction,
    Seat,
    SeatView,
    View,
    refuse_unknown_fields,
)
from app.games.gin_rummy import config as variant
from app.games.gin_rummy.cards import (
    CARD_INDEX,
    CARD_NAMES,
    DECK_SIZE,
    parse_cards,
    rank_of,
    suit_of,
)
from app.games.gin_rummy.hand import (
    Hand,
    HandPhase,
    TableViews,
    deal,
    hidden_cards,
    move_table_ops,
    own_patch,
    own_view,
    table_patch,
)
from app.games.gin_rummy.match_score import (
    final_result,
    side_points,
    side_reaching_target,
    sides_for,
)
from app.games.gin_rummy.turns import ACTION_FIELDS, apply_action, legal_actions
from app.games.patches import replace_changed

# Actions whose change of the views `move_patch` derives while the hand plays on.
MOVE_PATCHED = frozenset(("draw", "discard", "take_upcard", "pass"))


def _named_card(action: Mapping[str, Any]) -> int | None:
    """The card a discard names, if it names one (apply_action checks it)."""
    name = action.get("card")
    return CARD_INDEX.get(name) if isinstance(name, str) else None


class MatchPhase(StrEnum):
    PLAYING = "playing"
    HAND_OVER = "hand_over"
    MATCH_OVER = "match_over"


# The members as module constants, for the code on every move: Python 3.11 reads an Enum
# class's attributes through a slow path (bench/bench_instructions.py, docs/performance.md).
PLAYING: Final = MatchPhase.PLAYING
HAND_OVER: Final = MatchPhase.HAND_OVER
MATCH_OVER: Final = MatchPhase.MATCH_OVER


_SUMMARY_KEYS = ("hand", "table", "dealer", "ending", "knocker", "winner", "points")
# The keys of the public view, by how `public_change` compares them: the match part's values
# are the same objects until a hand or the match ends.
_MATCH_KEYS = ("config", "sides", "scores", "side_scores", "hands_won", "history", "result")
_PUBLIC_VALUES = ("game", "seat", "players", "phase", "hand_number", "to_act", "me")
_PUBLIC_KEYS = frozenset((*_MATCH_KEYS, *_PUBLIC_VALUES, "tables"))


def first_dealer(seed: int, table: int, candidates: list[int]) -> int:
    """Low-card draw: each candidate draws a card; lowest rank deals, ties by suit C<D<H<S."""
    drawn = random.Random(f"gin_rummy/{seed}/first_dealer/{table}").sample(
        range(DECK_SIZE), len(candidates)
    )
    return min(
        zip(candidates, drawn, strict=True), key=lambda pair: (rank_of(pair[1]), suit_of(pair[1]))
    )[0]


def hand_deck(seed: int, table: int, number: int) -> list[int]:
    """The shuffled deck of one hand, derived from (seed, table, hand number) for replays."""
    deck = list(range(DECK_SIZE))
    random.Random(f"gin_rummy/{seed}/deck/{table}/{number}").shuffle(deck)
    return deck


class GinRummy:
    """A whole match of Gin Rummy for 2, 3 or 4 players (see the package docstring)."""

    name: ClassVar[str] = "gin_rummy"
    action_fields: ClassVar[Mapping[str, frozenset[str]]] = ACTION_FIELDS

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.config: Config = dict(data["config"])
        self.players: int = data["players"]
        self.seed: int = data["seed"]
        self.first_deck: list[int] | None = data["first_deck"]
        self.number: int = data["number"]
        self.match_phase = MatchPhase(data["phase"])
        self.hands = [Hand.from_json(hand) for hand in data["hands"]]
        self.scores: list[int] = list(data["scores"])
        self.history: list[dict[str, Any]] = list(data["history"])
        self.target_side: int | None = data["target_side"]
        self.sides = sides_for(self.players)
        # Parts of views kept between calls, each with the inputs it was built from (see view).
        self._match_key: tuple[Any, ...] | None = None
        self._match_part: dict[str, Any] = {}
        self._own_parts: dict[Seat, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        # Each seat's own part as it was before its last rebuild, with the change it was
        # rebuilt at (see own_change).
        self._own_before: dict[Seat, tuple[int, dict[str, Any]]] = {}
        self._table_parts: list[TableViews] = []
        # Every action may change the state: views built since the last one share the public
        # view built for the first of them.
        self._changes = 0
        self._public: tuple[int, View] | None = None
        # The public view built before the current one, for `public_change`.
        self._previous_public: View | None = None
        self._to_act: list[Seat] = []
        # Actions taken (refused ones leave the state and this as they were), and the last one
        # when `move_patch` can derive its patch: (moves after it, table, position, type, card,
        # whether the card was seen taken from the discard pile).
        self._moves = 0
        self._last_move: tuple[int, int, int, str, int | None, bool] | None = None
        self._move_ops: tuple[int, str, list[dict[str, Any]]] | None = None

    @classmethod
    def options(cls) -> list[dict[str, Any]]:
        return variant.options()

    @classmethod
    def validate_config(cls, raw: Mapping[str, Any], players: int) -> Config:
        return variant.validate_config(raw, players)

    @classmethod
    def seat_range(cls) -> tuple[int, int]:
        return (2, 4)

    @classmethod
    def new(
        cls,
        config: Mapping[str, Any],
        players: int,
        seed: int | None = None,
        deck: list[str] | None = None,
    ) -> Self:
        """A new match, first hand dealt; `deck` orders the first hand at every table."""
        checked = variant.validate_config(config, players)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise IllegalAction("bad_config", f"seed must be an integer, got {seed!r}")
        first_deck = None
        if deck is not None:
            try:
                first_deck = parse_cards(deck)
            except (TypeError, ValueError) as error:
                raise IllegalAction("bad_config", f"deck: {error}") from None
            if len(first_deck) != DECK_SIZE:
                raise IllegalAction("bad_config", "deck must name each of the 52 cards once")
        engine = cls(
            {
                "config": checked,
                "players": players,
                "seed": seed,
                "first_deck": first_deck,
                "number": 0,
                "phase": HAND_OVER.value,
                "hands": [],
                "scores": [0] * players,
                "history": [],
                "target_side": None,
            }
        )
        engine._deal_round()
        return engine

    def _table_seats(self) -> list[list[int]]:
        if self.players == 4:
            return [[0, 1], [2, 3]]
        return [list(range(self.players))]

    def _next_dealer(self, table: int, candidates: list[int]) -> int:
        if not self.hands:
            return first_dealer(self.seed, table, candidates)
        previous = self.hands[table]
        if self.players == 3:
            return (previous.dealer + 1) % 3
        loser = previous.outcome["loser"] if previous.outcome else None
        return previous.dealer if loser is None else loser

    def _deal_round(self) -> None:
        self.number += 1
        hands = []
        for table, candidates in enumerate(self._table_seats()):
            dealer = self._next_dealer(table, candidates)
            if self.players == 3:
                seats = [(dealer + 1) % 3, (dealer + 2) % 3]
            else:
                seats = [seat for seat in candidates if seat != dealer] + [dealer]
            use_given = self.number == 1 and self.first_deck is not None
            deck = self.first_deck if use_given else hand_deck(self.seed, table, self.number)
            assert deck is not None
            hands.append(
                deal(
                    number=self.number,
                    table=table,
                    dealer=dealer,
                    seats=seats,
                    deck=deck,
                    config=self.config,
                )
            )
        self.hands = hands
        self.match_phase = PLAYING

    @property
    def phase(self) -> str:
        return self.match_phase.value

    def to_act(self) -> list[Seat]:
        if self.match_phase is not PLAYING:
            return []
        if len(self.hands) == 1:
            return self.hands[0].to_act()
        return [seat for hand in self.hands for seat in hand.to_act()]

    def table_of(self, seat: Seat) -> int | None:
        """The table where `seat` plays the current hand; None while it sits this hand out."""
        hand = self._hand_of(seat)
        return None if hand is None else hand.table

    def _hand_of(self, seat: Seat) -> Hand | None:
        for hand in self.hands:
            if seat in hand.seats:
                return hand
        return None

    def legal_actions(self, seat: Seat | None) -> list[Action]:
        if seat is None:
            return [{"type": "next_hand"}] if self.match_phase is HAND_OVER else []
        hand = self._hand_of(seat)
        if hand is None or self.match_phase is not PLAYING:
            return []
        return legal_actions(hand, seat, self.config)

    def apply(self, seat: Seat | None, action: Mapping[str, Any]) -> None:
        self._changes += 1
        # A dict is checked by its type first: the ABC's isinstance costs about 0.2 us a call.
        is_mapping = type(action) is dict or isinstance(action, Mapping)
        if not is_mapping or not isinstance(action.get("type"), str):
            raise IllegalAction("bad_action", "an action is an object with a string type")
        refuse_unknown_fields(action, ACTION_FIELDS)
        if self.match_phase is MATCH_OVER:
            raise IllegalAction("game_over", "the match is over")
        if action["type"] == "next_hand":
            self._next_hand(seat)
            return
        if seat is None:
            raise IllegalAction("not_your_turn", "only a seat may play; the room deals hands")
        if self.match_phase is HAND_OVER:
            raise IllegalAction("wrong_phase", "the hand is over; waiting for the next deal")
        hand = self._hand_of(seat)
        if hand is None:
            raise IllegalAction("not_your_turn", f"seat {seat} is not playing this hand")
        position, card = hand.turn, _named_card(action)
        known = card is not None and card in hand.known[position]
        apply_action(hand, seat, action, self.config)
        self._moved()
        if hand.outcome is not None:
            self._finish(hand)
        elif action["type"] in MOVE_PATCHED:
            self._last_move = (self._moves, hand.table, position, action["type"], card, known)

    def _moved(self) -> None:
        self._moves += 1
        self._last_move = None

    @property
    def moves(self) -> int:
        return self._moves

    def _next_hand(self, seat: Seat | None) -> None:
        if seat is not None:
            raise IllegalAction("not_your_turn", "next_hand is a system action (seat None)")
        if self.match_phase is not HAND_OVER:
            raise IllegalAction("wrong_phase", "the current hand is still being played")
        self._deal_round()
        self._moved()

    def _finish(self, hand: Hand) -> None:
        assert hand.outcome is not None
        self.history.append(hand.outcome)
        if hand.outcome["winner"] is not None:
            self.scores[hand.outcome["winner"]] += hand.outcome["points"]
        if any(other.phase is not HandPhase.OVER for other in self.hands):
            return
        self.target_side = side_reaching_target(self.sides, self.scores, self.config["target"])
        done = self.target_side is not None
        self.match_phase = MATCH_OVER if done else HAND_OVER

    def is_over(self) -> bool:
        return self.match_phase is MATCH_OVER

    def result(self) -> dict[str, Any] | None:
        if self.target_side is None:
            return None
        return final_result(
            sides=self.sides,
            scores=self.scores,
            history=self.history,
            config=self.config,
            target_side=self.target_side,
        )

    def hand_results(self) -> list[dict[str, Any]]:
        # In the order hands finished, so a stored prefix never changes.
        return [dict(record) for record in self.history]

    def hands_finished(self) -> int:
        return len(self.history)

    def hands_won(self) -> list[int]:
        won = [0] * self.players
        for record in self.history:
            if record["winner"] is not None:
                won[record["winner"]] += 1
        return won

    def view(self, seat: Seat | None) -> View:
        """What `seat` may know. Views are read-only: each is a new top-level object, but the
        rest of it (every table among them) is shared with other seats' views, and parts that
        did not change since the last call are the same objects, so building views and diffing
        them is cheap. A seat's own cards are in `me` only (its table shows them as nobody's
        until a knock lays both hands open), so its view differs from others in `seat` and `me`."""
        if self._public is None or self._public[0] != self._changes:
            self._previous_public = None if self._public is None else self._public[1]
            self._public = (self._changes, self._public_view())
        if seat is None:
            return SeatView(self._public[1], {})
        hand = self._hand_of(seat)
        me = None if hand is None else self._own_view(hand, seat)
        return SeatView(self._public[1], {"seat": seat, "me": me})

    def _public_view(self) -> View:
        """The spectator's view; a seat's view differs in `seat` and `me`."""
        while len(self._table_parts) < len(self.hands):
            self._table_parts.append(TableViews())
        to_act = self.to_act()
        if to_act != self._to_act:
            self._to_act = to_act
        view: View = {
            "game": self.name,
            "seat": None,
            "players": self.players,
            "phase": self.phase,
            "hand_number": self.number,
            "to_act": self._to_act,
        }
        view.update(self._match_view())
        view["tables"] = [
            parts.public(hand) for parts, hand in zip(self._table_parts, self.hands, strict=False)
        ]
        view["me"] = None
        return view

    def public_change(self, prefix: str) -> tuple[View, View, list[dict[str, Any]]] | None:
        """The last change of the public view: the view before it, the view after it and the
        JSON Patch between them (paths under `prefix`), or None where a generic diff is due
        (before the second view, after a hand or the match ended or a table was added)."""
        if self._public is None or self._previous_public is None:
            return None
        before, after = self._previous_public, self._public[1]
        if len(after) != len(_PUBLIC_KEYS):
            return None
        for key in _MATCH_KEYS:
            if before[key] is not after[key]:
                return None
        old_tables, new_tables = before["tables"], after["tables"]
        if len(old_tables) != len(new_tables):
            return None
        ops: list[dict[str, Any]] = []
        replace_changed(before, after, _PUBLIC_VALUES, prefix, ops)
        for table, (was, now) in enumerate(zip(old_tables, new_tables, strict=True)):
            if was is not now:
                table_patch(was, now, f"{prefix}/tables/{table}", ops)
        return before, after, ops

    def own_change(
        self, seat: Seat, prefix: str
    ) -> tuple[dict[str, Any], dict[str, Any], str, list[dict[str, Any]]] | None:
        """The last change of `seat`'s own part (`me`), if the current state rebuilt it: the
        part before and after, its path under `prefix` and the JSON Patch between them; None
        where it was not rebuilt since the last change (it is the same object) or is new."""
        before = self._own_before.get(seat)
        kept = self._own_parts.get(seat)
        if before is None or kept is None or before[0] != self._changes:
            return None
        path = f"{prefix}/me"
        ops: list[dict[str, Any]] = []
        own_patch(before[1], kept[1], path, ops)
        return before[1], kept[1], path, ops

    def move_patch(self, seat: Seat | None, prefix: str) -> list[dict[str, Any]] | None:
        """The patch the last action made to `seat`'s view, from the action itself: a draw, a
        discard or an answer to the upcard that left the hand in play. The seat's own part is
        compared with the one its views held before the action (None if none was built)."""
        last = self._last_move
        if last is None or last[0] != self._moves:
            return None
        ops = list(self._public_move_ops(last, prefix))
        if seat is None:
            return ops
        hand = self._hand_of(seat)
        if hand is None:
            return ops
        if seat not in self._own_parts:
            return None
        now = self._own_view(hand, seat)
        # Rebuilt since the action (here or by a view built since): what it was before.
        rebuilt = self._own_before.get(seat)
        if rebuilt is not None and rebuilt[0] == self._changes:
            own_patch(rebuilt[1], now, f"{prefix}/me", ops)
        return ops

    def _public_move_ops(
        self, last: tuple[int, int, int, str, int | None, bool], prefix: str
    ) -> list[dict[str, Any]]:
        # One list for every viewer of the move (read-only, like the views).
        kept = self._move_ops
        if kept is not None and kept[0] == self._moves and kept[1] == prefix:
            return kept[2]
        _, table, position, kind, card, known = last
        ops = move_table_ops(self.hands[table], position, kind, card, known, table, prefix)
        if kind in ("pass", "discard"):
            ops.append({"op": "replace", "path": f"{prefix}/to_act", "value": self.to_act()})
        self._move_ops = (self._moves, prefix, ops)
        return ops

    def _match_view(self) -> dict[str, Any]:
        # Scores, history and the result change only when a hand ends or the match does.
        key = (len(self.history), self.match_phase, self.target_side, self.number)
        if key != self._match_key:
            self._match_key = key
            self._match_part = {
                "config": dict(self.config),
                "sides": [list(side) for side in self.sides],
                "scores": list(self.scores),
                "side_scores": side_points(self.sides, self.scores),
                "hands_won": self.hands_won(),
                "history": [{key: record[key] for key in _SUMMARY_KEYS} for record in self.history],
                "result": self.result(),
            }
        return self._match_part

    def _own_view(self, hand: Hand, seat: Seat) -> dict[str, Any]:
        # A seat's own part changes only on its own moves, not on the opponent's (a card taken
        # this turn is the mover's alone).
        position = hand.seats.index(seat)
        taken = hand.taken if position == hand.turn else None
        key = (hand.number, hand.table, tuple(hand.cards[position]), taken)
        cached = self._own_parts.get(seat)
        if cached is None or cached[0] != key:
            if cached is not None:
                self._own_before[seat] = (self._changes, cached[1])
            cached = self._own_parts[seat] = (key, own_view(hand, seat, taken))
        return cached[1]

    def hidden_at(self, seat: Seat | None, table: int) -> set[str]:
        """Card names hidden from `seat` at one table (tables hold equal names with four)."""
        return {CARD_NAMES[card] for card in hidden_cards(self.hands[table], seat)}

    def hidden_from(self, seat: Seat | None) -> set[str]:
        """Names hidden from `seat` at every table; use `hidden_at` for one table's cards."""
        hidden = [self.hidden_at(seat, table) for table in range(len(self.hands))]
        return set.intersection(*hidden)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "config": dict(self.config),
            "players": self.players,
            "seed": self.seed,
            "first_deck": None if self.first_deck is None else list(self.first_deck),
            "number": self.number,
            "phase": self.phase,
            "hands": [hand.to_json() for hand in self.hands],
            "scores": list(self.scores),
            "history": [dict(record) for record in self.history],
            "target_side": self.target_side,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        return cls(data)
