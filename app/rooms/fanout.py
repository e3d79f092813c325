"""Connections to one room and what each last received: snapshots out, patches after changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from app.rooms.documents import Document, Patch, Shared, make_patch
from app.storage.records import json_text

# Raised only for changes an existing client could misread; additions keep the number.
# 2: an accepted action's ack carries the action's patch for the acting connection.
# 3: a Gin Rummy knock may wait for the defender's lay-offs (phase and action lay_off).
PROTOCOL = 3


# A message's text: the stores' JSON text (orjson; bench/bench_diff.py), int keys as strings.
dumps = json_text


class Outbox(Protocol):
    """Where a connection's messages go; `send` must not block (it queues)."""

    def send(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


class Connection:
    """One socket's place in a room: its viewer (seat or None) and the last document it got."""

    __slots__ = ("doc", "outbox", "seat", "token_hash", "version")

    def __init__(self, outbox: Outbox, seat: int | None, token_hash: str | None) -> None:
        self.outbox = outbox
        self.seat = seat
        self.token_hash = token_hash
        self.doc: Document | None = None
        self.version = -1


# A change of a part of documents (the public view, a seat's own part): before, after, where
# documents hold it, and the patch.
Known = tuple[Any, Any, str, Patch]
# The connection whose action this change is, and the action's `seq`.
Ack = tuple[Connection, int]
# A viewer's new document and the patch to it from the one given, derived without building it.
Derived = tuple[Document, Patch]


class Fanout:
    """Sends every connection its own document's patch, computing each document once."""

    def __init__(self) -> None:
        self.connections: list[Connection] = []

    def add(self, connection: Connection) -> None:
        self.connections.append(connection)

    def remove(self, connection: Connection) -> None:
        if connection in self.connections:
            self.connections.remove(connection)

    def count(self, seat: int | None) -> int:
        return sum(1 for c in self.connections if c.seat == seat)

    def snapshot(self, connection: Connection, version: int, doc: Document) -> None:
        connection.doc, connection.version = doc, version
        message = {"type": "snapshot", "protocol": PROTOCOL, "version": version, "state": doc}
        connection.outbox.send(dumps(message))

    def broadcast(
        self,
        version: int,
        document: Callable[[int | None], Document],
        ack: Ack | None = None,
        known: Callable[[], Known | None] | None = None,
        own: Callable[[int], Known | None] | None = None,
        derive: Callable[[int | None, Document], Derived | None] | None = None,
    ) -> None:
        """Send each connection the patch to its document at `version`.

        The connection in `ack` gets the patch inside the ack of its action (one frame, not
        two: a third of the socket writes of a move). `derive`, asked first for each viewer
        with the document its connections hold, may give the new document and the patch to it
        without building the document; otherwise the document is built and diffed. `known`,
        asked once the first document is built, may tell the change of the public view those
        documents hold, as the engine reported it: then nobody's documents are diffed there.
        `own`, asked once a seat's document is built, may tell the change of that seat's own
        part the same way.
        """
        docs: dict[int | None, Document] = {}
        # Tabs of one seat usually hold the same version: one patch text serves them all.
        patches: dict[tuple[int | None, int], Patch] = {}
        texts: dict[tuple[int | None, int], str] = {}
        # Seats' views share the public view: its change is found once for them all.
        shared: Shared = {}
        acking = None if ack is None else ack[0]
        connections = self.connections
        if acking is not None and acking in connections and connections[0] is not acking:
            # The actor's answer first: its round trip is the one a person waits on.
            connections = [acking, *(c for c in connections if c is not acking)]
        # Viewers whose new document was derived: a connection of theirs at another version
        # (none in practice: every change reaches every connection) gets it built and diffed.
        derived: set[int | None] = set()
        for connection in connections:
            seat = connection.seat
            doc = docs.get(seat)
            if doc is None and derive is not None and connection.doc is not None:
                made = derive(seat, connection.doc)
                if made is not None:
                    doc = docs[seat] = made[0]
                    patches[(seat, connection.version)] = made[1]
                    derived.add(seat)
            if doc is None:
                doc = docs[seat] = document(seat)
                if known is not None:
                    change = known()
                    known = None
                    if change is not None:
                        shared[(id(change[0]), id(change[1]))] = change
                if own is not None and seat is not None:
                    change = own(seat)
                    if change is not None:
                        shared[(id(change[0]), id(change[1]))] = change
            key = (seat, connection.version)
            patch = patches.get(key)
            if patch is None:
                if seat in derived:
                    doc = document(seat)
                patch = patches[key] = make_patch(connection.doc, doc, shared)
            if connection is acking:
                assert ack is not None
                message = {"type": "ack", "seq": ack[1], "from": connection.version}
                message["version"], message["patch"] = version, patch
                text = dumps(message)
            elif key in texts:
                text = texts[key]
            else:
                message = {"type": "patch", "from": connection.version, "version": version}
                message["patch"] = patch
                text = texts[key] = dumps(message)
            connection.doc, connection.version = doc, version
            connection.outbox.send(text)

    def send_to(self, connection: Connection, message: dict[str, Any]) -> None:
        connection.outbox.send(dumps(message))

    def close_seat(self, seat: int, code: int, reason: str) -> list[Connection]:
        gone = [c for c in self.connections if c.seat == seat]
        for connection in gone:
            self.connections.remove(connection)
            connection.outbox.close(code, reason)
        return gone
