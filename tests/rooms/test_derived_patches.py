"""Patches the engine derives from a move, without the room building anyone's view, take every
connection's copy to what the engine shows its viewer, move after move: Gin Rummy with two,
three and four players (and Rummikub, whose moves are all built and diffed, with two and four),
a spectator, a seat that connects mid-hand and one that goes away and comes back."""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest

from app.bots.registry import make_bot
from app.games.engine import Engine
from app.rooms import match as room_match
from app.rooms.fanout import Connection
from app.rooms.room import Room
from tests.rooms.test_reported_patches import ClientCopy
from tests.rooms.test_table_versions import gin_room
from tests.rooms.test_write_ahead import next_to_act


def mirror(engine: Engine) -> Engine:
    """A copy of the engine built from its state: views built on it leave the engine's own
    kept views as they were."""
    return type(engine).from_json(engine.to_json())


def expected(room: Room, engine: Engine, seat: int | None) -> dict[str, Any]:
    """The room's document for `seat` with the game's view built on a mirror of its engine."""
    return copy.deepcopy(room._document(seat, engine.view(seat)))


@pytest.mark.parametrize(
    ("game", "players", "seed"),
    [
        ("gin_rummy", 2, 11),
        ("gin_rummy", 2, 12),
        ("gin_rummy", 3, 13),
        ("gin_rummy", 4, 14),
        ("rummikub", 2, 15),
        ("rummikub", 4, 16),
    ],
)
async def test_derived_patches_take_every_copy_to_the_viewer_s_document(
    game: str, players: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(room_match, "new_seed", lambda: seed)
    room, hashes = await gin_room(players, game)
    rng = random.Random(seed)
    bots = [make_bot(game, "easy", seed + seat) for seat in range(players)]
    viewers: list[int | None] = [*range(players), None]
    # Seat 1 connects only after a few moves; the last seat leaves and comes back.
    clients: dict[int | None, ClientCopy] = {}
    connections: dict[int | None, Connection] = {}

    async def connect(viewer: int | None) -> None:
        clients[viewer] = ClientCopy()
        token = None if viewer is None else hashes[viewer]
        connections[viewer] = await room.connect(clients[viewer], token)

    for viewer in viewers:
        if viewer != 1:
            await connect(viewer)
    derived = moves = 0
    leaver = players - 1
    for move in range(400):
        assert room.match is not None
        engine = room.match.engine
        if engine.is_over():
            break
        seat = await next_to_act(room)
        legal = engine.legal_actions(seat)
        if game == "rummikub":
            action = bots[seat].choose(mirror(engine).view(seat), legal)
        else:
            action = next((a for a in legal if a["type"] in ("gin", "knock")), rng.choice(legal))
        ack = (connections[seat], move) if seat in connections else None
        await room.act(hashes[seat], action, room.version, ack)
        moves += 1
        engine = room.match.engine
        derived += room._shown is not None and engine.move_patch(None, "/game") is not None
        if move == 5:
            await connect(1)
        if move == 20:
            await room.disconnect(connections.pop(leaver))
            clients.pop(leaver)
        if move == 60:
            await connect(leaver)
        copy_of = mirror(engine)
        for viewer, client in clients.items():
            assert client.version == room.version, viewer
            assert client.doc == expected(room, copy_of, viewer), (viewer, move, action)
    # A Rummikub match of one round can end in under a hundred moves.
    assert moves > (100 if game == "gin_rummy" else 60)
    if game == "gin_rummy":
        # Draws, discards and the answers to the upcard are nearly every move.
        assert derived > 0.8 * moves
    else:
        # Rummikub's moves are built and diffed (a derived draw would leave the next play's
        # viewers without the view to diff against: `/game` whole, once a turn).
        assert derived == 0
    await room.close()


async def test_a_seat_going_away_after_a_derived_move_sends_no_game_ops() -> None:
    room, hashes = await gin_room(2)
    watcher, leaver = ClientCopy(), ClientCopy()
    await room.connect(watcher, None)
    gone = await room.connect(leaver, hashes[1])
    seat = await next_to_act(room)
    await room.act(hashes[seat], {"type": "pass"})
    assert room.match is not None
    assert room.match.engine.move_patch(None, "/game") is not None
    sent: list[dict[str, Any]] = []
    forward = watcher.send
    watcher.send = lambda text: (sent.append(orjson.loads(text)), forward(text))[1]  # type: ignore[method-assign]
    await room.disconnect(gone)
    [patch] = sent
    assert patch["patch"]
    assert not [op for op in patch["patch"] if op["path"].startswith("/game")]
    assert watcher.doc == expected(room, mirror(room.match.engine), None)
    await room.close()


async def test_a_tab_behind_the_others_of_its_seat_gets_a_patch_from_where_it_is() -> None:
    room, hashes = await gin_room(2)
    seat = await next_to_act(room)
    ahead, behind = ClientCopy(), ClientCopy()
    await room.connect(ahead, hashes[seat])
    tab = await room.connect(behind, hashes[seat])
    await room.act(hashes[seat], {"type": "pass"})
    held = (tab.doc, tab.version, copy.deepcopy(behind.doc), behind.version)
    await room.act(hashes[await next_to_act(room)], {"type": "pass"})
    # As if the last change had not reached this tab (every change reaches every tab).
    tab.doc, tab.version, behind.doc, behind.version = held
    mover = await next_to_act(room)
    await room.act(hashes[mover], {"type": "draw", "source": "stock"})
    assert room.match is not None
    copy_of = mirror(room.match.engine)
    assert behind.version == ahead.version == room.version
    assert behind.doc == ahead.doc == expected(room, copy_of, seat)
    await room.close()
