"""The end of a match: game bonus, line bonuses, shutout and the winner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def sides_for(players: int) -> list[list[int]]:
    """Who scores together: each seat alone, or with four players seats 0+2 and 1+3."""
    if players == 4:
        return [[0, 2], [1, 3]]
    return [[seat] for seat in range(players)]


def side_of(sides: Sequence[Sequence[int]], seat: int) -> int:
    return next(index for index, side in enumerate(sides) if seat in side)


def side_points(sides: Sequence[Sequence[int]], scores: Sequence[int]) -> list[int]:
    return [sum(scores[seat] for seat in side) for side in sides]


def side_reaching_target(
    sides: Sequence[Sequence[int]], scores: Sequence[int], target: int
) -> int | None:
    """The side whose total reached the target, or None; if two reach it level, play on."""
    totals = side_points(sides, scores)
    best = max(totals)
    if best < target or totals.count(best) > 1:
        return None
    return totals.index(best)


def _shutout_bonus(
    side: Sequence[int], points: int, history: Sequence[Mapping[str, Any]], rule: str
) -> int:
    """000: the winner won every hand and none was drawn (with three players, every hand of
    the match, including those the winner sat out)."""
    if rule == "none" or not all(record["winner"] in side for record in history):
        return 0
    return points if rule == "double" else 100


def final_result(
    *,
    sides: Sequence[Sequence[int]],
    scores: Sequence[int],
    history: Sequence[Mapping[str, Any]],
    config: Mapping[str, Any],
    target_side: int,
) -> dict[str, Any]:
    """Each side's hand points and bonuses, and the side with the highest final total."""
    breakdown = []
    for index, side in enumerate(sides):
        points = sum(scores[seat] for seat in side)
        won = sum(1 for record in history if record["winner"] in side)
        game_bonus = config["game_bonus"] if index == target_side else 0
        shutout = 0
        if index == target_side:
            shutout = _shutout_bonus(side, points, history, config["shutout"])
        line_bonus = config["line_bonus"] * won
        breakdown.append(
            {
                "side": index,
                "seats": list(side),
                "hand_points": points,
                "hands_won": won,
                "game_bonus": game_bonus,
                "shutout_bonus": shutout,
                "line_bonus": line_bonus,
                "total": points + game_bonus + shutout + line_bonus,
            }
        )
    totals = [entry["total"] for entry in breakdown]
    best = max(totals)
    leaders = [index for index, total in enumerate(totals) if total == best]
    winner = leaders[0] if len(leaders) == 1 else (target_side if target_side in leaders else None)
    seat_scores = [0] * sum(len(side) for side in sides)
    for entry in breakdown:
        for seat in entry["seats"]:
            seat_scores[seat] = entry["total"]
    return {
        "sides": breakdown,
        "totals": totals,
        "scores": seat_scores,
        "reached_target": target_side,
        "shutout": breakdown[target_side]["shutout_bonus"] > 0,
        "winner_side": winner,
        "winners": [] if winner is None else list(sides[winner]),
    }
