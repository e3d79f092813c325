"""Rules 11 to 13: the match, its bonuses, the variant options, three and four players."""

from __future__ import annotations

import random

import pytest

from app.games.gin_rummy import GinRummy, IllegalAction
from tests.games.gin_rummy.deals import (
    answer_knock,
    greedy_action,
    knocked,
    outcome,
    play_round,
    rigged,
    seats,
    table,
)

KNOCKER = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
DEFENDER = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"


def won_first_hand_by_28(**config: object) -> tuple[GinRummy, int, int]:
    match, first, second = knocked(KNOCKER, DEFENDER, "C2", **config)
    answer_knock(match)
    return match, first, second


def side_of(result: dict[str, object], seat: int) -> dict[str, object]:
    sides = result["sides"]
    assert isinstance(sides, list)
    found: dict[str, object] = next(side for side in sides if seat in side["seats"])
    return found


def test_the_match_ends_when_a_player_reaches_the_target() -> None:
    match, winner, _ = won_first_hand_by_28(target=28)
    assert match.is_over()
    assert match.phase == "match_over"
    assert match.to_act() == []
    with pytest.raises(IllegalAction) as caught:
        match.apply(None, {"type": "next_hand"})
    assert caught.value.code == "game_over"
    assert match.result() is not None
    assert match.result()["winners"] == [winner]  # type: ignore[index]


def test_below_the_target_the_match_goes_on() -> None:
    match, _, _ = won_first_hand_by_28(target=29)
    assert not match.is_over()
    assert match.result() is None


def test_a_shutout_doubles_the_winners_hand_points_before_line_bonuses() -> None:
    match, winner, loser = won_first_hand_by_28(target=28)
    result = match.result()
    assert result is not None
    assert side_of(result, winner) == {
        "side": winner,
        "seats": [winner],
        "hand_points": 28,
        "hands_won": 1,
        "game_bonus": 100,
        "shutout_bonus": 28,
        "line_bonus": 25,
        "total": 28 * 2 + 100 + 25,
    }
    assert side_of(result, loser)["total"] == 0
    assert result["shutout"] is True


def test_the_shutout_may_be_worth_100_instead() -> None:
    match, winner, _ = won_first_hand_by_28(target=28, shutout="plus_100")
    result = match.result()
    assert result is not None
    assert side_of(result, winner)["total"] == 28 + 100 + 100 + 25


def test_the_shutout_may_be_off() -> None:
    match, winner, _ = won_first_hand_by_28(target=28, shutout="none")
    result = match.result()
    assert result is not None
    assert side_of(result, winner)["total"] == 28 + 100 + 25
    assert result["shutout"] is False


def test_bonuses_follow_the_config() -> None:
    match, winner, _ = won_first_hand_by_28(target=1, game_bonus=50, line_bonus=10, shutout="none")
    result = match.result()
    assert result is not None
    assert side_of(result, winner)["total"] == 28 + 50 + 10


def test_a_gin_bonus_of_ten_or_twenty_is_a_variant() -> None:
    defender = "H4 S3 C1 C5 C9 S12 D12 H12 C7 H9"
    match = rigged(KNOCKER, defender, "D10", config={"gin_bonus": 10})
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "gin", "card": "C13"})
    assert outcome(match)["bonus"] == 10


def test_the_undercut_bonus_follows_the_config() -> None:
    match = rigged(
        KNOCKER, "C3 C4 C5 D1 D2 D3 S11 S12 S13 H5", "C10", config={"undercut_bonus": 15}
    )
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "knock", "card": "C13"})
    assert (outcome(match)["ending"], outcome(match)["points"]) == ("undercut", 15 + 5)


def test_a_lower_knock_limit_refuses_a_knock_the_default_allows() -> None:
    match = rigged(KNOCKER, DEFENDER, "H9", config={"knock_limit": 5})
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    with pytest.raises(IllegalAction) as caught:
        match.apply(first, {"type": "knock", "card": "C13"})
    assert caught.value.message == "deadwood 9 > 5"


def test_in_oklahoma_the_upcard_sets_the_knock_limit() -> None:
    match = rigged(KNOCKER, DEFENDER, "C3", config={"oklahoma": True})
    assert table(match)["knock_limit"] == 3
    face = rigged(KNOCKER, DEFENDER, "H12", config={"oklahoma": True})
    assert table(face)["knock_limit"] == 10


