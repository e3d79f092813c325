"""The engine's own report of what a move changed in the public view is an exact patch."""

from __future__ import annotations

import random

import pytest

from app.games.gin_rummy import GinRummy
from app.games.gin_rummy.engine import _PUBLIC_KEYS
from app.games.gin_rummy.hand import PLAYER_KEYS, TABLE_KEYS
from tests.games.gin_rummy.deals import seeded_move
from tests.games.gin_rummy.test_random_matches import ALL_CARDS, strings_in
from tests.games.views import reported_patch


def test_the_patch_knows_every_key_of_the_public_view_and_of_its_tables() -> None:
    view = GinRummy.new({}, 4, seed=5).view(None)
    assert set(view) == _PUBLIC_KEYS
    for table in view["tables"]:
        assert set(table) == TABLE_KEYS
        for player in table["players"]:
            assert set(player) == set(PLAYER_KEYS)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [11, 12])
def test_each_reported_change_turns_the_public_view_before_into_the_one_after(
    players: int, seed: int
) -> None:
    rng = random.Random(seed)
    match = GinRummy.new({"target": 60}, players, seed=seed)
    match.view(None)
    assert match.public_change("/game") is None, "nothing to compare the first view with"
    reported = moves = 0
    while not match.is_over():
        actor, action = seeded_move(match, rng)
        match.apply(actor, action)
        moves += 1
        ops = reported_patch(match)
        if ops is None:
            continue
        reported += 1
        # What a patch carries is public: nothing hidden from a spectator at its table.
        for op in ops:
            table = op["path"].split("/")[3] if op["path"].startswith("/game/tables/") else None
            hidden = ALL_CARDS if table is None else match.hidden_at(None, int(table))
            assert not set(strings_in(op.get("value"))) & hidden
    # Draws and discards are nearly every move; only new hands and match ends are diffed.
    assert reported > 0.8 * moves
