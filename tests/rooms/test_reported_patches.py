"""A room's patches, with its engine reporting what each move changed in the public view and
in the mover's own part, take every connection's copy of its document to the room's document,
move after move."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import orjson
import pytest

from app.bots.registry import make_bot
from app.rooms import match as room_match
from app.rooms.fanout import Connection
from app.storage.memory_store import MemoryMatchStore
from tests.rooms.test_write_ahead import next_to_act, started_room


class ClientCopy:
    """A connection's outbox that keeps the document as a client applying the messages would."""

    def __init__(self) -> None:
        self.doc: dict[str, Any] | None = None
        self.version = -1

    def send(self, text: str) -> None:
        message = orjson.loads(text)
        if message["type"] == "snapshot":
            self.doc, self.version = message["state"], message["version"]
        elif message["type"] in ("patch", "ack"):
            assert message["from"] == self.version
            self.doc = jsonpatch.apply_patch(self.doc, message["patch"])
            self.version = message["version"]

    def close(self, code: int, reason: str) -> None:
        return None


@pytest.mark.parametrize(("game", "seed"), [("gin_rummy", 1), ("gin_rummy", 2), ("rummikub", 3)])
async def test_every_viewer_s_patched_copy_is_the_room_s_document_after_every_move(
    game: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(room_match, "new_seed", lambda: seed)
    room, hashes = await started_room(MemoryMatchStore(), game=game)
    bots = [make_bot(game, "easy", seed + seat) for seat in range(2)]
    clients = [ClientCopy() for _ in range(3)]
    connections: list[Connection] = [
        await room.connect(clients[0], hashes[0]),
        await room.connect(clients[1], hashes[1]),
        await room.connect(clients[2], None),
    ]
    rng = random.Random(seed)
    reported = own_reported = moves = 0
    for move in range(300):
        assert room.match is not None
        if room.match.engine.is_over():
            break
        seat = await next_to_act(room)
        doc = room.document(seat)
        legal = doc["you"]["legal"]
        if game == "rummikub":
            action = bots[seat].choose(doc["game"], legal)
        else:
            action = next((a for a in legal if a["type"] in ("gin", "knock")), rng.choice(legal))
        await room.act(hashes[seat], action, room.version, (connections[seat], move))
        moves += 1
        reported += room._public_change() is not None
        own_reported += room._own_change(seat) is not None
        for connection, client in zip(connections, clients, strict=True):
            assert client.version == room.version
            assert client.doc == copy.deepcopy(room.document(connection.seat))
    # Draws, discards and whole plays are nearly every move; new hands or rounds and the
    # match's end are diffed.
    assert moves > 100
    assert reported > 0.8 * moves
    if game == "gin_rummy":
        # The mover's own cards change with every draw and discard; Rummikub's racks are diffed.
        assert own_reported > 0.6 * moves
    await room.close()
