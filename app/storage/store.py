"""The match store: what rooms write (write-ahead) and what history reads.

A match is fully defined by (game, config, seed, action log), so the store keeps exactly that,
plus the seats (names, hashed tokens, final scores), the room's metadata needed to rebuild the
room after a crash, and each hand's result for history and statistics.

Every room has an epoch, raised by each claim of the room (a server starting, a node taking it
over). A room's writes carry a `Fence` (its room and the epoch it was claimed at) and are
refused with StoreError("fenced") once the room's epoch has moved on: an owner that lost its
room can have no write accepted, so it can acknowledge nothing.

`open_store(url)` picks the implementation: "memory://" keeps everything in this process (tests,
the bench baseline); any SQLAlchemy async URL (sqlite+aiosqlite://, postgresql+asyncpg://)
gives the SQL store, whose schema must already exist (see app.storage.migrate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from app.storage.rating_writes import RatingUpdate
from app.storage.records import (
    ABANDONED,
    ACTIVE,
    ANYONE,
    END_STATUSES,
    FINISHED,
    ROOM_CLOSED,
    STATUSES,
    ActionRecord,
    ChatRecord,
    Fence,
    GinStats,
    HandRecord,
    MatchDetail,
    MatchSummary,
    PlayerStats,
    Reader,
    RoomRecord,
    RoomSeatRecord,
    RummikubStats,
    SeatRecord,
    StoredMatch,
    StoredRoom,
    StoreError,
)

__all__ = [
    "ABANDONED",
    "ACTIVE",
    "ANYONE",
    "END_STATUSES",
    "FINISHED",
    "ROOM_CLOSED",
    "STATUSES",
    "ActionRecord",
    "ChatRecord",
    "Fence",
    "GinStats",
    "HandRecord",
    "MatchDetail",
    "MatchStore",
    "MatchSummary",
    "PlayerStats",
    "RatingUpdate",
    "Reader",
    "RoomRecord",
    "RoomSeatRecord",
    "RummikubStats",
    "SeatRecord",
    "StoreError",
    "StoredMatch",
    "StoredRoom",
    "open_store",
]


class MatchStore(Protocol):
    """Every method is keyword-only; errors are StoreError with a stable code."""

    async def start(self) -> None:
        """Open connections and start the group-commit writer."""
        ...

    async def close(self) -> None:
        """Flush everything pending, then close."""
        ...

    async def create_match(
        self,
        *,
        match_id: str,
        room_id: str,
        game: str,
        config: dict[str, Any],
        seed: int,
        players: int,
        seats: list[SeatRecord],
        room_meta: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        """A new active match; StoreError("duplicate_match") if the id exists.

        Every write that takes a `fence` is refused with StoreError("fenced") when the fence's
        room has moved past its epoch; without one it is not checked.
        """
        ...

    async def update_seat(
        self, *, match_id: str, seat: SeatRecord, fence: Fence | None = None
    ) -> None:
        """Insert or replace the seat with `seat.seat` (a join, a bot, a leave)."""
        ...

    async def update_room_meta(
        self, *, match_id: str, room_meta: dict[str, Any], fence: Fence | None = None
    ) -> None:
        """Replace the room metadata kept for rebuilding the room."""
        ...

    async def append_action(
        self,
        *,
        match_id: str,
        index: int,
        seat: int | None,
        action: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        """Return only once the action is committed; concurrent calls share one transaction.

        StoreError("duplicate_action") if (match_id, index) is already logged,
        StoreError("unknown_match") if the match does not exist.
        """
        ...

    async def record_hand(
        self,
        *,
        match_id: str,
        hand_index: int,
        result: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        """Keep one hand's or round's result; recording the same index again replaces it."""
        ...

    async def finish_match(
        self,
        *,
        match_id: str,
        status: str,
        result: dict[str, Any] | None,
        final_scores: list[int] | None,
        fence: Fence | None = None,
        places: list[int] | None = None,
        rating: RatingUpdate | None = None,
    ) -> None:
        """Close the match as "finished" or "abandoned"; final_scores and places are per seat.

        `rating` updates the ratings in the same transaction (app.storage.rating_writes); the
        in-memory store keeps no players and rates nothing.
        """
        ...

    async def save_room(self, *, room: RoomRecord) -> None:
        """Insert or replace the room; returns only once committed, like an action.

        A stored room is replaced only by a record of the same epoch: else StoreError("fenced").
        """
        ...

    async def claim_room(self, *, room_id: str, epoch: int) -> Fence:
        """Raise the open room's epoch from `epoch` (as read) by one; the new fence.

        StoreError("claim_lost") if the room is closed, unknown, or no longer at `epoch`.
        """
        ...

    async def load_room(self, *, room_id: str) -> StoredRoom | None:
        """One room as stored, closed or not."""
        ...

    async def open_rooms(self) -> list[StoredRoom]:
        """Every room not closed, oldest first (crash recovery)."""
        ...

    async def open_room_ids(self) -> list[str]:
        """The ids of every room not closed."""
        ...

    async def ping(self) -> None:
        """One round trip to the database; raises what reaching it raises."""
        ...

    async def room_epochs(self, room_ids: Sequence[str]) -> dict[str, int]:
        """The epoch of each of these rooms that is open (closed and unknown ones left out):
        an owner unsure of its leases checks that nobody claimed its rooms meanwhile."""
        ...

    async def close_room(self, *, room_id: str, epoch: int | None = None) -> None:
        """Mark the room closed, so it is not rebuilt; closing an unknown room does nothing.

        With `epoch`, only while the room is still at that epoch (else StoreError("fenced")).
        """
        ...

    async def unfinished_matches(self) -> list[StoredMatch]:
        """Every active match with its seats and its actions in log order."""
        ...

    async def active_match(self, *, room_id: str) -> StoredMatch | None:
        """The room's newest active match, with seats and ordered actions, or None."""
        ...

    async def load_match(self, *, match_id: str) -> StoredMatch | None:
        """One match with seats and ordered actions (replays), or None."""
        ...

    async def list_matches(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 20,
        offset: int = 0,
        reader: Reader = ANYONE,
    ) -> tuple[list[MatchSummary], int]:
        """Newest first, only matches the reader may read; the int is the total matching the
        filters, ignoring limit/offset."""
        ...

    async def match_detail(self, *, match_id: str) -> MatchDetail | None: ...

    async def player_stats(self, *, name: str) -> PlayerStats:
        """Counts over every finished match in which a seat had this display name."""
        ...

    async def append_chat(self, *, chat: ChatRecord, fence: Fence | None = None) -> None:
        """Keep one chat line; returns once committed, like an action."""
        ...

    async def recent_chat(self, *, room_id: str, limit: int) -> list[ChatRecord]:
        """The room's last `limit` chat lines, oldest first."""
        ...

    async def match_chat(self, *, match_id: str) -> list[ChatRecord]:
        """Every chat line said during the match, oldest first."""
        ...


def open_store(
    url: str, *, sqlite_synchronous: str = "full", idle_in_transaction_s: float | None = None
) -> MatchStore:
    """The store for a URL: "memory://" or a SQLAlchemy async database URL.

    `sqlite_synchronous` (MELDHALL_SQLITE_SYNCHRONOUS) is how the SQLite log writer syncs its
    commits, "full" or "normal": see app.storage.database. `idle_in_transaction_s` bounds how
    long a PostgreSQL transaction may sit idle (a cluster node's, frozen mid-transaction).
    """
    if url.startswith("memory://"):
        from app.storage.memory_store import MemoryMatchStore

        return MemoryMatchStore()
    from app.storage.sql_store import SqlMatchStore

    return SqlMatchStore(
        url, sqlite_synchronous=sqlite_synchronous, idle_in_transaction_s=idle_in_transaction_s
    )
