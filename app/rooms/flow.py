"""What a room must know about each game's flow: its system actions and its turn clock."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.games.engine import Action, Engine
from app.games.gin_rummy import GinRummy


def no_turn_timer(options: Mapping[str, Any]) -> int:
    return 0


def option_seconds(name: str) -> Callable[[Mapping[str, Any]], int]:
    def seconds(options: Mapping[str, Any]) -> int:
        value = options.get(name, 0)
        return value if isinstance(value, int) else 0

    return seconds


def turn_key(engine: Engine) -> tuple[Any, ...]:
    # A new turn starts whenever the set of seats to act changes, or a hand ends.
    return (len(engine.hand_results()), tuple(engine.to_act()))


def one_table(engine: Engine, seat: int) -> int | None:
    return None


def gin_table(engine: Engine, seat: int) -> int | None:
    """With four players, two tables play at once and a move at one changes nothing the
    other's players may do: each table has its own staleness (see Room.act)."""
    assert isinstance(engine, GinRummy)
    return engine.table_of(seat) if engine.players == 4 else None


@dataclass(frozen=True)
class RoomFlow:
    next_hand: Action
    timeout: Action = field(default_factory=lambda: {"type": "timeout"})
    turn_seconds: Callable[[Mapping[str, Any]], int] = no_turn_timer
    turn_key: Callable[[Engine], tuple[Any, ...]] = turn_key
    # The part of the game a seat's move changes alone (a table), or None for the whole game.
    table_of: Callable[[Engine, int], int | None] = one_table


FLOWS: dict[str, RoomFlow] = {
    "gin_rummy": RoomFlow(next_hand={"type": "next_hand"}, table_of=gin_table),
    "rummikub": RoomFlow(
        next_hand={"type": "next_round"}, turn_seconds=option_seconds("turn_timer_s")
    ),
}