def test_in_oklahoma_an_ace_upcard_means_gin_only() -> None:
    match = rigged(KNOCKER, DEFENDER, "C1", config={"oklahoma": True})
    first, _ = seats(match)
    assert table(match)["knock_limit"] == 0
    match.apply(first, {"type": "take_upcard"})
    assert not [a for a in match.legal_actions(first) if a["type"] == "knock"]
    with pytest.raises(IllegalAction) as caught:
        match.apply(first, {"type": "knock", "card": "C13"})
    assert caught.value.message == "deadwood 1 > 0"


def test_the_config_is_filled_with_defaults() -> None:
    assert GinRummy.validate_config({}, 2) == {
        "knock_limit": 10,
        "gin_bonus": 25,
        "big_gin_bonus": 31,
        "undercut_bonus": 25,
        "target": 100,
        "game_bonus": 100,
        "line_bonus": 25,
        "shutout": "double",
        "oklahoma": False,
        "lay_offs": "choose",
    }
    names = [option["name"] for option in GinRummy.options()]
    assert names == list(GinRummy.validate_config({}, 2))
    assert GinRummy.seat_range() == (2, 4)


@pytest.mark.parametrize(
    ("raw", "players", "message"),
    [
        ({"knock_limit": 11}, 2, "knock_limit must be between 0 and 10, got 11"),
        ({"gin_bonus": "25"}, 2, "gin_bonus must be an integer, got '25'"),
        ({"target": True}, 2, "target must be an integer, got True"),
        ({"shutout": "triple"}, 2, "shutout must be one of double, plus_100, none, got 'triple'"),
        ({"oklahoma": "yes"}, 2, "oklahoma must be true or false, got 'yes'"),
        ({"jokers": 2}, 2, "unknown option jokers"),
        ({}, 5, "gin rummy is for 2 to 4 players, got 5"),
    ],
)
def test_a_bad_config_is_refused_with_a_reason(
    raw: dict[str, object], players: int, message: str
) -> None:
    with pytest.raises(IllegalAction) as caught:
        GinRummy.new(raw, players, seed=1)
    assert (caught.value.code, caught.value.message) == ("bad_config", message)


def test_a_deck_must_name_every_card_once() -> None:
    with pytest.raises(IllegalAction) as caught:
        GinRummy.new({}, 2, seed=1, deck=["H1"] * 52)
    assert caught.value.code == "bad_config"
    with pytest.raises(IllegalAction):
        GinRummy.new({}, 2, seed=1, deck=["H1", "H2"])


def test_with_three_players_the_dealer_sits_out_and_the_deal_rotates() -> None:
    match = GinRummy.new({}, 3, seed=4)
    rng = random.Random(4)
    for _ in range(4):
        dealer = table(match)["dealer"]
        assert table(match)["seats"] == [(dealer + 1) % 3, (dealer + 2) % 3]
        assert dealer not in match.to_act()
        assert match.legal_actions(dealer) == []
        assert match.view(dealer)["me"] is None
        with pytest.raises(IllegalAction) as caught:
            match.apply(dealer, {"type": "pass"})
        assert caught.value.code == "not_your_turn"
        play_round(match, rng)
        match.apply(None, {"type": "next_hand"})
        assert table(match)["dealer"] == (dealer + 1) % 3


def test_with_four_players_two_tables_play_at_once() -> None:
    match = GinRummy.new({}, 4, seed=8)
    view = match.view(None)
    assert [sorted(t["seats"]) for t in view["tables"]] == [[0, 1], [2, 3]]
    assert view["sides"] == [[0, 2], [1, 3]]
    assert len(match.to_act()) == 2
    assert {match.to_act()[0] // 2, match.to_act()[1] // 2} == {0, 1}


def test_with_four_players_partners_scores_add_up_after_both_tables_finish() -> None:
    match = GinRummy.new({}, 4, seed=8)
    rng = random.Random(8)
    while match.phase == "playing":
        seat = match.to_act()[0]
        match.apply(seat, greedy_action(match, seat, rng))
        if match.phase == "playing" and len(match.to_act()) == 1:
            done = [t for t in match.view(None)["tables"] if t["phase"] == "over"]
            assert len(done) == 1
    view = match.view(None)
    scores = view["scores"]
    assert view["side_scores"] == [scores[0] + scores[2], scores[1] + scores[3]]
    assert len(view["history"]) == 2


def test_with_four_players_each_seat_ends_with_its_partnerships_total() -> None:
    match = GinRummy.new({"target": 1}, 4, seed=8)
    rng = random.Random(8)
    while not match.is_over():
        if match.phase == "hand_over":
            match.apply(None, {"type": "next_hand"})
            continue
        seat = match.to_act()[0]
        match.apply(seat, greedy_action(match, seat, rng))
    result = match.result()
    assert result is not None
    totals = result["totals"]
    assert result["scores"] == [totals[0], totals[1], totals[0], totals[1]]
