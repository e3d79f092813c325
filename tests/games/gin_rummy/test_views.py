"""What each seat and a spectator may see, and state that serialises and comes back exactly."""

from __future__ import annotations

import json

from app.games.gin_rummy import GinRummy
from app.games.gin_rummy.melds import min_deadwood
from tests.games.gin_rummy.deals import answer_knock, knocked, rigged, seats, table

FIRST = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
SECOND = "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13"


def test_a_seat_sees_its_own_hand_and_only_the_count_of_the_other() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    view = match.view(first)
    players = {p["seat"]: p for p in view["tables"][0]["players"]}
    assert sorted(view["me"]["hand"]) == sorted(FIRST.split())
    # The table is the same for everyone: one's own cards are in `me` only, until laid open.
    assert players[first]["cards"] is None
    assert players[first]["card_count"] == 10
    assert players[second]["cards"] is None
    assert players[second]["card_count"] == 10
    assert view["tables"][0]["stock_count"] == 31
    assert view["tables"][0]["discard_pile"] == ["H13"]
    assert view["to_act"] == [first]
    assert set(SECOND.split()) <= match.hidden_from(first)
    assert not set(FIRST.split()) & match.hidden_from(first)


def test_a_seat_sees_its_best_arrangement_and_the_deadwood_it_could_knock_with() -> None:
    match = rigged(FIRST, SECOND, "C2")
    first, _ = seats(match)
    me = match.view(first)["me"]
    assert me["arrangement"]["deadwood"] == ["C13"]
    assert me["arrangement"]["deadwood_points"] == 10
    assert me["knock_deadwood"] is None
    match.apply(first, {"type": "take_upcard"})
    me = match.view(first)["me"]
    assert me["knock_deadwood"] == 2
    assert me["taken_this_turn"] == "C2"
    # The card is the mover's concern: the other seat's own part does not carry it.
    assert match.view(seats(match)[1])["me"]["taken_this_turn"] is None


def test_a_spectator_sees_no_hand() -> None:
    match = rigged(FIRST, SECOND, "H13")
    view = match.view(None)
    assert view["me"] is None
    assert all(p["cards"] is None for p in view["tables"][0]["players"])
    assert set(FIRST.split()) | set(SECOND.split()) <= match.hidden_from(None)


def test_with_four_players_a_seat_sees_no_card_held_at_the_other_table() -> None:
    match = GinRummy.new({}, 4, seed=3)
    other = match.view(0)["tables"][1]
    assert all(p["cards"] is None for p in other["players"])
    held = set(match.view(2)["me"]["hand"]) | set(match.view(3)["me"]["hand"])
    assert held <= match.hidden_at(0, 1)
    assert not set(match.view(0)["me"]["hand"]) & match.hidden_at(0, 0)


def test_the_state_serialises_to_json_and_back_exactly() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    copy = GinRummy.from_json(json.loads(json.dumps(match.to_json())))
    assert copy.to_json() == match.to_json()
    for seat in (None, 0, 1):
        assert copy.view(seat) == match.view(seat)
    assert copy.legal_actions(first) == match.legal_actions(first)
    match.apply(first, {"type": "discard", "card": "C13"})
    copy.apply(first, {"type": "discard", "card": "C13"})
    assert copy.to_json() == match.to_json()


def test_a_match_without_a_seed_picks_one_that_replays_it() -> None:
    match = GinRummy.new({}, 2)
    seed = match.to_json()["seed"]
    assert GinRummy.new({}, 2, seed=seed).to_json() == match.to_json()


def test_a_given_deck_orders_the_first_hand_only() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "pass"})
    while match.phase == "playing":
        seat = match.to_act()[0]
        match.apply(seat, {"type": "draw", "source": "stock"})
        match.apply(seat, match.legal_actions(seat)[0])
    match.apply(None, {"type": "next_hand"})
    assert table(match)["hand"] == 2
    assert sorted(match.view(first)["me"]["hand"]) != sorted(FIRST.split())


def test_the_history_in_a_view_holds_scores_but_no_cards() -> None:
    match, first, _ = knocked(FIRST, SECOND, "C2")
    answer_knock(match)
    (summary,) = match.view(None)["history"]
    assert summary == {
        "hand": 1,
        "table": 0,
        "dealer": table(match)["dealer"],
        "ending": "knock",
        "knocker": first,
        "winner": first,
        "points": 51 - 2,
    }
    assert match.hand_results()[0]["points"] == 49


def test_knock_deadwood_is_the_lowest_deadwood_any_discard_but_the_taken_card_leaves() -> None:
    checked = 0
    for seed in range(40):
        match = GinRummy.new(GinRummy.validate_config({}, 2), 2, seed=seed)
        while match.to_act() and checked < 400:
            seat = match.to_act()[0]
            me = match.view(seat)["me"]
            if len(me["hand"]) == 11:
                choices = [c for c in me["hand"] if c != me["taken_this_turn"]]
                lowest = min(min_deadwood([c for c in me["hand"] if c != out]) for out in choices)
                assert me["knock_deadwood"] == lowest
                checked += 1
            match.apply(seat, match.legal_actions(seat)[0])
    assert checked > 100


def test_changing_a_seats_own_cards_in_its_view_changes_no_other_view() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, second = seats(match)
    others = {viewer: json.dumps(match.view(viewer)) for viewer in (second, None)}
    mine = match.view(first)
    mine["me"]["hand"].append("S1")
    mine["me"]["arrangement"]["deadwood"].append("S1")
    mine["me"] = None
    for viewer, before in others.items():
        assert json.dumps(match.view(viewer)) == before


def test_a_move_leaves_the_parts_of_the_table_it_did_not_change_as_the_same_objects() -> None:
    match = rigged(FIRST, SECOND, "H13")
    first, _ = seats(match)
    before = match.view(None)
    match.apply(first, {"type": "take_upcard"})
    after = match.view(None)
    # The taker still acts (a discard comes next); the seats and the other player are as they were.
    assert after["to_act"] == [first]
    assert after["to_act"] is before["to_act"]
    old_table, new_table = before["tables"][0], after["tables"][0]
    assert new_table["seats"] is old_table["seats"]
    assert new_table["players"][1] is old_table["players"][1]
    assert new_table["players"][0] is not old_table["players"][0]
    assert new_table["discard_pile"] == []
    assert old_table["discard_pile"] == ["H13"]
