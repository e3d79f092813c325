"""The chat_messages table's reads: a room's last lines, and a match's whole talk."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.storage.models import CHAT_MESSAGES
from app.storage.records import ChatRecord
from app.storage.sql_reads import utc


def chat_values(record: ChatRecord) -> dict[str, Any]:
    return {
        "room_id": record.room_id,
        "id": record.id,
        "match_id": record.match_id,
        "seat": record.seat,
        "name": record.name,
        "text": record.text,
        "reaction": record.reaction,
        "at": record.at,
    }


def chat_record(row: Row[Any]) -> ChatRecord:
    return ChatRecord(
        room_id=row.room_id,
        id=row.id,
        match_id=row.match_id,
        seat=row.seat,
        name=row.name,
        text=row.text,
        reaction=row.reaction,
        at=utc(row.at),
    )


async def recent_chat(connection: AsyncConnection, room_id: str, limit: int) -> list[ChatRecord]:
    rows = await connection.execute(
        select(CHAT_MESSAGES)
        .where(CHAT_MESSAGES.c.room_id == room_id)
        .order_by(CHAT_MESSAGES.c.id.desc())
        .limit(limit)
    )
    return [chat_record(row) for row in reversed(rows.all())]


async def match_chat(connection: AsyncConnection, match_id: str) -> list[ChatRecord]:
    rows = await connection.execute(
        select(CHAT_MESSAGES)
        .where(CHAT_MESSAGES.c.match_id == match_id)
        .order_by(CHAT_MESSAGES.c.id)
    )
    return [chat_record(row) for row in rows]
