"""Rules 4-7 as whole plays: a table before, a table after, a rack."""

from __future__ import annotations

from typing import Any

import pytest

from app.games.rummikub import IllegalAction, check_play
from app.games.rummikub.table_order import keep_places

from .deals import table, tiles


def refusal(
    before: str, after: str, rack: str, melded: bool = True, **options: Any
) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        check_play(table(before), table(after), tiles(rack), melded, **options)
    return caught.value


def test_a_play_returns_the_rack_tiles_it_lays() -> None:
    played = check_play(
        table("R5a R6a R7a"),
        table("R5a R6a R7a R8a | K1a K2a K3a"),
        tiles("R8a K1a K2a K3a Y9a"),
        True,
    )
    assert played == tiles("R8a K1a K2a K3a")


def test_every_table_tile_must_still_be_on_the_table() -> None:
    error = refusal("K3a B3a Y3a | R5a R6a R7a", "R5a R6a R7a R8a", "R8a")
    assert (error.code, error.message) == ("table_tile_missing", "table tile K3a is missing")


def test_a_tile_from_elsewhere_is_not_on_your_rack() -> None:
    error = refusal("R5a R6a R7a", "R5a R6a R7a R8a", "K2a")
    assert (error.code, error.message) == ("tile_not_on_rack", "tile R8a is not on your rack")


def test_a_play_must_lay_a_rack_tile() -> None:
    error = refusal("R5a R6a R7a R8a", "R5a R6a R7a | R8a", "K2a")
    assert error.code == "no_tile_played"


def test_every_meld_must_be_valid_at_the_end_and_no_tile_loose() -> None:
    error = refusal("R5a R6a R7a", "R5a R6a R7a | R9a", "R9a")
    assert (error.code, error.message) == (
        "invalid_meld",
        "R9a: a meld needs at least 3 tiles, this one has 1",
    )
    error = refusal("R7a R9a R10a", "R7a R9a R10a | K1a K2a K3a", "K1a K2a K3a")
    assert error.message == "R7a R9a R10a: run has a gap between R7 and R9"


def test_a_tile_twice_or_an_unknown_tile_is_a_malformed_play() -> None:
    assert refusal("", "R5a R6a R7a | R5a R6b R7b", "R5a R6a R7a R6b R7b").code == "bad_action"
    assert refusal("", "R5a R6a X7a", "R5a R6a").code == "bad_action"
    with pytest.raises(IllegalAction) as caught:
        check_play([], {"not": "a table"}, [], True)
    assert caught.value.code == "bad_action"


def test_an_initial_meld_of_30_from_the_rack_is_accepted() -> None:
    assert check_play([], table("K9a K10a K11a"), tiles("K9a K10a K11a"), False) == tiles(
        "K9a K10a K11a"
    )


def test_an_initial_meld_below_30_is_refused_with_its_worth() -> None:
    error = refusal("", "R8a R9a R10a", "R8a R9a R10a", melded=False)
    assert (error.code, error.message) == ("initial_meld_below_30", "initial meld worth 27 < 30")


def test_several_melds_add_up_toward_the_initial_meld() -> None:
    assert check_play(
        [], table("R1a R2a R3a | K8a B8a Y8a"), tiles("R1a R2a R3a K8a B8a Y8a"), False
    )


def test_a_joker_counts_as_what_it_stands_for_in_the_initial_meld() -> None:
    assert check_play([], table("R9a J1 R11a"), tiles("R9a J1 R11a"), False)
    error = refusal("", "J1 R2a R3a | B5a B6a B7a", "J1 R2a R3a B5a B6a B7a", melded=False)
    assert error.message == "initial meld worth 24 < 30"


def test_the_initial_meld_threshold_is_configurable() -> None:
    error = refusal("", "K10a K11a K12a", "K10a K11a K12a", melded=False, initial_meld_points=50)
    assert error.message == "initial meld worth 33 < 50"


def test_before_the_initial_meld_table_melds_may_not_be_extended() -> None:
    error = refusal(
        "R5a R6a R7a", "R5a R6a R7a R8a | K10a K11a K12a", "R8a K10a K11a K12a", melded=False
    )
    assert error.code == "initial_meld_touches_table"
    assert error.message == "before your initial meld you may not change the table meld R5a R6a R7a"


def test_before_the_initial_meld_table_tiles_do_not_count_toward_30() -> None:
    error = refusal(
        "R10a R11a R12a R13a", "R10a R11a R12a | R13a K13a B13a", "K13a B13a", melded=False
    )
    assert error.code == "initial_meld_touches_table"


def test_the_initial_meld_may_sit_beside_untouched_table_melds_in_any_order() -> None:
    assert check_play(
        table("R5a R6a R7a | B1a B2a B3a"),
        table("K10a K11a K12a | B1a B2a B3a | R5a R6a R7a"),
        tiles("K10a K11a K12a"),
        False,
    )


