"""The Rummikub match as a state machine: deal, turns, round ends, running totals."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, ClassVar, Final, Self

from app.games.engine import Action, Config, IllegalAction, Seat, View, refuse_unknown_fields
from app.games.rummikub import config as options
from app.games.rummikub import turn as steps
from app.games.rummikub.play import (
    CheckedPlay,
    carry_declarations,
    check_whole_play,
    parse_declarations,
    parse_table,
)
from app.games.rummikub.scoring import score_round
from app.games.rummikub.table_order import keep_places
from app.games.rummikub.tiles import ALL_TILES, NUMBERED_TILES
from app.games.rummikub.turn import TurnInProgress
from app.games.rummikub.views import (
    ViewParts,
    legal_templates,
    public_patch,
    public_view,
    seat_view,
)


class Phase(StrEnum):
    PLAYING = "playing"
    ROUND_OVER = "round_over"
    MATCH_OVER = "match_over"


# The members as module constants, for the code on every move: Python 3.11 reads an Enum
# class's attributes through a slow path (bench/bench_instructions.py, docs/performance.md).
PLAYING: Final = Phase.PLAYING
ROUND_OVER: Final = Phase.ROUND_OVER
MATCH_OVER: Final = Phase.MATCH_OVER


PLAYER_ACTIONS = (
    "play", "draw", "pass", "move", "split", "merge", "return", "reset", "declare", "end_turn",
)  # fmt: skip
SYSTEM_ACTIONS = ("timeout", "next_round")
ACTION_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "table", "jokers"}),
    "move": frozenset({"type", "tile", "to", "pos"}),
    "split": frozenset({"type", "meld", "at"}),
    "merge": frozenset({"type", "meld", "into", "pos"}),
    "return": frozenset({"type", "tile"}),
    "declare": frozenset({"type", "joker", "as"}),
    **{kind: frozenset({"type"}) for kind in ("draw", "pass", "reset", "end_turn")},
    **{kind: frozenset({"type"}) for kind in SYSTEM_ACTIONS},
}


class Rummikub:
    """A Rummikub match; see the package docstring for the rules and the actions."""

    name: ClassVar[str] = "rummikub"
    action_fields: ClassVar[Mapping[str, frozenset[str]]] = ACTION_FIELDS

    def __init__(self, config: Config, players: int, rng: random.Random) -> None:
        self.config = config
        self.players = players
        self.rng = rng
        # The random state as to_json gives it, kept until the next shuffle: reading it out of
        # the generator costs more than the rest of the state.
        self._rng_state: tuple[int, tuple[int, ...], float | None] | None = None
        self._phase = PLAYING
        self.round = 0
        self.first_seat = 0
        self.first_draw: list[list[str]] = [[] for _ in range(players)]
        self.current = 0
        self.turn_number = 0
        self.racks: list[list[str]] = [[] for _ in range(players)]
        self.pool: list[str] = []
        self.table: list[list[str]] = []
        self.declared: dict[str, str] = {}
        self.melded = [False] * players
        self.passes = 0
        self.turn: TurnInProgress | None = None
        self.scores = [0] * players
        self.results: list[dict[str, Any]] = []
        # Every action may change the state: views built since the last one share their public
        # part, built once (read-only, like every view).
        self._changes = 0
        self._public: tuple[int, View] | None = None
        # The public view built before the current one, for `public_change`.
        self._previous_public: View | None = None
        self._moves = 0
        self.view_parts = ViewParts()

    # -- the Engine interface -------------------------------------------------------------

    @classmethod
    def options(cls) -> list[dict[str, Any]]:
        return [dict(option) for option in options.OPTIONS]

    @classmethod
    def validate_config(cls, raw: Mapping[str, Any], players: int) -> Config:
        return options.validate_config(raw, players)

    @classmethod
    def seat_range(cls) -> tuple[int, int]:
        return options.MIN_PLAYERS, options.MAX_PLAYERS

    @classmethod
    def new(
        cls,
        config: Mapping[str, Any],
        players: int,
        seed: int | None = None,
        deck: list[str] | None = None,
    ) -> Self:
        """A new match. Without `deck` the first player is drawn for and the tiles shuffled.

        With `deck` (all 106 ids) seat 0 starts, racks are dealt in blocks of
        `tiles_per_player` (seat 0 first) and the pool is the rest, drawn from the front.
        """
        game = cls(options.validate_config(config, players), players, random.Random(seed or 0))
        if deck is not None:
            if sorted(deck) != sorted(ALL_TILES):
                raise IllegalAction("bad_config", "deck must hold each of the 106 tile ids once")
            game._start_round(0, list(deck))
        else:
            game._start_round(game._draw_for_first_player(), None)
        return game

    @property
    def phase(self) -> str:
        return self._phase.value

    def to_act(self) -> list[Seat]:
        return [self.current] if self._phase is PLAYING else []

    def legal_actions(self, seat: Seat | None) -> list[Action]:
        """One template per allowed action type (plays cannot be enumerated).

        For seat None: `timeout` while a timed turn runs, `next_round` between rounds.
        """
        return legal_templates(self, seat)

    def apply(self, seat: Seat | None, action: Mapping[str, Any]) -> None:
        self._changes += 1
        kind = action.get("type") if type(action) is dict or isinstance(action, Mapping) else None
        if kind not in PLAYER_ACTIONS and kind not in SYSTEM_ACTIONS:
            raise IllegalAction(
                "bad_action",
                f"unknown action type {kind!r}; expected one of "
                + ", ".join(PLAYER_ACTIONS + SYSTEM_ACTIONS),
            )
        refuse_unknown_fields(action, ACTION_FIELDS)
        if self._phase is MATCH_OVER:
            raise IllegalAction("game_over", "the match is over")
        if kind in SYSTEM_ACTIONS:
            if seat is not None:
                raise IllegalAction("bad_action", f"{kind} is applied by the room (seat None)")
            self._system(kind)
            self._moves += 1
            return
        if self._phase is ROUND_OVER:
            raise IllegalAction("round_over", "the round is over; the next one has not begun")
        if seat != self.current:
            raise IllegalAction("not_your_turn", f"it is seat {self.current}'s turn")
        self._handlers()[kind](self.current, action)
        self._moves += 1

    @property
    def moves(self) -> int:
        return self._moves

    def move_patch(self, seat: Seat | None, prefix: str) -> list[dict[str, Any]] | None:
        # A play rearranges the table and racks: its views are built and compared.
        return None

    def view(self, seat: Seat | None) -> View:
        if seat is not None and not 0 <= seat < self.players:
            raise IllegalAction("bad_action", f"no seat {seat} in a {self.players}-player game")
        if self._public is None or self._public[0] != self._changes:
            self._previous_public = None if self._public is None else self._public[1]
            self._public = (self._changes, public_view(self))
        return seat_view(self._public[1], self, seat)

    def public_change(self, prefix: str) -> tuple[View, View, list[dict[str, Any]]] | None:
        if self._public is None or self._previous_public is None:
            return None
        before, after = self._previous_public, self._public[1]
        ops = public_patch(before, after, prefix)
        return None if ops is None else (before, after, ops)

    def own_change(
        self, seat: Seat, prefix: str
    ) -> tuple[Any, Any, str, list[dict[str, Any]]] | None:
        # Only the mover's rack changes (the others are kept as the same lists): the differ
        # compares that one list.
        return None

    def hidden_from(self, seat: Seat | None) -> set[str]:
        hidden = set(self.pool)
        if self._phase is PLAYING:
            for other, rack in enumerate(self.racks):
                if other != seat:
                    hidden.update(rack)
        return hidden

    def is_over(self) -> bool:
        return self._phase is MATCH_OVER

    def result(self) -> dict[str, Any] | None:
        if self._phase is not MATCH_OVER:
            return None
        best = max(self.scores)
        winners = [seat for seat, score in enumerate(self.scores) if score == best]
        return {
            "scores": list(self.scores),
            "winner": winners[0] if len(winners) == 1 else None,
            "winners": winners,
            "rounds": len(self.results),
        }

    def hand_results(self) -> list[dict[str, Any]]:
        return [dict(record) for record in self.results]

    def hands_finished(self) -> int:
        return len(self.results)

    # -- dealing and turns ----------------------------------------------------------------

    def _draw_for_first_player(self) -> int:
        """Rule 2: each draws a tile, highest number starts (a joker counts 0), ties redraw."""
        tiles = list(ALL_TILES)
        self._shuffle(tiles)
        contenders = list(range(self.players))
        while len(contenders) > 1:
            drawn = {seat: tiles.pop() for seat in contenders}
            for seat, tile in drawn.items():
                self.first_draw[seat].append(tile[:-1] if tile in NUMBERED_TILES else "J")
            numbers = {seat: NUMBERED_TILES.get(tile, ("J", 0))[1] for seat, tile in drawn.items()}
            best = max(numbers.values())
            contenders = [seat for seat in contenders if numbers[seat] == best]
        return contenders[0]

    def _shuffle(self, tiles: list[str]) -> None:
        self.rng.shuffle(tiles)
        self._rng_state = None

    def _start_round(self, first_seat: int, deck: list[str] | None) -> None:
        if deck is None:
            deck = list(ALL_TILES)
            self._shuffle(deck)
        size = self.config["tiles_per_player"]
        self.racks = [deck[seat * size : (seat + 1) * size] for seat in range(self.players)]
        self.pool = deck[self.players * size :]
        self.table, self.declared = [], {}
        self.melded = [False] * self.players
        self.passes, self.turn = 0, None
        self.round += 1
        self.first_seat = self.current = first_seat
        self.turn_number = 1
        self._phase = PLAYING

    def _next_turn(self) -> None:
        self.turn = None
        self.current = (self.current + 1) % self.players
        self.turn_number += 1

    def _undo_turn(self) -> None:
        if self.turn is not None:
            self.racks[self.current] = list(self.turn.rack_before)
            self.turn = None

    def _handlers(self) -> dict[str, Callable[[int, Mapping[str, Any]], None]]:
        return {
            "play": self._play,
            "end_turn": self._end_turn,
            "draw": self._draw,
            "pass": self._pass,
            "move": self._step,
            "split": self._step,
            "merge": self._step,
            "return": self._step,
            "declare": self._step,
            "reset": self._reset,
        }

    # -- player actions -------------------------------------------------------------------

    def _play(self, seat: int, action: Mapping[str, Any]) -> None:
        table = keep_places(self.table, parse_table(action.get("table")))
        declared = carry_declarations(
            self.table, table, self.declared, parse_declarations(action.get("jokers"))
        )
        rack = self.turn.rack_before if self.turn is not None else self.racks[seat]
        checked = self._check(seat, table, rack, declared)
        self._commit(seat, table, rack, declared, checked)

    def _end_turn(self, seat: int, action: Mapping[str, Any]) -> None:
        if self.turn is None:
            raise IllegalAction("no_tile_played", "nothing was laid this turn; draw instead")
        turn = self.turn
        checked = self._check(seat, turn.table, turn.rack_before, turn.declared)
        self._commit(seat, turn.table, turn.rack_before, turn.declared, checked)

    def check_tentative(self) -> CheckedPlay:
        """The turn in progress checked as a whole play; raises IllegalAction if it fails."""
        if self.turn is None:
            raise IllegalAction("no_tile_played", "nothing was laid this turn")
        turn = self.turn
        return self._check(self.current, turn.table, turn.rack_before, turn.declared)

    def _check(
        self, seat: int, table: list[list[str]], rack: list[str], declared: dict[str, str]
    ) -> CheckedPlay:
        return check_whole_play(
            self.table,
            table,
            rack,
            self.melded[seat],
            initial_meld_points=self.config["initial_meld_points"],
            jokers=declared,
        )

    def _commit(
        self,
        seat: int,
        table: list[list[str]],
        rack: list[str],
        declared: dict[str, str],
        checked: CheckedPlay,
    ) -> None:
        played = set(checked.played)
        self.racks[seat] = [tile for tile in rack if tile not in played]
        self.table = [list(meld) for meld in table]
        on_table = {tile for meld in table for tile in meld}
        self.declared = {joker: f for joker, f in declared.items() if joker in on_table}
        self.melded[seat] = True
        self.passes = 0
        if not self.racks[seat]:
            self._end_round(seat, "empty_rack")
        else:
            self._next_turn()

    def _draw(self, seat: int, action: Mapping[str, Any]) -> None:
        if not self.pool:
            raise IllegalAction("pool_empty", "the pool is empty; pass instead")
        self._undo_turn()
        self.racks[seat].append(self.pool.pop(0))
        self.passes = 0
        self._next_turn()

    def _pass(self, seat: int, action: Mapping[str, Any]) -> None:
        if self.pool:
            raise IllegalAction(
                "pool_not_empty", "you may pass only when the pool is empty; draw instead"
            )
        self._undo_turn()
        self._count_pass()

    def _count_pass(self) -> None:
        """Rule 8: with the pool empty, a full circle of passes ends the round."""
        self.passes += 1
        if self.passes >= self.players:
            self._end_round(None, "pool_exhausted")
        else:
            self._next_turn()

    def _step(self, seat: int, action: Mapping[str, Any]) -> None:
        turn = self.turn or TurnInProgress(
            [list(meld) for meld in self.table], dict(self.declared), list(self.racks[seat])
        )
        melded, rack, kind = self.melded[seat], self.racks[seat], action["type"]
        if kind == "move":
            steps.move(turn, rack, action, melded)
        elif kind == "split":
            steps.split(turn, action, melded)
        elif kind == "merge":
            steps.merge(turn, action, melded)
        elif kind == "return":
            steps.return_tile(turn, rack, action)
        else:
            steps.declare(turn, action, melded)
        # The others watch the turn step by step: each meld stays in the place of the one it
        # came from, a new meld (or a split's smaller part) goes after them.
        turn.table[:] = keep_places(self.table, turn.table)
        self.turn = turn

    def _reset(self, seat: int, action: Mapping[str, Any]) -> None:
        self._undo_turn()

    # -- system actions and round ends ----------------------------------------------------

    def _system(self, kind: str) -> None:
        if kind == "next_round":
            if self._phase is not ROUND_OVER:
                raise IllegalAction("bad_action", "next_round only between rounds")
            self._start_round((self.first_seat + 1) % self.players, None)
            return
        if self.config["turn_timer_s"] == 0:
            raise IllegalAction("bad_action", "the turn timer is off")
        if self._phase is not PLAYING:
            raise IllegalAction("round_over", "no turn is running")
        self._undo_turn()
        if not self.pool:
            self._count_pass()
            return
        penalty = self.pool[: self.config["timeout_penalty_tiles"]]
        del self.pool[: len(penalty)]
        self.racks[self.current].extend(penalty)
        self.passes = 0
        self._next_turn()

    def _end_round(self, winner: int | None, reason: str) -> None:
        self.turn = None
        score = score_round(self.racks, winner, self.first_seat)
        points = score.points
        self.scores = [total + gained for total, gained in zip(self.scores, points, strict=True)]
        self.results.append(
            {
                "round": self.round,
                "winner": score.winner,
                "reason": reason,
                "rack_values": score.rack_values,
                "points": points,
                "totals": list(self.scores),
                "racks": [list(rack) for rack in self.racks],
            }
        )
        rounds, target = self.config["rounds"], self.config["target_score"]
        done = (rounds and self.round >= rounds) or (target and max(self.scores) >= target)
        self._phase = MATCH_OVER if done else ROUND_OVER

    # -- serialisation --------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        if self._rng_state is None:
            self._rng_state = self.rng.getstate()
        version, internal, gauss = self._rng_state
        return {
            "game": self.name,
            "config": dict(self.config),
            "players": self.players,
            "rng": [version, list(internal), gauss],
            "phase": self._phase.value,
            "round": self.round,
            "first_seat": self.first_seat,
            "first_draw": [list(tiles) for tiles in self.first_draw],
            "current": self.current,
            "turn_number": self.turn_number,
            "racks": [list(rack) for rack in self.racks],
            "pool": list(self.pool),
            "table": [list(meld) for meld in self.table],
            "declared": dict(self.declared),
            "melded": list(self.melded),
            "passes": self.passes,
            "turn": self.turn.to_json() if self.turn is not None else None,
            "scores": list(self.scores),
            "results": [dict(record) for record in self.results],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        rng = random.Random()
        version, internal, gauss = data["rng"]
        rng.setstate((version, tuple(internal), gauss))
        game = cls(dict(data["config"]), data["players"], rng)
        game._phase = Phase(data["phase"])
        game.round, game.first_seat = data["round"], data["first_seat"]
        game.first_draw = [list(tiles) for tiles in data["first_draw"]]
        game.current, game.turn_number = data["current"], data["turn_number"]
        game.racks = [list(rack) for rack in data["racks"]]
        game.pool = list(data["pool"])
        game.table = [list(meld) for meld in data["table"]]
        game.declared = dict(data["declared"])
        game.melded = list(data["melded"])
        game.passes = data["passes"]
        game.turn = TurnInProgress.from_json(data["turn"]) if data["turn"] else None
        game.scores = list(data["scores"])
        game.results = [dict(record) for record in data["results"]]
        return game
