"""What the API may do with a room, and with the rooms of a server, wherever the room lives.

A room held here is a `Room`; on a cluster, a room another node owns is reached through the
same calls (app.cluster.remote), so the routes and the socket never know which it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from app.rooms.documents import Document
from app.rooms.fanout import Ack, Connection, Outbox


class RoomAccess(Protocol):
    @property
    def room_id(self) -> str: ...

    async def describe(self) -> dict[str, Any]:
        """The room's info (as the lobby shows it) with its version."""
        ...

    async def read(self, token_hash: str | None) -> tuple[int, Document]: ...

    async def legal(self, token_hash: str) -> tuple[int, list[dict[str, Any]]]: ...

    async def join(
        self, name: str, wanted: int | None, token_hash: str, player_id: str | None = None
    ) -> int: ...

    async def leave(self, token_hash: str) -> None: ...

    async def add_bot(self, wanted: int | None, level: str) -> int: ...

    async def remove_bot(self, index: int) -> None: ...

    async def ready(self, token_hash: str) -> None: ...

    async def rematch(self, token_hash: str) -> None: ...

    async def hand_to_bot(self, token_hash: str, index: int) -> None: ...

    async def act(
        self,
        token_hash: str,
        action: Mapping[str, Any],
        version: int | None = None,
        ack: Ack | None = None,
    ) -> int: ...

    async def connect(self, outbox: Outbox, token_hash: str | None) -> Connection: ...

    async def disconnect(self, connection: Connection) -> None: ...

    async def resync(self, connection: Connection) -> None: ...

    async def chat(self, token_hash: str, text: str | None, reaction: str | None) -> dict[str, Any]:
        """Say one line (app.rooms.chat); the line as every connection was sent it."""
        ...

    async def chat_lines(self, token_hash: str | None) -> list[dict[str, Any]]: ...

    async def mute_chat(self, token_hash: str, index: int, muted: bool) -> None: ...


class Rooms(Protocol):
    """Every room a server can reach: its own, or on a cluster, every node's."""

    async def create(
        self,
        *,
        game: str,
        players: int,
        options: Mapping[str, Any],
        bots: list[tuple[int | None, str]],
        public: bool,
        spectators: bool,
        hints: bool = True,
        rated: bool = True,
        chat: bool = True,
    ) -> RoomAccess: ...

    async def find(self, room_id: str) -> RoomAccess:
        """The room, wherever it is held; RoomError("room_not_found") if it is not open."""
        ...

    async def lobby(self, game: str | None = None) -> list[dict[str, Any]]:
        """The public rooms waiting for players, as `describe` gives them."""
        ...

    async def every_room(self) -> list[dict[str, Any]]:
        """Every open room, private ones too, as the operator sees it (Room.admin_info), with
        the node that holds it."""
        ...

    async def close_room(self, room_id: str, reason: str) -> dict[str, Any]:
        """The operator closes a room; its last admin info. RoomError if it is not open."""
        ...

    async def seat_to_bot(
        self, room_id: str, seat: int, level: str, revoke: bool
    ) -> dict[str, Any]: ...

    async def post_notice(self, notice: dict[str, Any]) -> None:
        """Send the operator's notice to every socket of every room."""
        ...
