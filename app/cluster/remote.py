"""Rooms another node owns, reached over the bus; and, on the owner, sockets another node holds.

The relaying side (`RemoteRoom`) answers the API's calls on a room by calling its owner; the
socket it holds gets the owner's messages as the owner made them, patches filtered and made
once, on the owner, for that socket's own seat. The owning side sees such a socket as an
ordinary connection of the room whose outbox (`RemoteOutbox`) sends to the relaying node.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from app.cluster import wire
from app.rooms.documents import Document
from app.rooms.errors import RoomError
from app.rooms.fanout import Ack, Connection, Outbox
from app.rooms.room import CLOSE_ROOM_MOVED

if TYPE_CHECKING:
    from app.cluster.bus import Bus


class RoomCaller(Protocol):
    """The node's side of calling a room's owner (app.cluster.node)."""

    async def call_room(
        self, room_id: str, op: str, arguments: dict[str, Any], *, again: bool
    ) -> Any: ...

    async def call_room_from(
        self, room_id: str, op: str, arguments: dict[str, Any], *, again: bool
    ) -> tuple[Any, str]: ...

    def relay(self, connection: RelayedConnection) -> None: ...

    def unrelay(self, connection: RelayedConnection) -> None: ...

    def new_connection_id(self) -> str: ...


class RelayedConnection(Connection):
    """A socket held here for a room owned elsewhere; `conn_id` names it to the owner."""

    __slots__ = ("conn_id", "owner", "room_id")

    def __init__(
        self,
        outbox: Outbox,
        seat: int | None,
        token_hash: str | None,
        room_id: str,
        conn_id: str,
    ) -> None:
        super().__init__(outbox, seat, token_hash)
        self.room_id = room_id
        self.conn_id = conn_id
        # The node that attached it: if that node goes, so does the socket.
        self.owner: str | None = None


class RemoteRoom:
    """A room owned by another node. Calls that change nothing are tried again when the owner
    cannot be reached (it may be dying, and a new owner take the room over); calls that change
    something are not, since they may have been made before the answer was lost."""

    __slots__ = ("_caller", "_room_id")

    def __init__(self, caller: RoomCaller, room_id: str) -> None:
        self._caller = caller
        self._room_id = room_id

    @property
    def room_id(self) -> str:
        return self._room_id

    async def _read(self, op: str, **arguments: Any) -> Any:
        return await self._caller.call_room(self._room_id, op, arguments, again=True)

    async def _change(self, op: str, **arguments: Any) -> Any:
        return await self._caller.call_room(self._room_id, op, arguments, again=False)

    async def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = await self._read("describe")
        return described

    async def read(self, token_hash: str | None) -> tuple[int, Document]:
        answer = await self._read("read", token_hash=token_hash)
        return answer["version"], answer["state"]

    async def legal(self, token_hash: str) -> tuple[int, list[dict[str, Any]]]:
        answer = await self._read("legal", token_hash=token_hash)
        return answer["version"], answer["actions"]

    async def join(
        self, name: str, wanted: int | None, token_hash: str, player_id: str | None = None
    ) -> int:
        seat: int = await self._change(
            "join", name=name, wanted=wanted, token_hash=token_hash, player_id=player_id
        )
        return seat

    async def leave(self, token_hash: str) -> None:
        await self._change("leave", token_hash=token_hash)

    async def add_bot(self, wanted: int | None, level: str) -> int:
        seat: int = await self._change("add_bot", wanted=wanted, level=level)
        return seat

    async def remove_bot(self, index: int) -> None:
        await self._change("remove_bot", index=index)

    async def ready(self, token_hash: str) -> None:
        await self._change("ready", token_hash=token_hash)

    async def rematch(self, token_hash: str) -> None:
        await self._change("rematch", token_hash=token_hash)

    async def hand_to_bot(self, token_hash: str, index: int) -> None:
        await self._change("hand_to_bot", token_hash=token_hash, index=index)

    async def act(
        self,
        token_hash: str,
        action: Mapping[str, Any],
        version: int | None = None,
        ack: Ack | None = None,
    ) -> int:
        arguments: dict[str, Any] = {
            "token_hash": token_hash,
            "action": dict(action),
            "version": version,
        }
        if ack is not None:
            connection, seq = ack
            assert isinstance(connection, RelayedConnection)
            arguments["conn"], arguments["seq"] = connection.conn_id, seq
        try:
            new_version: int = await self._change("act", **arguments)
        except RoomError as refused:
            if ack is not None and refused.code == "room_moved":
                self._detach(ack[0])
            raise
        return new_version

    async def connect(self, outbox: Outbox, token_hash: str | None) -> Connection:
        connection = RelayedConnection(
            outbox, None, token_hash, self._room_id, self._caller.new_connection_id()
        )
        # Known here before the owner answers: its snapshot may come first, and names the owner.
        self._caller.relay(connection)
        try:
            connection.seat, owner = await self._caller.call_room_from(
                self._room_id,
                "connect",
                {"token_hash": token_hash, "conn": connection.conn_id},
                again=True,
            )
        except BaseException:
            self._caller.unrelay(connection)
            raise
        if connection.owner not in (None, owner):
            # Frames of a first try, answered late by an owner that has lost the room since,
            # came before those of the owner that answered: the socket starts again.
            self._detach(connection)
            raise RoomError("room_moved", "the room moved; reconnect")
        connection.owner = owner
        return connection

    async def disconnect(self, connection: Connection) -> None:
        assert isinstance(connection, RelayedConnection)
        self._caller.unrelay(connection)

    async def resync(self, connection: Connection) -> None:
        assert isinstance(connection, RelayedConnection)
        try:
            await self._read("resync", conn=connection.conn_id)
        except RoomError as refused:
            if refused.code == "room_moved":
                self._detach(connection)
            raise

    async def chat(self, token_hash: str, text: str | None, reaction: str | None) -> dict[str, Any]:
        line: dict[str, Any] = await self._change(
            "chat", token_hash=token_hash, text=text, reaction=reaction
        )
        return line

    async def chat_lines(self, token_hash: str | None) -> list[dict[str, Any]]:
        lines: list[dict[str, Any]] = await self._read("chat_lines", token_hash=token_hash)
        return lines

    async def mute_chat(self, token_hash: str, index: int, muted: bool) -> None:
        await self._change("mute_chat", token_hash=token_hash, index=index, muted=muted)

    def _detach(self, connection: Connection) -> None:
        """The owner does not know the socket (the room moved since it attached): the client
        reconnects, to the room's new owner."""
        assert isinstance(connection, RelayedConnection)
        self._caller.unrelay(connection)
        connection.outbox.close(CLOSE_ROOM_MOVED, "the room moved; reconnect")


class RemoteOutbox:
    """On the owner: the outbox of a socket another node holds. Sending never waits."""

    __slots__ = ("bus", "closed", "conn_id", "node", "on_close", "owner")

    def __init__(self, bus: Bus, owner: str, node: str, conn_id: str, on_close: Any = None) -> None:
        self.bus = bus
        self.owner = owner
        self.node = node
        self.conn_id = conn_id
        self.closed = False
        self.on_close = on_close

    def send(self, text: str) -> None:
        if not self.closed:
            self.bus.send(self.node, wire.frame(self.owner, self.conn_id, text))

    def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.bus.send(self.node, wire.close(self.owner, self.conn_id, code, reason))
        if self.on_close is not None:
            self.on_close(self)
