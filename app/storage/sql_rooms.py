"""The rooms table: one row per room, its seats a JSON list (written by the log writers,
with app.storage.prepared's upsert; read here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.storage.models import ROOMS
from app.storage.records import ROOM_CLOSED, RoomRecord, RoomSeatRecord, StoredRoom
from app.storage.sql_reads import utc

# A seat's fields are plain values: a dict of them is what asdict gives, without its deep copy
# (room saves build these on the event loop).
SEAT_FIELDS = tuple(field.name for field in fields(RoomSeatRecord))


def room_values(room: RoomRecord) -> dict[str, Any]:
    return {
        "game": room.game,
        "players": room.players,
        "options": room.options,
        "public": room.public,
        "spectators": room.spectators,
        "hints": room.hints,
        "rated": room.rated,
        "status": room.status,
        "seats": [{name: getattr(seat, name) for name in SEAT_FIELDS} for seat in room.seats],
        "match_id": room.match_id,
        "epoch": room.epoch,
        "chat": room.chat,
        "chat_host": room.chat_host,
        "chat_muted": list(room.chat_muted),
    }


def stored_room(row: Row[Any]) -> StoredRoom:
    room = RoomRecord(
        room_id=row.id,
        game=row.game,
        players=row.players,
        options=row.options,
        public=row.public,
        spectators=row.spectators,
        hints=row.hints,
        rated=row.rated,
        status=row.status,
        seats=[RoomSeatRecord(**seat) for seat in row.seats],
        match_id=row.match_id,
        epoch=row.epoch,
        chat=row.chat,
        chat_host=row.chat_host,
        chat_muted=tuple(row.chat_muted or ()),
    )
    return StoredRoom(room=room, created_at=utc(row.created_at), updated_at=utc(row.updated_at))


async def open_rooms(connection: AsyncConnection) -> list[StoredRoom]:
    rows = await connection.execute(
        select(ROOMS).where(ROOMS.c.status != ROOM_CLOSED).order_by(ROOMS.c.created_at, ROOMS.c.id)
    )
    return [stored_room(row) for row in rows]


async def load_room(connection: AsyncConnection, room_id: str) -> StoredRoom | None:
    row = (await connection.execute(select(ROOMS).where(ROOMS.c.id == room_id))).first()
    return None if row is None else stored_room(row)


async def open_room_ids(connection: AsyncConnection) -> list[str]:
    rows = await connection.execute(
        select(ROOMS.c.id).where(ROOMS.c.status != ROOM_CLOSED).order_by(ROOMS.c.id)
    )
    return list(rows.scalars())


async def room_epochs(connection: AsyncConnection, room_ids: Sequence[str]) -> dict[str, int]:
    rows = await connection.execute(
        select(ROOMS.c.id, ROOMS.c.epoch).where(
            ROOMS.c.id.in_(list(room_ids)), ROOMS.c.status != ROOM_CLOSED
        )
    )
    return {row.id: row.epoch for row in rows}
