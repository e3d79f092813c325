"""How a hand ends and what it scores: knock, undercut, gin, big gin or a drawn hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.games.gin_rummy.cards import names, to_mask
from app.games.gin_rummy.hand import Hand, HandPhase
from app.games.gin_rummy.layoffs import Defence, best_defence
from app.games.gin_rummy.melds import Arrangement, best_arrangement_mask


def _player_record(seat: int, arrangement: Arrangement, layoffs: Any = ()) -> dict[str, Any]:
    return {
        "seat": seat,
        "melds": [names(meld) for meld in arrangement.melds],
        "deadwood": names(arrangement.deadwood),
        "deadwood_points": arrangement.deadwood_points,
        "layoffs": [{"card": names([card])[0], "meld": index} for card, index in layoffs],
    }


def _base_record(hand: Hand, ending: str) -> dict[str, Any]:
    return {
        "hand": hand.number,
        "table": hand.table,
        "dealer": hand.dealer,
        "seats": list(hand.seats),
        "knock_limit": hand.knock_limit,
        "ending": ending,
        "knocker": None,
        "winner": None,
        "loser": None,
        "deadwood_difference": 0,
        "bonus": 0,
        "points": 0,
        "players": [],
    }


def end_in_draw(hand: Hand) -> None:
    """Two stock cards left after a discard and nobody knocked: nobody scores."""
    hand.outcome = _base_record(hand, "draw")
    hand.phase = HandPhase.OVER
    hand.taken = None


def end_by_knock(
    hand: Hand,
    position: int,
    kind: str,
    arrangement: Arrangement,
    config: Mapping[str, Any],
) -> None:
    """Settle a knock, gin or big gin by `position`, whose cards are laid out as `arrangement`.

    A knock whose arrangement has no deadwood is a gin. Lay-offs are allowed only against a
    plain knock; gin and big gin are never undercut.
    """
    if kind == "knock" and arrangement.deadwood_points == 0:
        kind = "gin"
    defender = 1 - position
    defender_mask = to_mask(hand.cards[defender])
    if kind == "knock":
        defence = best_defence(defender_mask, arrangement.melds)
    else:
        defence = Defence(best_arrangement_mask(defender_mask), ())
    knocker_points = arrangement.deadwood_points
    defender_points = defence.arrangement.deadwood_points
    record = _base_record(hand, kind)
    record["knocker"] = hand.seats[position]
    winner = position
    if kind == "gin":
        record["bonus"] = config["gin_bonus"]
        record["deadwood_difference"] = defender_points
    elif kind == "big_gin":
        record["bonus"] = config["big_gin_bonus"]
        record["deadwood_difference"] = defender_points
    elif defender_points <= knocker_points:
        record["ending"] = "undercut"
        record["bonus"] = config["undercut_bonus"]
        record["deadwood_difference"] = knocker_points - defender_points
        winner = defender
    else:
        record["deadwood_difference"] = defender_points - knocker_points
    record["points"] = record["bonus"] + record["deadwood_difference"]
    record["winner"] = hand.seats[winner]
    record["loser"] = hand.seats[1 - winner]
    knocker_record = _player_record(hand.seats[position], arrangement)
    defender_record = _player_record(hand.seats[defender], defence.arrangement, defence.layoffs)
    record["players"] = sorted(
        [knocker_record, defender_record], key=lambda player: hand.seats.index(player["seat"])
    )
    hand.outcome = record
    hand.phase = HandPhase.OVER
    hand.taken = None
