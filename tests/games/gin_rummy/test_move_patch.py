"""The patch the engine derives from a move, without building views, turns each viewer's view
before the move into its view after it, and carries nothing the viewer may not see."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import pytest

from app.games.gin_rummy import GinRummy
from tests.games.gin_rummy.deals import rigged, seats, seeded_move
from tests.games.gin_rummy.test_random_matches import strings_in


def patched(view: Any, ops: list[dict[str, Any]]) -> Any:
    return jsonpatch.apply_patch({"game": copy.deepcopy(view)}, ops)["game"]


def test_a_discard_is_the_card_on_the_pile_and_out_of_the_hand() -> None:
    match = rigged("H1 H2 H3 S4 S5 S6 D7 D8 D9 C13", "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13", "C2")
    first, second = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.view(first)
    match.view(second)
    match.apply(first, {"type": "discard", "card": "C13"})
    ops = match.move_patch(first, "/game")
    assert ops is not None
    assert {"op": "add", "path": "/game/tables/0/discard_pile/-", "value": "C13"} in ops
    assert {"op": "replace", "path": "/game/tables/0/turn", "value": second} in ops
    assert {"op": "remove", "path": "/game/me/hand/1"} in ops
    # The other seat sees the same move without the mover's own cards.
    theirs = match.move_patch(second, "/game")
    assert theirs is not None
    assert not [op for op in theirs if op["path"].startswith("/game/me")]


def test_a_seat_whose_view_was_never_built_is_not_derived() -> None:
    match = rigged("H1 H2 H3 S4 S5 S6 D7 D8 D9 C13", "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13", "C2")
    first, second = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert match.move_patch(second, "/game") is None
    assert match.move_patch(None, "/game") is not None


def test_a_knock_is_not_derived() -> None:
    match = rigged("H1 H2 H3 S4 S5 S6 D7 D8 D9 C1", "C3 C5 C7 C9 C11 D2 D4 D6 H11 S13", "C2")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "knock", "card": "C1"})
    assert match.move_patch(None, "/game") is None


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [21, 22])
def test_each_derived_patch_turns_every_view_before_into_the_view_after(
    players: int, seed: int
) -> None:
    rng = random.Random(seed)
    match = GinRummy.new({"target": 60}, players, seed=seed)
    viewers: list[int | None] = [*range(players), None]
    derived = moves = 0
    while not match.is_over():
        before = {viewer: copy.deepcopy(match.view(viewer)) for viewer in viewers}
        actor, action = seeded_move(match, rng)
        match.apply(actor, action)
        moves += 1
        # A view built after the move first, or not: the patch is the same.
        for viewer in rng.sample(viewers, len(viewers)):
            if rng.random() < 0.5:
                match.view(viewer)
            ops = match.move_patch(viewer, "/game")
            if ops is None:
                continue
            derived += viewer is None
            assert patched(before[viewer], ops) == match.view(viewer)
            for op in ops:
                # With four players each table has its own deck: the names hidden at its own.
                parts = op["path"].split("/")
                at = int(parts[3]) if parts[2] == "tables" else None
                if at is None and viewer is not None:
                    at = match.table_of(viewer)
                hidden = match.hidden_from(viewer) if at is None else match.hidden_at(viewer, at)
                assert not set(strings_in(op.get("value"))) & hidden
    # Draws, discards and the answers to the upcard are nearly every move.
    assert derived > 0.8 * moves
