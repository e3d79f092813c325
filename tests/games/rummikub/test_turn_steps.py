"""Playing a turn step by step: the table in progress lives in the engine and every view."""

from __future__ import annotations

import json

import pytest

from app.games.rummikub import IllegalAction, Rummikub

from .deals import game, table


def tiles_on(view_table: list[dict[str, object]]) -> list[list[str]]:
    return [list(meld["tiles"]) for meld in view_table]  # type: ignore[call-overload]


def refused(engine: Rummikub, seat: int, action: dict[str, object]) -> IllegalAction:
    before = json.dumps(engine.to_json())
    with pytest.raises(IllegalAction) as caught:
        engine.apply(seat, action)
    assert json.dumps(engine.to_json()) == before
    return caught.value


def melded_game() -> Rummikub:
    """Seat 0 has made its initial meld R5 R6 R7 R8 and holds R9 R4 K5 B5 J1; seat 1 drew."""
    engine = game("K10a K11a K12a R5a R6a R7a R8a R9a R4a K5a B5a J1", "Y1a")
    engine.apply(0, {"type": "play", "table": table("K10a K11a K12a | R5a R6a R7a R8a")})
    engine.apply(1, {"type": "draw"})
    return engine


def test_moving_rack_tiles_builds_a_new_meld_that_every_seat_sees() -> None:
    engine = game("K10a K11a K12a", "Y1a")
    engine.apply(0, {"type": "move", "tile": "K10a", "to": "new"})
    engine.apply(0, {"type": "move", "tile": "K12a", "to": 0})
    engine.apply(0, {"type": "move", "tile": "K11a", "to": 0})
    for seat in (0, 1, None):
        tentative = engine.view(seat)["tentative"]
        assert tiles_on(tentative["table"]) == [["K10a", "K11a", "K12a"]]
        assert tentative["laid"] == ["K10a", "K12a", "K11a"]
        assert tentative["initial_points"] == 33
        assert tentative["ready"] is True
    assert "K10a" not in engine.view(0)["rack"]
    assert engine.view(0)["seats"][0]["rack_size"] == 11
    assert {"type": "end_turn"} in engine.legal_actions(0)
    engine.apply(0, {"type": "end_turn"})
    assert tiles_on(engine.view(1)["table"]) == [["K10a", "K11a", "K12a"]]
    assert engine.view(1)["tentative"] is None


def test_the_table_in_progress_shows_which_melds_are_invalid_and_why() -> None:
    engine = game("R7a R9a R10a", "Y1a")
    for tile in ("R7a", "R9a", "R10a"):
        engine.apply(0, {"type": "move", "tile": tile, "to": 0 if tile != "R7a" else "new"})
    meld = engine.view(1)["tentative"]["table"][0]
    assert meld["valid"] is False
    assert meld["reason"] == "run has a gap between R7 and R9"
    tentative = engine.view(None)["tentative"]
    assert tentative["ready"] is False
    assert tentative["problem"]["code"] == "invalid_meld"
    assert {"type": "end_turn"} not in engine.legal_actions(0)
    error = refused(engine, 0, {"type": "end_turn"})
    assert error.message == "R7a R9a R10a: run has a gap between R7 and R9"


def test_end_turn_checks_the_initial_meld_like_a_whole_play() -> None:
    engine = game("R8a R9a R10a", "Y1a")
    for tile in ("R8a", "R9a", "R10a"):
        engine.apply(0, {"type": "move", "tile": tile, "to": 0 if tile != "R8a" else "new"})
    assert engine.view(0)["tentative"]["initial_points"] == 27
    assert refused(engine, 0, {"type": "end_turn"}).message == "initial meld worth 27 < 30"


def test_return_takes_back_a_tile_laid_this_turn_only() -> None:
    engine = melded_game()
    engine.apply(0, {"type": "move", "tile": "R9a", "to": 1})
    assert tiles_on(engine.view(0)["tentative"]["table"])[1] == ["R5a", "R6a", "R7a", "R8a", "R9a"]
    error = refused(engine, 0, {"type": "return", "tile": "R5a"})
    assert error.code == "tile_not_laid_this_turn"
    engine.apply(0, {"type": "return", "tile": "R9a"})
    assert "R9a" in engine.view(0)["rack"]
    assert engine.view(0)["tentative"]["laid"] == []


def test_a_table_tile_cannot_go_to_a_rack() -> None:
    engine = melded_game()
    assert refused(engine, 0, {"type": "move", "tile": "R5a", "to": "rack"}).code == "bad_action"
    assert refused(engine, 0, {"type": "return", "tile": "R5a"}).code == "tile_not_laid_this_turn"
    assert refused(engine, 0, {"type": "move", "tile": "Y1a", "to": "new"}).code == (
        "tile_not_on_rack"
    )


