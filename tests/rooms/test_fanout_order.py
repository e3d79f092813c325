"""The acting connection hears about its move first; everyone else then gets the same change."""

from __future__ import annotations

import orjson

from app.rooms.fanout import Connection, Fanout
from app.storage.memory_store import MemoryMatchStore
from tests.rooms.test_write_ahead import next_to_act, started_room


class Recorder:
    """An outbox that writes what it is sent, with its name, to a list shared by all."""

    def __init__(self, name: str, sent: list[tuple[str, dict[str, object]]]) -> None:
        self.name = name
        self.sent = sent

    def send(self, text: str) -> None:
        self.sent.append((self.name, orjson.loads(text)))

    def close(self, code: int, reason: str) -> None:
        return None


async def test_the_actor_gets_its_ack_before_the_other_connections_get_their_patches() -> None:
    room, hashes = await started_room(MemoryMatchStore(), game="gin_rummy")
    sent: list[tuple[str, dict[str, object]]] = []
    # Connected in seat order, with a spectator between them: whoever acts, others come first
    # in the room's list at least once.
    connections: dict[str, Connection] = {}
    for name, token_hash in (("seat0", hashes[0]), ("spectator", None), ("seat1", hashes[1])):
        connections[name] = await room.connect(Recorder(name, sent), token_hash)
    for sequence in range(6):
        mover = await next_to_act(room)
        name = f"seat{mover}"
        legal = room.document(mover)["you"]["legal"]
        sent.clear()
        await room.act(hashes[mover], legal[0], room.version, (connections[name], sequence))
        assert sent[0][0] == name
        assert sent[0][1]["type"] == "ack"
        assert sent[0][1]["seq"] == sequence
        assert sorted(receiver for receiver, _ in sent[1:]) == sorted(set(connections) - {name})
        assert all(message["type"] == "patch" for _, message in sent[1:])
    await room.close()


def test_an_ack_for_a_connection_already_gone_reaches_nobody_and_breaks_nothing() -> None:
    fanout = Fanout()
    gone = Connection(Recorder("gone", []), 0, None)
    fanout.broadcast(1, lambda seat: {"seat": seat}, (gone, 3))
    sent: list[tuple[str, dict[str, object]]] = []
    here = Connection(Recorder("here", sent), 1, None)
    fanout.add(here)
    fanout.broadcast(2, lambda seat: {"seat": seat}, (gone, 4))
    assert [(name, message["type"]) for name, message in sent] == [("here", "patch")]
