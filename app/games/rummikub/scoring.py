"""Rule 9: what a finished round is worth to each player."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.games.rummikub.tiles import rack_value


@dataclass(frozen=True)
class RoundScore:
    winner: int
    rack_values: list[int]
    points: list[int]


def score_round(racks: Sequence[Sequence[str]], winner: int | None, first_seat: int) -> RoundScore:
    """Losers lose their rack value (joker 30); the winner gains what they lose beyond its own.

    `winner` is None when the round ended on an empty pool: the lowest rack wins, a tie going
    to the tied player first in the round's turn order (which begins at `first_seat`).
    """
    players = len(racks)
    values = [rack_value(rack) for rack in racks]
    if winner is None:
        order = [(first_seat + step) % players for step in range(players)]
        winner = min(order, key=lambda seat: values[seat])
    points = [-value for value in values]
    # With an empty winning rack this is simply the sum of the losers' racks.
    points[winner] = sum(values[seat] - values[winner] for seat in range(players))
    return RoundScore(winner, values, points)