def test_reset_undoes_every_step_of_the_turn() -> None:
    engine = melded_game()
    rack = engine.view(0)["rack"]
    engine.apply(0, {"type": "split", "meld": 1, "at": 2})
    engine.apply(0, {"type": "move", "tile": "K5a", "to": "new"})
    engine.apply(0, {"type": "reset"})
    assert engine.view(0)["tentative"] is None
    assert engine.view(0)["rack"] == rack


def test_split_move_and_end_turn_rearrange_the_table() -> None:
    # R5 R6 R7 R8 + R4 K5 B5 on the rack: R4 goes in front, R5 joins K5 B5, R6 R7 R8 stays.
    engine = melded_game()
    engine.apply(0, {"type": "move", "tile": "R4a", "to": 1})
    assert tiles_on(engine.view(0)["tentative"]["table"])[1][0] == "R4a"
    engine.apply(0, {"type": "move", "tile": "K5a", "to": "new"})
    engine.apply(0, {"type": "move", "tile": "B5a", "to": 2})
    engine.apply(0, {"type": "move", "tile": "R4a", "to": 2})
    engine.apply(0, {"type": "return", "tile": "R4a"})
    engine.apply(0, {"type": "move", "tile": "R5a", "to": 2, "pos": 0})
    assert tiles_on(engine.view(0)["tentative"]["table"]) == table(
        "K10a K11a K12a | R6a R7a R8a | R5a K5a B5a"
    )
    engine.apply(0, {"type": "end_turn"})
    assert tiles_on(engine.view(1)["table"]) == table("K10a K11a K12a | R6a R7a R8a | R5a K5a B5a")


def test_merge_joins_two_melds() -> None:
    engine = melded_game()
    engine.apply(0, {"type": "split", "meld": 1, "at": 2})
    assert tiles_on(engine.view(0)["tentative"]["table"])[1:] == [["R5a", "R6a"], ["R7a", "R8a"]]
    engine.apply(0, {"type": "merge", "meld": 1, "into": 2, "pos": 0})
    assert tiles_on(engine.view(0)["tentative"]["table"])[1] == ["R5a", "R6a", "R7a", "R8a"]


def test_before_the_initial_meld_steps_may_not_touch_table_melds() -> None:
    engine = melded_game()
    engine.apply(0, {"type": "draw"})
    assert engine.to_act() == [1]
    for action in (
        {"type": "move", "tile": "Y1a", "to": 0},
        {"type": "move", "tile": "R5a", "to": "new"},
        {"type": "split", "meld": 1, "at": 1},
    ):
        assert refused(engine, 1, action).code == "initial_meld_touches_table"


def test_a_joker_swapped_out_step_by_step_must_be_played_again() -> None:
    engine = game("K10a K11a K12a R4a J1 R6a", "Y1a", pool="Y2a R5b R9a B1a")
    engine.apply(0, {"type": "play", "table": table("K10a K11a K12a | R4a J1 R6a")})
    engine.apply(1, {"type": "draw"})
    engine.apply(0, {"type": "draw"})
    engine.apply(1, {"type": "draw"})
    engine.apply(0, {"type": "move", "tile": "R5b", "to": 1, "pos": 1})
    engine.apply(0, {"type": "move", "tile": "J1", "to": "new"})
    error = refused(engine, 0, {"type": "end_turn"})
    assert error.message == "J1: a meld needs at least 3 tiles, this one has 1"
    engine.apply(0, {"type": "move", "tile": "J1", "to": 0})
    assert engine.view(1)["tentative"]["table"][0]["jokers"] == {"J1": ["K13"]}
    engine.apply(0, {"type": "end_turn"})
    assert tiles_on(engine.view(1)["table"]) == table("K10a K11a K12a J1 | R4a R5b R6a")


def test_a_declared_joker_shows_its_meaning_in_every_view() -> None:
    engine = game("J1 R5a J2 K10a K11a K12a", "Y1a")
    engine.apply(0, {"type": "play", "table": table("K10a K11a K12a | J1 R5a J2")})
    assert engine.view(None)["table"][1]["jokers"] == {
        "J1": ["B5", "K5", "Y5"],
        "J2": ["B5", "K5", "Y5"],
    }
    other = game("J1 R5a J2 K10a K11a K12a", "Y1a")
    other.apply(
        0,
        {"type": "play", "table": table("K10a K11a K12a | J1 R5a J2"), "jokers": {"J1": "R4"}},
    )
    meld = other.view(1)["table"][1]
    assert meld["kind"] == "run"
    assert meld["jokers"] == {"J1": ["R4"], "J2": ["R6"]}
    assert meld["declared"] == {"J1": "R4"}


