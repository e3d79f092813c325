"""The SQL statements behind the rooms table: one row per room, its seats a JSON list."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from app.storage.models import ROOMS
from app.storage.records import ROOM_CLOSED, RoomRecord, RoomSeatRecord, StoredRoom
from app.storage.sql_reads import utc


def room_values(room: RoomRecord) -> dict[str, Any]:
    return {
        "game": room.game,
        "players": room.players,
        "options": room.options,
        "public": room.public,
        "spectators": room.spectators,
        "hints": room.hints,
        "status": room.status,
        "seats": [asdict(seat) for seat in room.seats],
        "match_id": room.match_id,
    }


def write_room(connection: Connection, room: RoomRecord, at: datetime) -> None:
    """Upsert in two portable steps; one room's writes are serial, so no two race here."""
    values = {**room_values(room), "updated_at": at}
    done = connection.execute(update(ROOMS).where(ROOMS.c.id == room.room_id).values(values))
    if done.rowcount == 0:
        connection.execute(insert(ROOMS).values(id=room.room_id, created_at=at, **values))


def mark_closed(connection: Connection, room_id: str, at: datetime) -> None:
    connection.execute(
        update(ROOMS).where(ROOMS.c.id == room_id).values(status=ROOM_CLOSED, updated_at=at)
    )


def stored_room(row: Row[Any]) -> StoredRoom:
    room = RoomRecord(
        room_id=row.id,
        game=row.game,
        players=row.players,
        options=row.options,
        public=row.public,
        spectators=row.spectators,
        hints=row.hints,
        status=row.status,
        seats=[RoomSeatRecord(**seat) for seat in row.seats],
        match_id=row.match_id,
    )
    return StoredRoom(room=room, created_at=utc(row.created_at), updated_at=utc(row.updated_at))


async def open_rooms(connection: AsyncConnection) -> list[StoredRoom]:
    rows = await connection.execute(
        select(ROOMS).where(ROOMS.c.status != ROOM_CLOSED).order_by(ROOMS.c.created_at, ROOMS.c.id)
    )
    return [stored_room(row) for row in rows]
