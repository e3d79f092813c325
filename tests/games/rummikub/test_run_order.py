"""Runs in the making are kept in order, jokers where they fit, by every step that changes one."""

from __future__ import annotations

import random

import pytest

from app.games.rummikub import ALL_TILES
from app.games.rummikub.melds import read_meld
from app.games.rummikub.run_order import in_run_order

from .deals import game, table, tiles
from .test_turn_steps import melded_game, tiles_on


@pytest.mark.parametrize(
    ("laid", "ordered"),
    [
        ("R7a R5a R6a", "R5a R6a R7a"),
        ("R5a R3a", "R3a R5a"),
        # A joker fills the number missing between two tiles.
        ("R3a R5a J1", "R3a J1 R5a"),
        # 'R2 J R3': no number is missing there, the joker goes to an end.
        ("R2a J1 R3a", "R2a R3a J1"),
        # A spare joker stays in front where it was, if 1 allows it.
        ("J1 R5a R6a", "J1 R5a R6a"),
        ("J1 R1a R2a", "R1a R2a J1"),
        # After the highest number as far as 13 allows, then in front.
        ("R12a R13a J1", "J1 R12a R13a"),
        ("R11a J1 J2 R13a", "J1 R11a J2 R13a"),
        # Too few jokers for the gaps: the lowest gap is filled first.
        ("R9a R3a J1 R5a", "R3a J1 R5a R9a"),
    ],
)
def test_a_run_in_the_making_is_put_in_order(laid: str, ordered: str) -> None:
    assert in_run_order(tiles(laid)) == tiles(ordered)


@pytest.mark.parametrize(
    "laid",
    ["R5a K5a J1", "R5a B6a K7a", "R5a R5b R6a", "R5a J1", "J1 J2 R5a", "R5a"],
    ids=["a group", "mixed colours", "a number twice", "one tile and a joker", "two jokers", "one"],
)
def test_a_meld_that_is_not_a_run_in_the_making_is_left_alone(laid: str) -> None:
    assert in_run_order(tiles(laid)) is None


def test_whatever_the_order_tiles_that_can_make_a_run_are_put_in_that_run() -> None:
    rng = random.Random(11)
    numbered = [tile for tile in ALL_TILES if tile[0] == "B" and tile.endswith("a")]
    for _ in range(500):
        start = rng.randint(1, 11)
        size = rng.randint(3, min(13, 14 - start))
        run = numbered[start - 1 : start - 1 + size]
        for joker in ("J1", "J2")[: rng.randint(0, 2)]:
            run[rng.randrange(len(run))] = joker
        if sum(tile[0] != "J" for tile in run) < 2:
            continue
        shuffled = rng.sample(run, len(run))
        ordered = in_run_order(shuffled)
        assert ordered is not None
        assert sorted(ordered) == sorted(shuffled)
        assert read_meld(ordered).kind == "run", (shuffled, ordered)


def test_a_tile_dropped_on_a_run_without_a_place_goes_where_it_fits() -> None:
    # R5 R6 R7 R8 on the table, J1 R4 on the rack: the joker goes after R8, R4 in front.
    engine = melded_game()
    engine.apply(0, {"type": "move", "tile": "J1", "to": 1})
    engine.apply(0, {"type": "move", "tile": "R4a", "to": 1})
    assert tiles_on(engine.view(1)["tentative"]["table"])[1] == tiles("R4a R5a R6a R7a R8a J1")


def test_a_meld_built_tile_by_tile_is_kept_in_order() -> None:
    engine = game("R9a R7a J1 R8a", "Y1a")
    engine.apply(0, {"type": "move", "tile": "R9a", "to": "new"})
    engine.apply(0, {"type": "move", "tile": "R7a", "to": 0})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == [["R7a", "R9a"]]
    engine.apply(0, {"type": "move", "tile": "J1", "to": 0})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == [["R7a", "J1", "R9a"]]
    # R8 takes the joker's place; the joker goes to the end, where it fits.
    engine.apply(0, {"type": "move", "tile": "R8a", "to": 0})
    meld = engine.view(1)["tentative"]["table"][0]
    assert meld["tiles"] == ["R7a", "R8a", "R9a", "J1"]
    assert meld["valid"] is True


def test_a_merge_without_a_place_makes_one_run_in_order() -> None:
    engine = game("R4a J1 R3a R5a R6a", "Y1a")
    for tile, to in (("R4a", "new"), ("J1", 0), ("R3a", "new"), ("R5a", 1), ("R6a", 1)):
        engine.apply(0, {"type": "move", "tile": tile, "to": to})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == table("R4a J1 | R3a R5a R6a")
    engine.apply(0, {"type": "merge", "meld": 0, "into": 1})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == table("R3a R4a R5a R6a J1")


def test_a_place_given_is_kept() -> None:
    engine = melded_game()
    engine.apply(0, {"type": "move", "tile": "R9a", "to": 1, "pos": 0})
    meld = engine.view(1)["tentative"]["table"][1]
    assert meld["tiles"] == tiles("R9a R5a R6a R7a R8a")
    assert meld["reason"] == "run is out of order: R9 before R5"


def test_a_tile_taken_out_of_a_run_lets_its_joker_fill_the_gap() -> None:
    engine = game("R4a R5a R6a J1 K10a K11a K12a", "Y1a")
    for tile in ("R4a", "R5a", "R6a", "J1"):
        engine.apply(0, {"type": "move", "tile": tile, "to": "new" if tile == "R4a" else 0})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == table("R4a R5a R6a J1")
    engine.apply(0, {"type": "return", "tile": "R5a"})
    assert tiles_on(engine.view(1)["tentative"]["table"]) == table("R4a J1 R6a")
