"""Rules 1, 2, 4, 8, 9, 10 and the match around them, through the engine's interface."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from app.games.rummikub import ALL_TILES, IllegalAction, Rummikub, rack_value

from .deals import deck, game, table


def refused(engine: Rummikub, seat: int | None, action: dict[str, object]) -> IllegalAction:
    before = json.dumps(engine.to_json())
    with pytest.raises(IllegalAction) as caught:
        engine.apply(seat, action)
    assert json.dumps(engine.to_json()) == before, "a refused action changed the state"
    return caught.value


def test_there_are_106_tiles_two_of_each_number_and_colour_and_two_jokers() -> None:
    assert len(ALL_TILES) == len(set(ALL_TILES)) == 106
    faces = Counter(tile[:-1] for tile in ALL_TILES if not tile.startswith("J"))
    assert set(faces.values()) == {2}
    assert len(faces) == 52
    assert {tile for tile in ALL_TILES if tile.startswith("J")} == {"J1", "J2"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_player_is_dealt_14_and_the_rest_is_the_pool(players: int) -> None:
    engine = Rummikub.new({}, players, seed=7)
    views = [engine.view(seat) for seat in range(players)]
    assert all(len(view["rack"]) == 14 for view in views)
    assert views[0]["pool_size"] == 106 - 14 * players


def test_one_player_or_five_are_refused() -> None:
    for players in (1, 5):
        with pytest.raises(IllegalAction) as caught:
            Rummikub.new({}, players, seed=1)
        assert caught.value.code == "bad_config"


def drawn_number(face: str) -> int:
    return 0 if face == "J" else int(face[1:])


def test_the_highest_first_draw_starts_and_turns_go_clockwise() -> None:
    for seed in range(20):
        engine = Rummikub.new({}, 4, seed=seed)
        draws = engine.view(None)["first_draw"]
        starter = engine.to_act()[0]
        # Ties draw again, so the starter is among those who drew the most times.
        finalists = [seat for seat in range(4) if len(draws[seat]) == len(draws[starter])]
        assert len(draws[starter]) == max(len(faces) for faces in draws)
        best = drawn_number(draws[starter][-1])
        assert all(drawn_number(draws[seat][-1]) < best for seat in finalists if seat != starter)
        engine.apply(starter, {"type": "draw"})
        assert engine.to_act() == [(starter + 1) % 4]


def test_the_same_seed_deals_the_same_game() -> None:
    assert Rummikub.new({}, 3, seed=11).to_json() == Rummikub.new({}, 3, seed=11).to_json()
    assert Rummikub.new({}, 3, seed=11).to_json() != Rummikub.new({}, 3, seed=12).to_json()


def test_an_explicit_deck_deals_racks_in_blocks_and_seat_0_starts() -> None:
    order = deck("R1a R2a R3a", "K1a K2a K3a", pool="Y7a")
    engine = Rummikub.new({}, 2, deck=order)
    assert engine.view(0)["rack"] == order[:14]
    assert engine.view(1)["rack"] == order[14:28]
    assert engine.to_act() == [0]
    engine.apply(0, {"type": "draw"})
    assert engine.view(0)["rack"][-1] == "Y7a"


def test_a_deck_that_is_not_the_106_tiles_is_refused() -> None:
    with pytest.raises(IllegalAction) as caught:
        Rummikub.new({}, 2, deck=list(ALL_TILES[:-1]))
    assert caught.value.code == "bad_config"


def test_config_is_validated_with_defaults() -> None:
    assert Rummikub.validate_config({}, 2) == {
        "initial_meld_points": 30,
        "rounds": 1,
        "target_score": 0,
        "turn_timer_s": 0,
        "timeout_penalty_tiles": 3,
        "tiles_per_player": 14,
    }
    for bad in (
        {"rounds": "3"},
        {"colour": 1},
        {"turn_timer_s": 5},
        {"rounds": 0},
        {"rounds": True},
    ):
        with pytest.raises(IllegalAction) as caught:
            Rummikub.validate_config(bad, 2)
        assert caught.value.code == "bad_config"
    assert {option["name"] for option in Rummikub.options()} == set(Rummikub.validate_config({}, 4))
    assert Rummikub.seat_range() == (2, 4)


def test_a_drawn_tile_ends_the_turn() -> None:
    engine = game("R1a R2a R3a", "K1a", pool="R4a")
    engine.apply(0, {"type": "draw"})
    assert engine.to_act() == [1]
    assert refused(engine, 0, {"type": "play", "table": table("R1a R2a R3a R4a")}).code == (
        "not_your_turn"
    )


def test_a_play_ends_the_turn_and_the_tiles_leave_the_rack() -> None:
    engine = game("K10a K11a K12a R1a", "B1a")
    engine.apply(0, {"type": "play", "table": table("K10a K11a K12a")})
    view = engine.view(0)
    assert not {"K10a", "K11a", "K12a"} & set(view["rack"])
    assert [meld["tiles"] for meld in view["table"]] == table("K10a K11a K12a")
    assert view["seats"][0]["initial_meld_done"] is True
    assert engine.to_act() == [1]


def test_an_initial_meld_below_30_changes_nothing() -> None:
    engine = game("R8a R9a R10a", "B1a")
    error = refused(engine, 0, {"type": "play", "table": table("R8a R9a R10a")})
    assert (error.code, error.message) == ("initial_meld_below_30", "initial meld worth 27 < 30")


def test_malformed_actions_are_refused_not_crashed_on() -> None:
    engine = game("R8a R9a R10a", "B1a")
    for action in (
        {},
        {"type": "fly"},
        {"type": "play"},
        {"type": "play", "table": "R8a"},
        {"type": "play", "table": [["R8a", 3]]},
        {"type": "play", "table": table("K10a K11a K12a"), "jokers": ["J1"]},
        {"type": "move"},
        {"type": "move", "tile": "R8a", "to": 9},
        {"type": "split", "meld": "x"},
        {"type": "merge", "meld": 0, "into": 0},
        {"type": "declare", "joker": "J1", "as": "R5"},
    ):
        assert refused(engine, 0, action).code == "bad_action", action


def test_there_is_no_view_of_a_seat_outside_the_game() -> None:
    with pytest.raises(IllegalAction) as caught:
        game("R8a", "B1a").view(2)
    assert caught.value.code == "bad_action"


def test_a_spectator_or_another_seat_cannot_act_and_players_cannot_time_out() -> None:
    engine = game("R8a", "B1a", turn_timer_s=60)
    assert refused(engine, 1, {"type": "draw"}).code == "not_your_turn"
    assert refused(engine, None, {"type": "draw"}).code == "not_your_turn"
    assert refused(engine, 0, {"type": "timeout"}).code == "bad_action"


def test_emptying_the_rack_wins_and_losers_pay_their_rack() -> None:
    engine = game("K10a K11a K12a", "B1a B2a J1", tiles_per_player=7)
    # Seat 0 holds K10 K11 K12 and four fillers; lay everything in one play when possible.
    rack = engine.view(0)["rack"]
    fillers = [tile for tile in rack if tile not in {"K10a", "K11a", "K12a"}]
    assert fillers == ["Y13b", "Y12b", "Y11b", "Y10b"]
    engine.apply(
        0, {"type": "play", "table": [["K10a", "K11a", "K12a"], ["Y10b", "Y11b", "Y12b", "Y13b"]]}
    )
    assert engine.is_over()
    loser_rack = engine.hand_results()[0]["racks"][1]
    loser_value = rack_value(loser_rack)
    assert "J1" in loser_rack
    assert loser_value >= 30
    record = engine.hand_results()[0]
    assert record["winner"] == 0
    assert record["reason"] == "empty_rack"
    assert record["points"] == [loser_value, -loser_value]
    assert engine.result() == {
        "scores": [loser_value, -loser_value],
        "winner": 0,
        "winners": [0],
        "rounds": 1,
    }
    assert refused(engine, 1, {"type": "draw"}).code == "game_over"


def drain_pool(engine: Rummikub) -> None:
    while engine.view(None)["pool_size"]:
        engine.apply(engine.to_act()[0], {"type": "draw"})


def test_with_the_pool_empty_players_pass_and_a_full_circle_ends_the_round() -> None:
    engine = Rummikub.new({"tiles_per_player": 20}, 3, seed=5)
    assert refused(engine, engine.to_act()[0], {"type": "pass"}).code == "pool_not_empty"
    drain_pool(engine)
    first = engine.to_act()[0]
    assert refused(engine, first, {"type": "draw"}).code == "pool_empty"
    assert engine.legal_actions(first)[1] == {"type": "pass"}
    engine.apply(first, {"type": "pass"})
    engine.apply((first + 1) % 3, {"type": "pass"})
    assert not engine.is_over()
    engine.apply((first + 2) % 3, {"type": "pass"})
    assert engine.is_over()
    record = engine.hand_results()[0]
    values = [rack_value(rack) for rack in record["racks"]]
    winner = values.index(min(values))
    assert record["reason"] == "pool_exhausted"
    assert record["winner"] == winner
    assert record["points"][winner] == sum(v - values[winner] for v in values)
    assert all(record["points"][seat] == -values[seat] for seat in range(3) if seat != winner)


def test_a_play_between_passes_starts_the_circle_again() -> None:
    engine = game("K10a K11a K12a", "B1a", tiles_per_player=20)
    engine.apply(0, {"type": "draw"})
    drain_pool(engine)
    passer = engine.to_act()[0]
    engine.apply(passer, {"type": "pass"})
    assert engine.view(None)["passes_in_row"] == 1
    player = engine.to_act()[0]
    if player == 0:
        engine.apply(0, {"type": "play", "table": table("K10a K11a K12a")})
        assert engine.view(None)["passes_in_row"] == 0
        engine.apply(1, {"type": "pass"})
        assert not engine.is_over()
        engine.apply(0, {"type": "pass"})
    else:
        engine.apply(player, {"type": "pass"})
    assert engine.is_over()


def test_a_tie_for_the_lowest_rack_goes_to_the_first_in_turn_order() -> None:
    # Same values on both racks: R and B copies of the same numbers.
    racks = ("R1a R2a R3a R5a R6a R8a R9a", "B1a B2a B3a B5a B6a B8a B9a")
    named = " ".join(racks).split()
    # The pool in pairs of equal value, so that the two racks stay level as both draw.
    pool = sorted((t for t in ALL_TILES if t not in named), key=lambda t: rack_value([t]))
    engine = game(*racks, pool=" ".join(pool), tiles_per_player=7)
    drain_pool(engine)
    first = engine.to_act()[0]
    engine.apply(first, {"type": "pass"})
    engine.apply(1 - first, {"type": "pass"})
    record = engine.hand_results()[0]
    assert record["rack_values"][0] == record["rack_values"][1]
    assert record["winner"] == 0  # seat 0 began the round
    assert record["points"] == [0, -record["rack_values"][1]]


def test_a_timeout_undoes_the_turn_and_draws_the_penalty() -> None:
    engine = game("R1a R2a", "B1a", pool="Y1a Y2a Y3a Y4a", turn_timer_s=60)
    rack = engine.view(0)["rack"]
    engine.apply(0, {"type": "move", "tile": "R1a", "to": "new"})
    assert engine.legal_actions(None) == [{"type": "timeout"}]
    engine.apply(None, {"type": "timeout"})
    assert engine.view(0)["rack"] == [*rack, "Y1a", "Y2a", "Y3a"]
    assert engine.view(0)["table"] == []
    assert engine.to_act() == [1]


def test_the_timeout_penalty_is_configurable_and_needs_the_timer_on() -> None:
    engine = game("R1a", "B1a", pool="Y1a Y2a", turn_timer_s=30, timeout_penalty_tiles=1)
    engine.apply(None, {"type": "timeout"})
    assert engine.view(0)["rack"][-1] == "Y1a"
    assert engine.view(0)["pool_size"] == 77
    untimed = game("R1a", "B1a")
    assert refused(untimed, None, {"type": "timeout"}).code == "bad_action"
    assert untimed.legal_actions(None) == []


def test_a_match_of_several_rounds_keeps_running_totals() -> None:
    engine = Rummikub.new({"rounds": 2, "tiles_per_player": 20}, 4, seed=3)
    for _ in range(2):
        while engine.phase == "playing":
            seat = engine.to_act()[0]
            engine.apply(seat, {"type": "draw" if engine.view(seat)["pool_size"] else "pass"})
        if engine.phase == "round_over":
            assert engine.to_act() == []
            assert refused(engine, 0, {"type": "draw"}).code == "round_over"
            assert engine.legal_actions(None) == [{"type": "next_round"}]
            first = engine.hand_results()[0]
            engine.apply(None, {"type": "next_round"})
            assert engine.view(0)["round"] == 2
    results = engine.hand_results()
    assert [record["round"] for record in results] == [1, 2]
    totals = [sum(record["points"][seat] for record in results) for seat in range(4)]
    assert engine.result()["scores"] == totals == results[-1]["totals"]
    assert first["totals"] == first["points"]


def test_a_target_score_ends_the_match_when_reached() -> None:
    engine = Rummikub.new({"rounds": 0, "target_score": 1, "tiles_per_player": 20}, 2, seed=4)
    while engine.phase == "playing":
        seat = engine.to_act()[0]
        engine.apply(seat, {"type": "draw" if engine.view(seat)["pool_size"] else "pass"})
    assert engine.is_over()
    assert max(engine.result()["scores"]) >= 1


def test_state_round_trips_through_json_exactly() -> None:
    engine = game("R1a R2a", "B1a", pool="Y1a")
    engine.apply(0, {"type": "move", "tile": "R1a", "to": "new"})
    data = json.loads(json.dumps(engine.to_json()))
    copy = Rummikub.from_json(data)
    assert copy.to_json() == engine.to_json()
    for each in (engine, copy):
        each.apply(0, {"type": "draw"})
        each.apply(None, {"type": "next_round"}) if each.phase == "round_over" else None
    assert copy.to_json() == engine.to_json()


def test_changing_a_seats_rack_in_its_view_changes_no_other_view() -> None:
    match = Rummikub.new({}, 3, seed=4)
    others = {viewer: json.dumps(match.view(viewer)) for viewer in (1, 2, None)}
    mine = match.view(0)
    mine["rack"].append("J1")
    mine["seat"] = 1
    for viewer, before in others.items():
        assert json.dumps(match.view(viewer)) == before
