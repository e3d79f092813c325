"""The database schema as typed SQLAlchemy models; migrations create it, never create_all."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    false,
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
    # Whether its room was listed in the lobby: a private room's matches are shown only to
    # those who could see them at the table (app.players.privacy).
    public: Mapped[bool] = mapped_column(Boolean, server_default=true())
    # Whether its end updates ratings (the room option `rated`; matches stored before: no).
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    # The order in which rated matches ended, from rating_clock: the order a rebuild folds in.
    rating_seq: Mapped[int | None] = mapped_column(BigInteger, unique=True)

    __table_args__ = (
        # The history list filters by game and status and sorts newest first.
        Index("ix_matches_game_created_at", "game", "created_at"),
        Index("ix_matches_status_created_at", "status", "created_at"),
        Index("ix_matches_public_created_at", "public", "created_at"),
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
    # The player who sat here (None: anonymous, or forgotten); bots are linked at the match end.
    player_id: Mapped[str | None] = mapped_column(String(32))
    # Finishing place at the match end, 0 first; partners share their side's place.
    place: Mapped[int | None] = mapped_column(Integer)
    # Its match's finished_at once the match is over (finished or abandoned), so that a
    # player's newest matches are the first entries of an index of their seats.
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_seats_player_id_ended_at", "player_id", "ended_at", "match_id"),)


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
    # Rows written before migration 0006 are rooms whose matches were not rated.
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    # Recovery reads every room that is not closed.
    status: Mapped[str] = mapped_column(String(16), index=True)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JsonDocument)
    match_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The fence: raised by every claim of the room; a write made under an older one is refused.
    epoch: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    # Rows written before migration 0007: rooms with chat on, nobody muted, no host yet.
    chat: Mapped[bool] = mapped_column(Boolean, server_default=true())
    chat_host: Mapped[int | None] = mapped_column(Integer)
    chat_muted: Mapped[list[int]] = mapped_column(JsonDocument, server_default=text("'[]'"))


class ChatMessageRow(Base):
    """A room's talk, kept with the room (the last lines on connecting) and with the match
    being played (its replay). Like the rooms' rows, no foreign key: a room writes through its
    own writer shard."""

    __tablename__ = "chat_messages"

    room_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    match_id: Mapped[str | None] = mapped_column(String(64))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str | None] = mapped_column(String(1200))
    reaction: Mapped[str | None] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_chat_messages_match_id_id", "match_id", "id"),)


class PlayerRow(Base):
    """A person (known by secret keys, kept hashed) or a bot level that is rated like one."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    # The name folded for comparison: two names that differ only in case are one name.
    name_key: Mapped[str] = mapped_column(String(128), unique=True)
    kind: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlayerKeyRow(Base):
    """One device's key of a player (its SHA-256); signing out the others leaves one."""

    __tablename__ = "player_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LinkCodeRow(Base):
    """A one-time code that lets another device become the player.

    A code is a public locator (which code) and a secret; only the secret's hash is kept, so a
    wrong secret for a real locator counts against that code.
    """

    __tablename__ = "link_codes"

    locator: Mapped[str] = mapped_column(String(8), primary_key=True)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), index=True
    )
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    failures: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    used: Mapped[bool] = mapped_column(Boolean, server_default=false())


class RatingRow(Base):
    """A player's current rating in one mode ("gin_rummy:2" ...): derived, rebuildable data."""

    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(24), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    # The shown rating (app.players.rating_math.shown), kept for the leaderboard's index.
    display: Mapped[int] = mapped_column(Integer)
    matches: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    # A leaderboard's order (display, then player id, both from the end): a page at any offset
    # is read from the index alone.
    __table_args__ = (Index("ix_ratings_mode_display_player_id", "mode", "display", "player_id"),)


