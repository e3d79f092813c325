"""The engine's own report of what a move changed in a seat's own part is an exact patch."""

from __future__ import annotations

import random

import pytest

from app.games.gin_rummy import GinRummy
from app.games.gin_rummy.hand import ARRANGEMENT_VALUES, OWN_KEYS
from tests.games.gin_rummy.deals import rigged, seats, seeded_move
from tests.games.gin_rummy.test_random_matches import strings_in
from tests.games.views import reported_own_patch


def test_the_patch_knows_every_key_of_a_seat_s_own_part() -> None:
    me = GinRummy.new({}, 2, seed=5).view(0)["me"]
    assert set(me) == OWN_KEYS
    assert set(me["arrangement"]) == {*ARRANGEMENT_VALUES, "deadwood"}


def test_a_card_taken_is_one_card_added_to_the_hand() -> None:
    match = rigged("H1 H2 H3 S4 S5 S6 D7 D8 D9 C13", "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13", "C2")
    first, second = seats(match)
    match.view(first)
    match.apply(first, {"type": "take_upcard"})
    ops = reported_own_patch(match, first)
    assert ops is not None
    assert {"op": "add", "path": "/game/me/hand/0", "value": "C2"} in ops
    assert {"op": "add", "path": "/game/me/arrangement/deadwood/0", "value": "C2"} in ops
    # The other seat's own part was not rebuilt: it is the same object, nothing to report.
    assert reported_own_patch(match, second) is None


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [11, 12])
def test_each_reported_change_turns_a_seat_s_own_part_before_into_the_one_after(
    players: int, seed: int
) -> None:
    rng = random.Random(seed)
    match = GinRummy.new({"target": 60}, players, seed=seed)
    for seat in range(players):
        match.view(seat)
        assert match.own_change(seat, "/game") is None, "nothing to compare the first view with"
    reported = moves = 0
    while not match.is_over():
        actor, action = seeded_move(match, rng)
        match.apply(actor, action)
        moves += 1
        for seat in range(players):
            ops = reported_own_patch(match, seat)
            if ops is None:
                continue
            reported += seat == actor
            # What a seat's own patch carries is the seat's to see.
            table = match.table_of(seat)
            hidden = match.hidden_from(seat) if table is None else match.hidden_at(seat, table)
            for op in ops:
                assert not set(strings_in(op.get("value"))) & hidden
    # Every draw and discard changes the mover's own part; passes and hand ends need not.
    assert reported > 0.6 * moves
