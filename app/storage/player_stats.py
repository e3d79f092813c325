"""Player statistics from stored match and hand results (shared by every store).

Hand results are the engines' own `hand_results()` records (Gin Rummy: "ending", "knocker",
"winner", "seats" at that table, "players" with each seat's "deadwood_points"; Rummikub:
"winner"), read defensively: a missing key counts as nothing rather than as an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.storage.records import GinStats, PlayerStats, RummikubStats

GIN_RUMMY = "gin_rummy"
RUMMIKUB = "rummikub"


@dataclass(frozen=True)
class PlayerMatch:
    """One finished match seen from one of the player's seats."""

    game: str
    seat: int
    result: dict[str, Any] | None
    hands: list[dict[str, Any]]


def winning_seats(result: dict[str, Any] | None) -> set[int]:
    """The seats a match result names as winners ("winner": seat, or "winners": [seats])."""
    if not result:
        return set()
    seats: set[int] = set()
    winner = result.get("winner")
    if isinstance(winner, int) and not isinstance(winner, bool):
        seats.add(winner)
    winners = result.get("winners")
    if isinstance(winners, list):
        seats.update(s for s in winners if isinstance(s, int) and not isinstance(s, bool))
    return seats


def _seat_in(value: Any, seat: int) -> bool:
    if isinstance(value, list):
        return seat in value
    return isinstance(value, int) and value == seat


def _ending(hand: dict[str, Any]) -> Any:
    return hand.get("ending", hand.get("outcome"))


def _deadwood_of(hand: dict[str, Any], seat: int) -> int | None:
    """The seat's deadwood points in a Gin Rummy hand record ("players": [{seat, ...}])."""
    for player in hand.get("players") or []:
        if isinstance(player, dict) and player.get("seat") == seat:
            points = player.get("deadwood_points")
            return points if isinstance(points, int) else None
    return None


def _gin_stats(entries: list[tuple[int, dict[str, Any]]]) -> GinStats:
    counts: Counter[str] = Counter()
    knock_deadwood: list[int] = []
    for seat, hand in entries:
        if seat not in (hand.get("seats") or [seat]):
            continue  # a four-player match's other table
        counts["played"] += 1
        ending = _ending(hand)
        won = _seat_in(hand.get("winner"), seat)
        counts["won"] += won
        counts["undercuts"] += ending == "undercut" and won
        if not _seat_in(hand.get("knocker"), seat):
            continue
        counts["knocks"] += 1
        counts["gins"] += ending == "gin"
        counts["big_gins"] += ending == "big_gin"
        counts["undercut_against"] += ending == "undercut"
        deadwood = _deadwood_of(hand, seat)
        if deadwood is not None:
            knock_deadwood.append(deadwood)
    average = round(sum(knock_deadwood) / len(knock_deadwood), 2) if knock_deadwood else None
    return GinStats(
        hands_played=counts["played"],
        hands_won=counts["won"],
        knocks=counts["knocks"],
        gins=counts["gins"],
        big_gins=counts["big_gins"],
        undercuts=counts["undercuts"],
        undercut_against=counts["undercut_against"],
        average_deadwood_at_knock=average,
    )


def _rummikub_stats(entries: list[tuple[int, dict[str, Any]]]) -> RummikubStats:
    won = sum(1 for seat, hand in entries if _seat_in(hand.get("winner"), seat))
    return RummikubStats(rounds_played=len(entries), rounds_won=won)


def compute_player_stats(name: str, matches: Iterable[PlayerMatch]) -> PlayerStats:
    played = 0
    won = 0
    by_game: Counter[str] = Counter()
    hands: dict[str, list[tuple[int, dict[str, Any]]]] = {GIN_RUMMY: [], RUMMIKUB: []}
    for match in matches:
        played += 1
        by_game[match.game] += 1
        if match.seat in winning_seats(match.result):
            won += 1
        hands.setdefault(match.game, []).extend((match.seat, hand) for hand in match.hands)
    return PlayerStats(
        name=name,
        matches_played=played,
        matches_won=won,
        matches_by_game=dict(by_game),
        gin_rummy=_gin_stats(hands[GIN_RUMMY]),
        rummikub=_rummikub_stats(hands[RUMMIKUB]),
    )
