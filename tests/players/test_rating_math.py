"""Who a finished match rates, at which place, and the new ratings: openskill's own numbers."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from app.players.rating_math import (
    NEW_RATING,
    RatedSide,
    Rating,
    SeatAtEnd,
    places,
    rate,
    rated_sides,
    shown,
)

MODEL = PlackettLuce()


def person(seat: int, player: str | None) -> SeatAtEnd:
    return SeatAtEnd(seat, player, "human", None)


def bot(seat: int, level: str = "hard", player: str | None = None) -> SeatAtEnd:
    return SeatAtEnd(seat, player, "bot", level)


def gin_pairs(winning_total: int, losing_total: int) -> dict[str, object]:
    return {
        "sides": [
            {"side": 0, "seats": [0, 2], "total": winning_total},
            {"side": 1, "seats": [1, 3], "total": losing_total},
        ],
        "winners": [0, 2],
        "scores": [winning_total, losing_total, winning_total, losing_total],
    }


def openskill(teams: list[list[Rating]], ranks: list[float]) -> list[list[tuple[float, float]]]:
    made = [[MODEL.rating(r.mu, r.sigma) for r in team] for team in teams]
    return [[(r.mu, r.sigma) for r in team] for team in MODEL.rate(made, ranks=ranks)]


def after(changes: dict[str, tuple[Rating, Rating]], pid: str) -> tuple[float, float]:
    return changes[pid][1].mu, changes[pid][1].sigma


def test_a_new_player_is_shown_at_1500() -> None:
    assert NEW_RATING.shown == 1500
    assert shown(30.0, 2.0) == 1500 + 20 * 24


def test_two_player_gin_rates_the_winner_above_the_loser_as_openskill_does() -> None:
    result = {"winners": [1], "scores": [60, 180]}
    seats = [person(0, "ann"), person(1, "bob")]
    sides = rated_sides("gin_rummy", result, seats)
    assert sides == [RatedSide(("ann",), 1), RatedSide(("bob",), 0)]
    current = {"ann": Rating(27.0, 6.0, 4)}
    changes = rate(sides, current)
    expected = openskill([[Rating(27.0, 6.0)], [NEW_RATING]], [1.0, 0.0])
    assert after(changes, "ann") == expected[0][0]
    assert after(changes, "bob") == expected[1][0]
    assert changes["ann"][1].matches == 5
    assert changes["bob"][1].matches == 1


def test_three_player_gin_places_by_total_with_the_winner_first() -> None:
    # The match went to the side that reached the target; the others by their totals.
    result = {"winners": [2], "scores": [90, 40, 130]}
    seats = [person(0, "ann"), person(1, "bob"), person(2, "cy")]
    assert places(result, seats) == [1, 2, 0]
    changes = rate(rated_sides("gin_rummy", result, seats), {})
    expected = openskill([[NEW_RATING]] * 3, [1.0, 2.0, 0.0])
    assert [after(changes, p) for p in ("ann", "bob", "cy")] == [e[0] for e in expected]


def test_four_player_gin_rates_partnerships_as_teams() -> None:
    seats = [person(0, "ann"), person(1, "bob"), person(2, "cy"), bot(3, "easy")]
    sides = rated_sides("gin_rummy", gin_pairs(250, 120), seats)
    assert sides == [RatedSide(("ann", "cy"), 0), RatedSide(("bob", "bot-gin_rummy-easy"), 1)]
    changes = rate(sides, {"cy": Rating(30.0, 3.0, 20)})
    expected = openskill([[NEW_RATING, Rating(30.0, 3.0)], [NEW_RATING, NEW_RATING]], [0.0, 1.0])
    assert after(changes, "ann") == expected[0][0]
    assert after(changes, "cy") == expected[0][1]
    assert after(changes, "bob") == expected[1][0]
    assert after(changes, "bot-gin_rummy-easy") == expected[1][1]
    assert places(gin_pairs(250, 120), seats) == [0, 1, 0, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rummikub_places_by_score_and_ties_share_a_place(players: int) -> None:
    scores = [12, -5, -5, -2][:players]
    if players == 2:
        scores = [-7, -7]
    best = max(scores)
    winners = [s for s, v in enumerate(scores) if v == best]
    result = {
        "scores": scores,
        "winners": winners,
        "winner": winners[0] if len(winners) == 1 else None,
    }
    seats = [person(s, f"p{s}") for s in range(players)]
    sides = rated_sides("rummikub", result, seats)
    ranks = [float(sum(1 for other in scores if other > mine)) for mine in scores]
    assert [side.rank for side in sides] == ranks
    changes = rate(sides, {})
    expected = openskill([[NEW_RATING]] * players, ranks)
    assert [after(changes, f"p{s}") for s in range(players)] == [e[0] for e in expected]
    if players == 2:
        assert after(changes, "p0") == after(changes, "p1")


def test_a_seat_that_left_counts_last_whatever_its_score() -> None:
    # Seat 0 left mid-match: a bot finished it, and won the round with it.
    result = {"scores": [20, -5, -15], "winners": [0]}
    seats = [bot(0, "normal", player="ann"), person(1, "bob"), person(2, "cy")]
    assert places(result, seats) == [2, 0, 1]
    sides = rated_sides("rummikub", result, seats)
    assert sides == [
        RatedSide(("ann",), 2),
        RatedSide(("bob",), 0),
        RatedSide(("cy",), 1),
    ]


def test_two_seats_that_left_share_the_last_place() -> None:
    result = {"scores": [20, -5, -15, -1], "winners": [0]}
    seats = [bot(0, player="ann"), person(1, "bob"), bot(2, player="cy"), person(3, "dee")]
    assert places(result, seats) == [2, 1, 2, 0]


def test_anonymous_seats_are_not_rated_and_the_rest_are_rated_among_themselves() -> None:
    result = {"scores": [20, -5, -15], "winners": [0]}
    seats = [person(0, None), person(1, "bob"), bot(2, "easy")]
    sides = rated_sides("rummikub", result, seats)
    assert sides == [RatedSide(("bob",), 1), RatedSide(("bot-rummikub-easy",), 2)]
    changes = rate(sides, {})
    expected = openskill([[NEW_RATING], [NEW_RATING]], [1.0, 2.0])
    assert after(changes, "bob") == expected[0][0]


def test_a_match_with_one_rated_side_rates_nothing() -> None:
    result = {"scores": [20, -5], "winners": [0]}
    assert rated_sides("rummikub", result, [person(0, None), person(1, "bob")]) == []


def test_two_bots_of_one_level_are_not_rated_against_each_other() -> None:
    result = {"scores": [20, -5, -8], "winners": [0]}
    seats = [bot(0, "hard"), bot(1, "hard"), person(2, "ann")]
    assert rated_sides("rummikub", result, seats) == []
    seats = [bot(0, "hard"), bot(1, "hard"), person(2, "ann"), bot(3, "easy")]
    result = {"scores": [20, -5, -8, -9], "winners": [0]}
    assert rated_sides("rummikub", result, seats) == [
        RatedSide(("ann",), 2),
        RatedSide(("bot-rummikub-easy",), 3),
    ]
