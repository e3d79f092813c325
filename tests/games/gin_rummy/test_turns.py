"""Rules 3 to 5 and 10: the deal, the first-turn upcard offer, turns, a drawn hand, and errors."""

from __future__ import annotations

import pytest

from app.games.gin_rummy import GinRummy, IllegalAction
from tests.games.gin_rummy.deals import outcome, rigged, seats, table

FIRST = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
SECOND = "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13"


def refused(match: GinRummy, seat: int | None, action: object) -> IllegalAction:
    """Apply an action that must be refused; the state must not change."""
    before = match.to_json()
    with pytest.raises(IllegalAction) as caught:
        match.apply(seat, action)  # type: ignore[arg-type]
    assert match.to_json() == before
    return caught.value


def test_each_player_gets_ten_cards_dealt_alternately_from_the_non_dealer() -> None:
    match = rigged(FIRST, SECOND, "H13", "S1 S2")
    first, second = seats(match)
    assert match.view(first)["me"]["hand"] == sorted(FIRST.split(), key=sort_key)
    assert match.view(second)["me"]["hand"] == sorted(SECOND.split(), key=sort_key)
    dealt = table(match)
    assert dealt["discard_pile"] == ["H13"]
    assert dealt["stock_count"] == 31
    assert dealt["dealer"] == second


def sort_key(card: str) -> tuple[int, int]:
    return ("CDHS".index(card[0]), int(card[1:]))


def test_the_first_dealer_comes_from_a_low_card_draw_of_the_seed() -> None:
    dealers = {
        GinRummy.new({}, 2, seed=seed).view(None)["tables"][0]["dealer"] for seed in range(8)
    }
    assert dealers == {0, 1}
    again = GinRummy.new({}, 2, seed=5).view(None)["tables"][0]["dealer"]
    assert again == GinRummy.new({}, 2, seed=5).view(None)["tables"][0]["dealer"]


def test_the_non_dealer_is_offered_the_upcard_first() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    assert match.to_act() == [first]
    assert match.legal_actions(first) == [{"type": "take_upcard"}, {"type": "pass"}]
    assert match.legal_actions(second) == []
    assert refused(match, second, {"type": "pass"}).code == "not_your_turn"
    assert refused(match, first, {"type": "draw", "source": "stock"}).code == "wrong_phase"


def test_when_the_non_dealer_passes_the_dealer_may_take_the_upcard() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    assert match.to_act() == [second]
    match.apply(second, {"type": "take_upcard"})
    assert "H13" in match.view(second)["me"]["hand"]
    match.apply(second, {"type": "discard", "card": "C1"})
    assert match.to_act() == [first]
    assert {"type": "draw", "source": "discard"} in match.legal_actions(first)


def test_when_both_pass_the_non_dealer_must_draw_from_the_stock() -> None:
    match = rigged(FIRST, SECOND, "H13", "S1")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "pass"})
    assert match.legal_actions(first) == [{"type": "draw", "source": "stock"}]
    error = refused(match, first, {"type": "draw", "source": "discard"})
    assert error.code == "must_draw_from_stock"
    match.apply(first, {"type": "draw", "source": "stock"})
    assert "S1" in match.view(first)["me"]["hand"]
    match.apply(first, {"type": "discard", "card": "S1"})
    assert {"type": "draw", "source": "discard"} in match.legal_actions(second)


def test_a_card_taken_from_the_discard_pile_may_not_be_discarded_the_same_turn() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert {"type": "discard", "card": "H13"} not in match.legal_actions(first)
    error = refused(match, first, {"type": "discard", "card": "H13"})
    assert error.code == "cannot_discard_taken_card"


def test_a_card_drawn_from_the_stock_may_be_discarded_at_once() -> None:
    match = rigged(FIRST, SECOND, "H13", "S12")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "pass"})
    match.apply(first, {"type": "draw", "source": "stock"})
    match.apply(first, {"type": "discard", "card": "S12"})
    assert table(match)["discard_pile"] == ["H13", "S12"]


