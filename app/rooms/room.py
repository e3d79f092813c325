"""One authoritative room: seats, one match at a time, one lock, a version, its connections.

Every change goes through the room's lock: it is applied, logged (for actions), the version is
bumped, and every connection gets the patch to its own new document before the lock is released,
so patches reach each connection in version order.

A room is held under a fence, the epoch at which this process claimed it; its versions count up
from the epoch times VERSION_STRIDE, so a version from before a claim (a restart, a takeover) is
always lower than every version after it. Once the store refuses a write as fenced, the room is
lost: it refuses everything with `room_moved` and its owner drops it.
"""

from __future__ import annotations

import time

from app.rooms.errors import RoomError
from app.rooms.fanout import Connection, Outbox
from app.rooms.room_chat import RoomChat
from app.rooms.room_state import (
    CLOSE_ROOM_CLOSED,
    CLOSE_ROOM_MOVED,
    CLOSE_SEAT_GONE,
    VERSION_STRIDE,
    RoomSpec,
    RoomState,
    RoomTimings,
)
from app.rooms.seat_changes import SeatChanges

__all__ = [
    "CLOSE_ROOM_CLOSED",
    "CLOSE_ROOM_MOVED",
    "CLOSE_SEAT_GONE",
    "VERSION_STRIDE",
    "Room",
    "RoomSpec",
    "RoomState",
    "RoomTimings",
]


class Room(SeatChanges, RoomChat):
    """One room: its seats, its match, its talk and its connections."""

    async def connect(self, outbox: Outbox, token_hash: str | None) -> Connection:
        """Register a socket and queue its snapshot; raises RoomError for a bad token."""
        async with self.lock:
            seat = await self._viewer(token_hash)
            if seat is None and not self.spec.spectators:
                raise RoomError("spectators_not_allowed", "this room does not allow spectators")
            if seat is not None:
                record = self.seats[seat]
                record.connections += 1
                if record.connections == 1:
                    self._changed(game=False)
            connection = Connection(outbox, seat, token_hash)
            self.fanout.add(connection)
            self.fanout.snapshot(connection, self.version, self.document(seat))
            if self.talk.lines:
                history = {"type": "chat_history", "messages": list(self.talk.lines)}
                self.fanout.send_to(connection, history)
            return connection

    async def disconnect(self, connection: Connection) -> None:
        async with self.lock:
            if connection not in self.fanout.connections:
                return
            self.fanout.remove(connection)
            if connection.seat is None:
                return
            record = self.seats[connection.seat]
            record.connections = max(0, record.connections - 1)
            record.last_seen = self.last_activity = time.monotonic()
            if record.connections == 0:
                self._changed(game=False)

    async def resync(self, connection: Connection) -> None:
        async with self.lock:
            self.fanout.snapshot(connection, self.version, self.document(connection.seat))

    async def close(self) -> None:
        for timer in (self.turn_timer, self.hand_timer, self.bot_timer):
            await timer.stop()