def test_a_step_declaration_is_kept_until_its_meld_changes() -> None:
    engine = game("J1 R5a J2 K10a K11a K12a", "Y1a")
    for tile in ("J1", "R5a", "J2"):
        engine.apply(0, {"type": "move", "tile": tile, "to": "new" if tile == "J1" else 0})
    engine.apply(0, {"type": "declare", "joker": "J1", "as": "R4"})
    assert engine.view(0)["tentative"]["table"][0]["kind"] == "run"
    engine.apply(0, {"type": "move", "tile": "K10a", "to": "new"})
    assert engine.view(0)["tentative"]["table"][0]["declared"] == {"J1": "R4"}
    engine.apply(0, {"type": "move", "tile": "K11a", "to": 0})
    assert engine.view(0)["tentative"]["table"][0]["declared"] == {}


def test_a_draw_abandons_the_turn_in_progress() -> None:
    engine = game("K10a K11a K12a", "Y1a", pool="B2a")
    engine.apply(0, {"type": "move", "tile": "K10a", "to": "new"})
    engine.apply(0, {"type": "draw"})
    assert engine.view(0)["rack"][:3] == ["K10a", "K11a", "K12a"]
    assert engine.view(0)["rack"][-1] == "B2a"
    assert engine.view(0)["table"] == []


def test_a_whole_play_replaces_the_table_in_progress() -> None:
    engine = game("K10a K11a K12a", "Y1a")
    engine.apply(0, {"type": "move", "tile": "K10a", "to": "new"})
    engine.apply(0, {"type": "play", "table": table("K10a K11a K12a")})
    assert tiles_on(engine.view(1)["table"]) == [["K10a", "K11a", "K12a"]]
    assert engine.view(0)["seats"][0]["rack_size"] == 11


def test_a_turn_played_step_by_step_leaves_the_untouched_melds_in_their_places() -> None:
    # K10 K11 K12 | R5 R6 R7 R8 | B1 B2 B3 on the table; seat 0 splits the run, joins B1 B2 B3
    # to nothing, lays B4 and makes a new meld: K10 K11 K12 and B1..B4 never move.
    engine = game("K10a K11a K12a R5a R6a R7a R8a B1a B2a B3a Y7a Y8a Y9a B4a", "Y1a")
    engine.apply(0, {"type": "play", "table": table("K10a K11a K12a | R5a R6a R7a R8a")})
    engine.apply(1, {"type": "draw"})
    engine.apply(
        0, {"type": "play", "table": table("K10a K11a K12a | R5a R6a R7a R8a | B1a B2a B3a")}
    )
    engine.apply(1, {"type": "draw"})
    for step in (
        {"type": "split", "meld": 1, "at": 1},
        {"type": "move", "tile": "B4a", "to": 2},
        {"type": "move", "tile": "Y7a", "to": "new"},
        {"type": "move", "tile": "Y8a", "to": 4},
        {"type": "move", "tile": "Y9a", "to": 4},
    ):
        engine.apply(0, step)
    # The split's smaller part (R5) went after the old melds, not between them.
    assert tiles_on(engine.view(1)["tentative"]["table"]) == table(
        "K10a K11a K12a | R6a R7a R8a | B1a B2a B3a B4a | R5a | Y7a Y8a Y9a"
    )
    engine.apply(0, {"type": "move", "tile": "R5a", "to": 1})
    engine.apply(0, {"type": "end_turn"})
    assert tiles_on(engine.view(1)["table"]) == table(
        "K10a K11a K12a | R5a R6a R7a R8a | B1a B2a B3a B4a | Y7a Y8a Y9a"
    )


def test_a_merged_meld_takes_the_place_of_the_larger_meld_it_joined() -> None:
    engine = game("K10a K11a K12a R5a R6a R7a R8a R9a R10a R11a", "Y1a")
    engine.apply(
        0, {"type": "play", "table": table("R5a R6a R7a | K10a K11a K12a | R8a R9a R10a R11a")}
    )
    engine.apply(1, {"type": "draw"})
    engine.apply(0, {"type": "merge", "meld": 0, "into": 2})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == table(
        "K10a K11a K12a | R5a R6a R7a R8a R9a R10a R11a"
    )