def test_a_card_seen_taken_from_the_discard_pile_is_public_while_held() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    match.apply(first, {"type": "take_upcard"})
    players = {p["seat"]: p for p in table(match, second)["players"]}
    assert players[first]["taken_from_discard"] == ["H13"]
    assert players[first]["cards"] is None
    assert players[first]["card_count"] == 11
    assert "H13" not in match.hidden_from(second)


def test_discarding_a_card_not_held_is_refused() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    error = refused(match, first, {"type": "discard", "card": "C1"})
    assert (error.code, error.message) == ("card_not_in_hand", "C1 is not in your hand")


@pytest.mark.parametrize(
    "action",
    [
        {},
        {"type": 5},
        {"type": "shuffle"},
        "discard",
        None,
        {"type": "discard"},
        {"type": "discard", "card": "Z9"},
        {"type": "discard", "card": ["H1"]},
        {"type": "knock", "card": "C13", "melds": "H1 H2 H3"},
        {"type": "knock", "card": "C13", "melds": [["H1", "H2", 3]]},
    ],
)
def test_malformed_actions_are_refused_without_a_change(action: object) -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    error = refused(match, first, action)
    assert error.code in {"bad_action", "invalid_meld"}


def test_a_draw_source_must_be_stock_or_discard() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "pass"})
    assert refused(match, first, {"type": "draw", "source": "pile"}).code == "bad_action"
    assert refused(match, first, {"type": "draw"}).code == "bad_action"


def test_a_player_may_not_act_out_of_turn_or_as_the_room() -> None:
    match = rigged(FIRST, SECOND, "H13")
    _, second = seats(match)
    assert refused(match, second, {"type": "take_upcard"}).code == "not_your_turn"
    assert refused(match, None, {"type": "take_upcard"}).code == "not_your_turn"
    assert refused(match, 7, {"type": "pass"}).code == "not_your_turn"
    assert refused(match, None, {"type": "next_hand"}).code == "wrong_phase"


def play_to_the_end_of_the_stock(match: GinRummy) -> None:
    """Both players draw from the stock and throw the drawn card back, knocking never."""
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "pass"})
    while match.phase == "playing":
        seat = match.to_act()[0]
        before = set(match.view(seat)["me"]["hand"])
        match.apply(seat, {"type": "draw", "source": "stock"})
        (drawn,) = set(match.view(seat)["me"]["hand"]) - before
        match.apply(seat, {"type": "discard", "card": drawn})


def test_the_hand_is_a_draw_when_a_discard_leaves_two_stock_cards() -> None:
    match = rigged(FIRST, SECOND, "H13")
    play_to_the_end_of_the_stock(match)
    assert match.phase == "hand_over"
    assert table(match)["stock_count"] == 2
    assert outcome(match)["ending"] == "draw"
    assert outcome(match)["winner"] is None
    assert match.view(None)["scores"] == [0, 0]


def test_after_a_drawn_hand_the_same_dealer_deals_again() -> None:
    match = rigged(FIRST, SECOND, "H13")
    _, dealer = seats(match)
    play_to_the_end_of_the_stock(match)
    match.apply(None, {"type": "next_hand"})
    assert table(match)["dealer"] == dealer
    assert table(match)["hand"] == 2
    assert table(match)["stock_count"] == 31


def test_a_drawn_hand_shows_nobody_the_other_hand() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    play_to_the_end_of_the_stock(match)
    # A seat's own cards are in its `me`, not at the table: nobody's are shown there.
    assert [player["cards"] for player in table(match, first)["players"]] == [None, None]
    assert sorted(match.view(first)["me"]["hand"]) == sorted(FIRST.split())
    assert set(FIRST.split()) <= match.hidden_from(second)


def test_next_hand_is_only_for_the_room() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, _ = seats(match)
    play_to_the_end_of_the_stock(match)
    assert match.legal_actions(None) == [{"type": "next_hand"}]
    assert refused(match, first, {"type": "next_hand"}).code == "not_your_turn"
    assert refused(match, first, {"type": "pass"}).code == "wrong_phase"
