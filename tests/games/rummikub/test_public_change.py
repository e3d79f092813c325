"""The engine's own report of what a move changed in the public view is an exact patch."""

from __future__ import annotations

import random

import pytest

from app.bots.rummikub.basic import BasicRummikubBot
from app.games.rummikub import IllegalAction, Rummikub
from app.games.rummikub.views import PUBLIC_KEYS
from tests.games.rummikub.deals import game
from tests.games.rummikub.test_random_games import random_step, strings_in
from tests.games.views import reported_patch


def test_the_patch_knows_every_key_of_the_public_view() -> None:
    assert set(Rummikub.new({}, 3, seed=4).view(None)) == PUBLIC_KEYS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_reported_change_turns_the_public_view_before_into_the_one_after(
    players: int,
) -> None:
    seed = players
    rng = random.Random(seed)
    engine = Rummikub.new({"rounds": 2}, players, seed=seed)
    bots = [BasicRummikubBot(seed + seat) for seat in range(players)]
    engine.view(None)
    assert engine.public_change("/game") is None, "nothing to compare the first view with"
    reported = moves = 0
    for _ in range(3000):
        if engine.is_over():
            break
        seat: int | None
        if engine.phase == "round_over":
            seat, action = None, {"type": "next_round"}
        else:
            seat = engine.to_act()[0]
            legal = engine.legal_actions(seat)
            if rng.random() < 0.2:
                action = random_step(engine, seat, rng)
            elif {"type": "end_turn"} in legal:
                action = {"type": "end_turn"}
            else:
                action = bots[seat].choose(engine.view(seat), legal)
        try:
            engine.apply(seat, action)
        except IllegalAction:
            continue
        moves += 1
        ops = reported_patch(engine)
        if ops is None:
            continue
        reported += 1
        # What a patch carries is public: no tile of a rack or the pool while a round is on.
        assert not strings_in([op.get("value") for op in ops]) & engine.hidden_from(None)
    assert engine.is_over()
    # Committed plays, draws and passes are most moves; steps of a turn in progress are diffed.
    assert reported > 0.5 * moves


def test_a_seat_that_did_not_move_keeps_its_rack_as_the_same_list() -> None:
    engine = game("R1a R2a R3a", "B1a B2a B3a", pool="K7a K8a")
    waiting = engine.view(1)["rack"]
    before = engine.view(0)["rack"]
    engine.apply(0, {"type": "draw"})
    # The differ settles the unchanged rack by identity, without comparing its tiles.
    assert engine.view(1)["rack"] is waiting
    drawn = engine.view(0)["rack"]
    assert drawn is not before
    assert drawn == [*before, "K7a"]