class RatingEventRow(Base):
    """One rated seat of one finished match: the rating before and after it."""

    __tablename__ = "rating_events"

    match_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(24))
    seq: Mapped[int] = mapped_column(BigInteger)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    display_before: Mapped[int] = mapped_column(Integer)
    display_after: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The match's room was public (fixed with the match): whether others see its point's match.
    public: Mapped[bool] = mapped_column(Boolean, server_default=false())

    __table_args__ = (
        # A profile's chart: each mode's last points, newest first, read from the index alone
        # (a player's events lie scattered over the table; a busy player's chart would visit
        # a page of it for each of its up to 1,200 points).
        Index(
            "ix_rating_events_chart",
            "player_id",
            "mode",
            "seq",
            "match_id",
            "at",
            "display_after",
            "public",
        ),
        # A bot's newest rated matches (a bot has no seats linked to it).
        Index("ix_rating_events_player_id_seq", "player_id", "seq"),
    )


class RatingClockRow(Base):
    """One row: the last rating_seq given. A rated match end raises it under the row's lock, so
    rating updates commit one at a time, across every server, in the order they are numbered."""

    __tablename__ = "rating_clock"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)


class RatingTotalRow(Base):
    """How many players have a rating in a mode: a leaderboard's total, kept by the match ends
    that rate a player in a mode for the first time and by forgetting a player."""

    __tablename__ = "rating_totals"

    mode: Mapped[str] = mapped_column(String(24), primary_key=True)
    players: Mapped[int] = mapped_column(Integer)


class PlayerPairRow(Base):
    """What one rated player (a person or a bot) did with another, counted at each finished
    match's end (app.storage.pair_counts) and by a rebuild: `shared`, the rated matches both
    were rated in (the circle of friends); `duels`, `wins`, `losses`, the finished matches
    where they sat on opposite sides with places (head to head). Each count twice: over every
    match, and over public rooms' matches only (what anyone but the player may see). One row
    per ordered pair: (a, b) and (b, a) are both kept, each read from its player's side."""

    __tablename__ = "player_pairs"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    other_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    shared: Mapped[int] = mapped_column(Integer)
    shared_public: Mapped[int] = mapped_column(Integer)
    duels: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    duels_public: Mapped[int] = mapped_column(Integer)
    wins_public: Mapped[int] = mapped_column(Integer)
    losses_public: Mapped[int] = mapped_column(Integer)

    # A profile's most frequent opponents, for its player and for anyone else.
    __table_args__ = (
        Index("ix_player_pairs_player_id_duels", "player_id", "duels", "other_id"),
        Index("ix_player_pairs_player_id_duels_public", "player_id", "duels_public", "other_id"),
    )


class CircleSizeRow(Base):
    """How many other players rated in a mode a player shared a rated match with (their
    circle, without them), over every match and over public rooms' matches: a circle's total,
    kept by rated match ends and by forgetting a player (app.storage.circle_sizes)."""

    __tablename__ = "circle_sizes"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    mode: Mapped[str] = mapped_column(String(24), primary_key=True)
    members: Mapped[int] = mapped_column(Integer)
    members_public: Mapped[int] = mapped_column(Integer)


MATCHES = cast(Table, MatchRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
ACTIONS = cast(Table, ActionRow.__table__)
HANDS = cast(Table, HandResultRow.__table__)
ROOMS = cast(Table, RoomRow.__table__)
PLAYERS = cast(Table, PlayerRow.__table__)
PLAYER_KEYS = cast(Table, PlayerKeyRow.__table__)
LINK_CODES = cast(Table, LinkCodeRow.__table__)
RATINGS = cast(Table, RatingRow.__table__)
RATING_EVENTS = cast(Table, RatingEventRow.__table__)
RATING_CLOCK = cast(Table, RatingClockRow.__table__)
CHAT_MESSAGES = cast(Table, ChatMessageRow.__table__)
RATING_TOTALS = cast(Table, RatingTotalRow.__table__)
PLAYER_PAIRS = cast(Table, PlayerPairRow.__table__)
CIRCLE_SIZES = cast(Table, CircleSizeRow.__table__)
