"""The baseline Rummikub bot plays legal turns from its view alone."""

from __future__ import annotations

import pytest

from app.bots.rummikub.basic import BasicRummikubBot
from app.games.rummikub import ALL_TILES, Rummikub

NAMED_FILLERS = "R1a B3a K5a Y7a R9a B11a K13a Y2a R4a B6a K8a Y10a R12a B2b"


def dealt(rack: str, other: str = "", pool: str = "", **config: int) -> Rummikub:
    """Seat 0 holds exactly `rack` (14 tiles); seat 1 holds `other` filled with loose tiles."""
    mine = rack.split()
    theirs = other.split()
    named = set(mine + theirs + pool.split())
    loose = [tile for tile in NAMED_FILLERS.split() if tile not in named]
    theirs += loose[: 14 - len(theirs)]
    rest = [tile for tile in ALL_TILES if tile not in named and tile not in theirs]
    return Rummikub.new(config, 2, deck=mine + theirs + pool.split() + rest)


def choose(engine: Rummikub, seat: int = 0, seed: int = 0) -> dict[str, object]:
    return BasicRummikubBot(seed).choose(engine.view(seat), engine.legal_actions(seat))


def test_it_makes_its_initial_meld_from_its_rack_when_worth_30() -> None:
    engine = dealt("K10a K11a K12a R1b B4b K6b Y8b R10b B13b K2b Y5b R7b B9b")
    action = choose(engine)
    assert action == {"type": "play", "table": [["K10a", "K11a", "K12a"]]}
    engine.apply(0, action)
    assert engine.view(1)["seats"][0]["initial_meld_done"] is True


def test_it_draws_when_its_melds_are_worth_less_than_30() -> None:
    engine = dealt("R1a R2a R3a K5b B7b Y9b R11b B13b K2b Y4b R6b B8b K10b Y12b")
    assert choose(engine) == {"type": "draw"}


def test_it_combines_several_melds_and_jokers_to_reach_30() -> None:
    engine = dealt("R1a R2a R3a B5a K5b Y5a Y9b J1 Y11a K2a B7b R13b B10b K12b")
    action = choose(engine)
    assert action["type"] == "play"
    engine.apply(0, action)
    assert engine.view(0)["seats"][0]["initial_meld_done"] is True
    assert "J1" not in engine.view(0)["rack"]


def test_after_its_initial_meld_it_extends_table_melds_and_lays_new_ones() -> None:
    engine = dealt(
        "K10a K11a K12a K9a B1a B2a B3a R1b Y4b R6b B8b K13b R13b Y11b",
        pool="Y1b K6a",
    )
    engine.apply(0, {"type": "play", "table": [["K10a", "K11a", "K12a"]]})
    engine.apply(1, {"type": "draw"})
    action = choose(engine)
    assert action["type"] == "play"
    table = action["table"]
    assert ["K9a", "K10a", "K11a", "K12a", "K13b"] in table
    assert ["B1a", "B2a", "B3a"] in table
    engine.apply(0, action)


def test_it_passes_when_the_pool_is_empty_and_it_cannot_play() -> None:
    engine = Rummikub.new({"tiles_per_player": 20}, 2, seed=8)
    while engine.view(None)["pool_size"]:
        engine.apply(engine.to_act()[0], {"type": "draw"})
    seat = engine.to_act()[0]
    action = BasicRummikubBot().choose(engine.view(seat), engine.legal_actions(seat))
    assert action["type"] in {"pass", "play"}
    engine.apply(seat, action)


def test_the_same_seed_makes_the_same_choices() -> None:
    engine = Rummikub.new({}, 3, seed=4)
    seat = engine.to_act()[0]
    assert choose(engine, seat, seed=5) == choose(engine, seat, seed=5)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_finish_whole_games_with_only_legal_actions(players: int) -> None:
    for seed in range(3):
        engine = Rummikub.new({"rounds": 2}, players, seed=seed)
        bots = [BasicRummikubBot(seed + seat) for seat in range(players)]
        for _ in range(2000):
            if engine.is_over():
                break
            if engine.phase == "round_over":
                engine.apply(None, {"type": "next_round"})
                continue
            seat = engine.to_act()[0]
            engine.apply(seat, bots[seat].choose(engine.view(seat), engine.legal_actions(seat)))
        assert engine.is_over()
        assert len(engine.hand_results()) == 2
