"""Ratings as a pure fold over finished matches: who is rated in a match, at which place, and
their new ratings, with openskill's Plackett-Luce model (Weng-Lin), which rates teams and
finishing places with ties.

A mode is a game and its number of players ("gin_rummy:4": two partnerships). A match rates:
- a person's seat linked to a player; if at the end a bot plays it (the person left, or was
  away so long that a bot took over) the seat still rates its player, placed last;
- a bot seat as the bot player of its game and level (app.players.bots);
- no anonymous seat. A side (a partnership, or one seat) with no rated seat drops out; a match
  rates nothing unless two rated sides remain. A player on two seats of one match (two bots
  of one level, or one person twice) is not rated by it.
Places: the winning side first, the others by their final totals, equal totals sharing a
place; sides that left come after all of them, sharing the last place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma
# The shown rating: the conservative estimate, mu - 3 sigma (0 for a new player), on a scale
# where a new player starts at 1500.
SHOWN_BASE = 1500
SHOWN_SCALE = 20
PROVISIONAL_MATCHES = 10


def mode_of(game: str, players: int) -> str:
    return f"{game}:{players}"


def shown(mu: float, sigma: float) -> int:
    return round(SHOWN_BASE + SHOWN_SCALE * (mu - 3 * sigma))


def bot_player_id(game: str, level: str) -> str:
    return f"bot-{game}-{level}"


@dataclass(frozen=True, slots=True)
class SeatAtEnd:
    """A seat as the match ended: its player (None: anonymous), kind and bot level."""

    seat: int
    player_id: str | None
    kind: str
    level: str | None


@dataclass(frozen=True, slots=True)
class RatedSide:
    players: tuple[str, ...]
    rank: int


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0

    @property
    def shown(self) -> int:
        return shown(self.mu, self.sigma)


NEW_RATING = Rating(DEFAULT_MU, DEFAULT_SIGMA, 0)


def _sides_of(result: Mapping[str, Any], players: int) -> list[tuple[list[int], int]]:
    """(seats, total) per side: a result's "sides" where it has them, else one seat a side."""
    sides = result.get("sides")
    if isinstance(sides, list) and sides and all(isinstance(s, dict) for s in sides):
        return [(list(s["seats"]), int(s["total"])) for s in sides]
    scores = result.get("scores") or [0] * players
    return [([seat], int(scores[seat])) for seat in range(players)]


def _left(seat: SeatAtEnd) -> bool:
    return seat.player_id is not None and seat.kind == "bot"


def places(result: Mapping[str, Any], seats: Sequence[SeatAtEnd]) -> list[int]:
    """Each seat's finishing place, 0 first; partners share their side's."""
    sides = _sides_of(result, len(seats))
    winners = set(result.get("winners") or [])
    gone = [any(_left(seats[s]) for s in side) for side, _ in sides]

    def key(index: int) -> tuple[int, int, int]:
        side, total = sides[index]
        won = bool(winners & set(side))
        return (1 if gone[index] else 0, 0 if won else 1, -total)

    keys = [key(index) for index in range(len(sides))]
    # The totals of sides that left do not order them: they share the last place.
    keys = [(k[0], 0, 0) if gone[i] else k for i, k in enumerate(keys)]
    place = [0] * len(seats)
    for index, (side, _) in enumerate(sides):
        better = sum(1 for other in keys if other < keys[index])
        for seat in side:
            place[seat] = better
    return place


def rated_id(game: str, seat: SeatAtEnd) -> str | None:
    if seat.player_id is not None:
        return seat.player_id
    if seat.kind == "bot" and seat.level is not None:
        return bot_player_id(game, seat.level)
    return None


def rated_sides(
    game: str, result: Mapping[str, Any], seats: Sequence[SeatAtEnd]
) -> list[RatedSide]:
    """The sides a finished match rates, with their ranks; empty when it rates nothing."""
    seat_places = places(result, seats)
    ids = [rated_id(game, seat) for seat in seats]
    twice = {pid for pid in ids if pid is not None and ids.count(pid) > 1}
    sides: list[RatedSide] = []
    for side, _ in _sides_of(result, len(seats)):
        members = tuple(ids[s] for s in side if ids[s] is not None and ids[s] not in twice)
        if members:
            sides.append(RatedSide(members, seat_places[side[0]]))  # type: ignore[arg-type]
    return sides if len(sides) >= 2 else []


def rate(
    sides: Sequence[RatedSide], current: Mapping[str, Rating]
) -> dict[str, tuple[Rating, Rating]]:
    """Each rated player's (before, after); `current` lacks players never rated in the mode."""
    before = {pid: current.get(pid, NEW_RATING) for side in sides for pid in side.players}
    teams = [[MODEL.rating(before[p].mu, before[p].sigma) for p in side.players] for side in sides]
    new = MODEL.rate(teams, ranks=[float(side.rank) for side in sides])
    changes: dict[str, tuple[Rating, Rating]] = {}
    for side, team in zip(sides, new, strict=True):
        for pid, rating in zip(side.players, team, strict=True):
            old = before[pid]
            changes[pid] = (old, Rating(rating.mu, rating.sigma, old.matches + 1))
    return changes