def test_after_the_initial_meld_a_run_can_be_split_by_a_tile_inside_it() -> None:
    # R4 R5 R6 R7 R8 plus a second R6: R4 R5 R6 | R6 R7 R8.
    assert check_play(
        table("R4a R5a R6a R7a R8a"), table("R4a R5a R6a | R6b R7a R8a"), tiles("R6b"), True
    ) == ["R6b"]


def test_a_run_may_be_split_so_that_a_middle_tile_joins_a_group() -> None:
    # As in the rules' first example: the run gives up a tile to a group made with the rack.
    before = table("R1a R2a R3a R4a R5a R6a R7a")
    after = table("R1a R2a R3a | R4a K4a B4a | R5a R6a R7a R8a")
    assert check_play(before, after, tiles("R8a K4a B4a"), True) == tiles("K4a B4a R8a")


def test_a_tile_may_be_taken_from_a_group_of_four() -> None:
    assert check_play(
        table("R4a B4a K4a Y4a"),
        table("R4a B4a K4a | Y2a Y3a Y4a"),
        tiles("Y2a Y3a"),
        True,
    )


def test_a_tile_taken_from_a_group_of_three_leaves_it_invalid() -> None:
    error = refusal("R4a B4a K4a", "R4a B4a | K2a K3a K4a", "K2a K3a")
    assert error.message == "R4a B4a: a meld needs at least 3 tiles, this one has 2"


def test_a_group_of_three_takes_its_missing_colour() -> None:
    assert check_play(table("R5a B5a K5a"), table("R5a B5a K5a Y5a"), tiles("Y5a"), True)
    error = refusal("R5a B5a K5a", "R5a B5a K5a B5b", "B5b")
    assert error.message == "R5a B5a K5a B5b: group repeats colour B"


def test_a_run_is_extended_at_either_end() -> None:
    after = table("R4a R5a R6a R7a R8a")
    assert check_play(table("R5a R6a R7a"), after, tiles("R4a R8a"), True) == tiles("R4a R8a")


def test_a_tile_may_be_taken_from_the_end_of_a_run_of_four() -> None:
    assert check_play(
        table("R5a R6a R7a R8a"), table("R5a R6a R7a | R8a B8a K8a"), tiles("B8a K8a"), True
    )


def test_melds_may_be_merged() -> None:
    assert check_play(
        table("R1a R2a R3a | R5a R6a R7a"), table("R1a R2a R3a R4a R5a R6a R7a"), tiles("R4a"), True
    )


def test_a_joker_may_be_swapped_out_by_the_tile_it_stands_for_and_reused() -> None:
    before = table("R4a J1 R6a")
    after = table("R4a R5a R6a | K9a K10a J1")
    assert check_play(before, after, tiles("R5a K9a K10a"), True) == tiles("R5a K9a K10a")


def test_a_freed_joker_left_off_the_table_is_refused() -> None:
    error = refusal("R4a J1 R6a", "R4a R5a R6a", "R5a")
    assert (error.code, error.message) == (
        "freed_joker_not_played",
        "freed joker J1 must be played this turn",
    )


def test_a_group_joker_may_be_swapped_for_either_missing_colour() -> None:
    for tile in ("B5a", "Y5a"):
        after = table(f"R5a {tile} K5a | J1 Y9a Y10a")
        assert check_play(table("R5a J1 K5a"), after, tiles(f"{tile} Y9a Y10a"), True)
    error = refusal("R5a J1 K5a", "R5a R5b K5a | J1 Y9a Y10a", "R5b Y9a Y10a")
    assert error.message == "R5a R5b K5a: group repeats colour R"


def test_before_the_initial_meld_a_table_joker_may_not_be_taken() -> None:
    error = refusal("R4a J1 R6a", "R4a R5a R6a | J1 K12a K13a", "R5a K12a K13a", melded=False)
    assert error.code == "initial_meld_touches_table"


def test_declared_jokers_are_checked_with_the_play() -> None:
    after = table("J1 B5a J2")
    assert check_play([], after, tiles("J1 B5a J2"), True, jokers={"J1": "B4"}) == tiles(
        "J1 B5a J2"
    )
    error = refusal("", "J1 B5a J2", "J1 B5a J2", jokers={"J1": "B9"})
    assert error.message == "J1 B5a J2: joker declared as B9 stands for B4 in this run"


def test_a_whole_play_keeps_each_meld_in_the_place_of_the_meld_it_came_from() -> None:
    before = [["R1a", "R2a", "R3a"], ["K9a", "B9a", "Y9a"], ["B4a", "B5a", "B6a"]]
    played = [
        ["B4a", "B5a", "B6a", "B7a"],
        ["Y11a", "Y12a", "Y13a"],
        ["K9a", "B9a", "Y9a"],
        ["R1a", "R2a", "R3a"],
    ]
    assert keep_places(before, played) == [
        ["R1a", "R2a", "R3a"],
        ["K9a", "B9a", "Y9a"],
        ["B4a", "B5a", "B6a", "B7a"],
        ["Y11a", "Y12a", "Y13a"],
    ]
