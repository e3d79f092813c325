"""The relaying side: sockets held here for rooms owned elsewhere, closed when their owner
moves or goes."""

from __future__ import annotations

from collections.abc import Callable

from app.cluster import wire
from app.cluster.node_state import NodeState
from app.cluster.remote import RelayedConnection
from app.rooms.room import CLOSE_ROOM_MOVED


class Relaying(NodeState):
    """Sockets held here for rooms other nodes own."""

    def new_connection_id(self) -> str:
        return f"{self.incarnation}.{next(self._connection_ids)}"

    def relay(self, connection: RelayedConnection) -> None:
        self._relayed[connection.conn_id] = connection

    def unrelay(self, connection: RelayedConnection) -> None:
        if self._relayed.pop(connection.conn_id, None) is None:
            return
        if connection.owner is not None:
            self.bus.send(connection.owner, wire.gone(self.node_id, connection.conn_id))

    def _close_relayed(self, owner: str | None, reason: str) -> None:
        """Close the relayed sockets of rooms `owner` held (all of them for None)."""
        self._close_relays(lambda c: owner is None or c.owner == owner, reason)

    def _close_relays_elsewhere(self, room_id: str, owner: str) -> None:
        """The room is `owner`'s now: its sockets relayed from another node close (that node
        lost it, perhaps cut off, and may never tell them), and reconnect to the new owner."""
        self._close_relays(
            lambda c: c.room_id == room_id and c.owner not in (None, owner),
            "the room moved; reconnect",
        )

    def _close_relays(self, which: Callable[[RelayedConnection], bool], reason: str) -> None:
        for connection in [c for c in self._relayed.values() if which(c)]:
            del self._relayed[connection.conn_id]
            connection.outbox.close(CLOSE_ROOM_MOVED, reason)

    def _close_relays_of_dead_owners(self) -> None:
        """By the marks `_mark_alive` read just before."""
        for owner in {c.owner for c in self._relayed.values() if c.owner in self._gone}:
            self._close_relayed(owner, "the room's server stopped; reconnect")
