"""How a hand ends and what it scores: knock, undercut, gin, big gin or a drawn hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.games.gin_rummy.cards import names, to_mask
from app.games.gin_rummy.hand import OVER, Hand
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
    hand.phase = OVER
    hand.taken = None


def _score(record: dict[str, Any], mine: int, theirs: int, config: Mapping[str, Any]) -> bool:
    """Fill in ending, bonus, difference and points; True when the knocker wins."""
    kind = record["ending"]
    if kind in ("gin", "big_gin"):
        record["bonus"] = config["gin_bonus" if kind == "gin" else "big_gin_bonus"]
        record["deadwood_difference"] = theirs
    elif theirs <= mine:
        record["ending"] = "undercut"
        record["bonus"] = config["undercut_bonus"]
        record["deadwood_difference"] = mine - theirs
    else:
        record["deadwood_difference"] = theirs - mine
    record["points"] = record["bonus"] + record["deadwood_difference"]
    return bool(record["ending"] != "undercut")


def end_by_knock(
    hand: Hand,
    position: int,
    kind: str,
    arrangement: Arrangement,
    config: Mapping[str, Any],
    defence: Defence | None = None,
) -> None:
    """Settle a knock, gin or big gin by `position`, whose cards are laid out as `arrangement`;
    `defence` is the defender's answer to a plain knock (None: its best).

    A knock whose arrangement has no deadwood is a gin. Lay-offs are allowed only against a
    plain knock; gin and big gin are never undercut.
    """
    if kind == "knock" and arrangement.deadwood_points == 0:
        kind = "gin"
    defender = 1 - position
    defender_mask = to_mask(hand.cards[defender])
    if kind != "knock":
        defence = Defence(best_arrangement_mask(defender_mask), ())
    elif defence is None:
        defence = best_defence(defender_mask, arrangement.melds)
    record = _base_record(hand, kind)
    record["knocker"] = hand.seats[position]
    mine, theirs = arrangement.deadwood_points, defence.arrangement.deadwood_points
    winner = position if _score(record, mine, theirs, config) else defender
    record["winner"] = hand.seats[winner]
    record["loser"] = hand.seats[1 - winner]
    players = {
        position: _player_record(hand.seats[position], arrangement),
        defender: _player_record(hand.seats[defender], defence.arrangement, defence.layoffs),
    }
    record["players"] = [players[0], players[1]]
    hand.outcome = record
    hand.knocker = position
    hand.laid_out = None
    hand.phase = OVER
    hand.taken = None
