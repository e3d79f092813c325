"""The database schema as typed SQLAlchemy models; migrations create it, never create_all."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    text,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeEngine

# Stable constraint names, so that migrations can name what they alter on every database.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSONB on PostgreSQL keeps documents compact and queryable; elsewhere plain JSON text.
JsonDocument: TypeEngine[Any] = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    room_id: Mapped[str] = mapped_column(String(64), index=True)
    game: Mapped[str] = mapped_column(String(32))
    config: Mapped[dict[str, Any]] = mapped_column(JsonDocument)
    seed: Mapped[int] = mapped_column(BigInteger)
    players: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    result: Mapped[dict[str, Any] | None] = mapped_column(JsonDocument)
    room_meta: Mapped[dict[str, Any]] = mapped_column(JsonDocument)

    __table_args__ = (
        # The history list filters by game and status and sorts newest first.
        Index("ix_matches_game_created_at", "game", "created_at"),
        Index("ix_matches_status_created_at", "status", "created_at"),
    )


class SeatRow(Base):
    __tablename__ = "seats"

    match_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    level: Mapped[str | None] = mapped_column(String(32))
    token_hash: Mapped[str | None] = mapped_column(String(128))
    final_score: Mapped[int | None] = mapped_column(Integer)


class ActionRow(Base):
    """The append-only log: (match_id, idx) is the key, so a replayed index is refused."""

    __tablename__ = "actions"

    match_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JsonDocument)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class HandResultRow(Base):
    __tablename__ = "hand_results"

    match_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    hand_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    result: Mapped[dict[str, Any]] = mapped_column(JsonDocument)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RoomRow(Base):
    """One room, rewritten whole on every change; its seats are a small JSON list.

    match_id is deliberately no foreign key: room writes go through the room's own writer shard,
    and recovery looks a room's active match up by room_id anyway.
    """

    __tablename__ = "rooms"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JsonDocument)
    public: Mapped[bool] = mapped_column(Boolean)
    spectators: Mapped[bool] = mapped_column(Boolean)
    # Rows written before migration 0003 are rooms that allowed hints.
    hints: Mapped[bool] = mapped_column(Boolean, server_default=true())
    # Recovery reads every room that is not closed.
    status: Mapped[str] = mapped_column(String(16), index=True)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JsonDocument)
    match_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The fence: raised by every claim of the room; a write made under an older one is refused.
    epoch: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))


MATCHES = cast(Table, MatchRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
ACTIONS = cast(Table, ActionRow.__table__)
HANDS = cast(Table, HandResultRow.__table__)
ROOMS = cast(Table, RoomRow.__table__)
