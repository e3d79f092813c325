"""Player statistics from stored match and hand results (shared by every store).

Hand results are the engines' own `hand_results()` records, so this module reads them
defensively: a missing key counts as nothing rather than as an error.
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
    return value == seat


def _gin_stats(entries: list[tuple[int, dict[str, Any]]]) -> GinStats:
    counts: Counter[str] = Counter()
    knock_deadwood: list[int] = []
    for seat, hand in entries:
        counts["played"] += 1
        outcome = hand.get("outcome")
        if _seat_in(hand.get("winner"), seat):
            counts["won"] += 1
        if not _seat_in(hand.get("knocker"), seat):
            continue
        counts["knocks"] += 1
        if outcome == "gin":
            counts["gins"] += 1
        elif outcome == "big_gin":
            counts["big_gins"] += 1
        elif outcome == "undercut":
            counts["undercut_against"] += 1
        deadwood = hand.get("deadwood")
        if isinstance(deadwood, list) and seat < len(deadwood):
            knock_deadwood.append(int(deadwood[seat]))
    for seat, hand in entries:
        if hand.get("outcome") == "undercut" and _seat_in(hand.get("winner"), seat):
            counts["undercuts"] += 1
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
