"""The owning side of sockets other nodes hold: each an ordinary connection of the room,
whose outbox sends to the node holding the socket."""

from __future__ import annotations

from redis.exceptions import RedisError

from app.cluster.remote import RemoteOutbox
from app.cluster.tenancy import Tenancy
from app.rooms.errors import RoomError
from app.rooms.fanout import Connection
from app.rooms.room import Room
from app.storage.store import StoreError


class AttachedSockets(Tenancy):
    """Sockets other nodes hold for rooms owned here."""

    async def held_room(self, room_id: str) -> Room | None:
        """The room if this node holds it, taking it up if its lease names this node although
        the node does not hold it (a node restarted under the same name, before its old
        leases ran out)."""
        room = self.directory.rooms.get(room_id)
        if room is not None:
            if room.lost:
                return None
            # A call held up on the way (Redis hung) may come after another node claimed the
            # room: only the owner of its epoch answers it.
            try:
                return room if await self._still_ours(room) else None
            except RoomError:
                return None
        try:
            if await self.leases.owner(room_id) != self.node_id:
                return None
            return await self._take(room_id)
        except (RoomError, StoreError, RedisError, OSError):
            return None

    def remote_connection(self, node: str, conn_id: str) -> Connection:
        held = self._remote.get((node, conn_id))
        if held is None:
            raise RoomError("room_moved", "the socket is not attached to this room's server")
        return held[1]

    async def connect_remote(
        self, room: Room, node: str, conn_id: str, token_hash: str | None
    ) -> int | None:
        # A call tried again after a lost answer attaches the socket once, not twice.
        self._drop_remote(node, conn_id)
        outbox = RemoteOutbox(self.bus, self.node_id, node, conn_id, self._remote_closed)
        connection = await room.connect(outbox, token_hash)
        self._remote[(node, conn_id)] = (room, connection)
        return connection.seat

    def _remote_closed(self, outbox: RemoteOutbox) -> None:
        self._remote.pop((outbox.node, outbox.conn_id), None)

    def _drop_remote(self, node: str, conn_id: str) -> None:
        held = self._remote.pop((node, conn_id), None)
        if held is not None:
            room, connection = held
            self._spawn(room.disconnect(connection))

    def _drop_sockets_of_dead_nodes(self) -> None:
        """The sockets other nodes held here, of nodes that are gone (a room nobody sends to
        would keep them for good, and never count as idle); by the marks read just before."""
        for key in [key for key in self._remote if key[0] in self._gone]:
            self._drop_remote(*key)
