"""The match store in SQL (SQLite or PostgreSQL), every write through a group-commit writer.

All writes, not only actions, go through the writers, and all writes for one match through the
same writer (chosen by a hash of the match id): their order is the order they were made in (a
match exists before its first action is logged). SQLite gets a single writer, so it never sees
two compete for its one write lock; PostgreSQL gets several, whose commits overlap (the server
merges their WAL flushes), so throughput grows with the number of busy rooms. Reads use their
own pooled connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from itertools import groupby
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.storage import sql_reads, sql_rooms
from app.storage.database import create_engine, is_sqlite
from app.storage.group_commit import GroupCommitWriter
from app.storage.models import ACTIONS, HANDS, MATCHES, SEATS
from app.storage.player_stats import compute_player_stats
from app.storage.records import (
    ACTIVE,
    END_STATUSES,
    STATUSES,
    MatchDetail,
    MatchSummary,
    PlayerStats,
    RoomRecord,
    SeatRecord,
    StoredMatch,
    StoredRoom,
    StoreError,
    check_seed,
)

# Two overlapping commits hide one commit's round trips and fsync behind the other. Measured
# with bench/bench_storage.py (100 rooms, PostgreSQL on the same 2-core host): 1 writer 4.9k
# actions/s p99 89 ms, 2 writers 5.9k p99 39 ms, 4 writers 4.6k p99 54 ms.
POSTGRES_WRITERS = 2

Statement = Callable[[AsyncConnection], Awaitable[None]]
Conflict = Callable[[AsyncConnection], Awaitable[StoreError]]


@dataclass(frozen=True)
class Write:
    """One write for the group-commit writer: an action row, or statements to run."""

    action_row: dict[str, Any] | None = None
    run: Statement | None = None
    on_conflict: Conflict | None = None


def seat_values(match_id: str, seat: SeatRecord) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "seat": seat.seat,
        "name": seat.name,
        "kind": seat.kind,
        "level": seat.level,
        "token_hash": seat.token_hash,
        "final_score": seat.final_score,
    }


async def match_exists(connection: AsyncConnection, match_id: str) -> bool:
    found = await connection.execute(select(MATCHES.c.id).where(MATCHES.c.id == match_id))
    return found.first() is not None


def unknown_match(match_id: str) -> StoreError:
    return StoreError("unknown_match", f"no match with id {match_id!r}")


class SqlMatchStore:
    def __init__(self, url: str) -> None:
        self.url = url
        self._engine: AsyncEngine | None = None
        writers = 1 if is_sqlite(url) else POSTGRES_WRITERS
        self._writers = [
            GroupCommitWriter[Write](
                partial(self._commit_batch, shard), partial(self._commit_one, shard)
            )
            for shard in range(writers)
        ]
        # Each writer keeps its own connection: no pool checkout, liveness ping or reset
        # between commits, which is most of a small commit's cost.
        self._connections: list[AsyncConnection | None] = [None] * writers

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            raise StoreError("store_closed", "the match store is not running")
        return self._engine

    @property
    def commits(self) -> int:
        """Transactions committed by the writers so far (for the benchmark)."""
        return sum(writer.batches for writer in self._writers)

    @property
    def committed_writes(self) -> int:
        return sum(writer.items for writer in self._writers)

    async def _submit(self, key: str, write: Write) -> None:
        """Writes with the same key (a match id or a room id) commit in the order made."""
        shard = zlib.crc32(key.encode()) % len(self._writers)
        await self._writers[shard].submit(write)

    async def start(self) -> None:
        if self._engine is None:
            self._engine = create_engine(self.url)
        for writer in self._writers:
            writer.start()

    async def close(self) -> None:
        await asyncio.gather(*(writer.close() for writer in self._writers))
        for shard in range(len(self._connections)):
            await self._drop_connection(shard)
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    async def _run(self, connection: AsyncConnection, writes: Sequence[Write]) -> None:
        for is_action, group in groupby(writes, key=lambda w: w.action_row is not None):
            if is_action:
                # Consecutive actions, from any number of rooms, go in one multi-row insert.
                rows = [w.action_row for w in group if w.action_row is not None]
                await connection.execute(insert(ACTIONS), rows)
                continue
            for write in group:
                if write.run is not None:
                    await write.run(connection)

    async def _drop_connection(self, shard: int) -> None:
        connection, self._connections[shard] = self._connections[shard], None
        if connection is not None:
            # It may be broken already (the reason it is dropped); closing is best effort.
            with contextlib.suppress(SQLAlchemyError, OSError):
                await connection.close()

    async def _commit_batch(self, shard: int, writes: Sequence[Write]) -> None:
        connection = self._connections[shard]
        if connection is None or connection.closed or connection.invalidated:
            connection = await self.engine.connect()
            self._connections[shard] = connection
        try:
            async with connection.begin():
                await self._run(connection, writes)
        except BaseException:
            # After a failed commit the connection's state is unknown: start the next afresh.
            await self._drop_connection(shard)
            raise

    async def _commit_one(self, shard: int, write: Write) -> None:
        try:
            await self._commit_batch(shard, [write])
        except IntegrityError:
            if write.on_conflict is None:
                raise
            async with self.engine.connect() as connection:
                raise await write.on_conflict(connection) from None

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
    ) -> None:
        check_seed(seed)
        values = {
            "id": match_id,
            "room_id": room_id,
            "game": game,
            "config": config,
            "seed": seed,
            "players": players,
            "status": ACTIVE,
            "created_at": datetime.now(UTC),
            "finished_at": None,
            "result": None,
            "room_meta": room_meta,
        }

        async def run(connection: AsyncConnection) -> None:
            await connection.execute(insert(MATCHES).values(values))
            if seats:
                await connection.execute(insert(SEATS), [seat_values(match_id, s) for s in seats])

        async def conflict(connection: AsyncConnection) -> StoreError:
            return StoreError("duplicate_match", f"a match with id {match_id!r} already exists")

        await self._submit(match_id, Write(run=run, on_conflict=conflict))

    async def _must_exist(self, connection: AsyncConnection, match_id: str) -> None:
        if not await match_exists(connection, match_id):
            raise unknown_match(match_id)

    async def update_seat(self, *, match_id: str, seat: SeatRecord) -> None:
        async def run(connection: AsyncConnection) -> None:
            await self._must_exist(connection, match_id)
            await connection.execute(
                delete(SEATS).where(SEATS.c.match_id == match_id, SEATS.c.seat == seat.seat)
            )
            await connection.execute(insert(SEATS).values(seat_values(match_id, seat)))

        await self._submit(match_id, Write(run=run))

    async def update_room_meta(self, *, match_id: str, room_meta: dict[str, Any]) -> None:
        async def run(connection: AsyncConnection) -> None:
            done = await connection.execute(
                update(MATCHES).where(MATCHES.c.id == match_id).values(room_meta=room_meta)
            )
            if done.rowcount == 0:
                raise unknown_match(match_id)

        await self._submit(match_id, Write(run=run))

    async def append_action(
        self, *, match_id: str, index: int, seat: int | None, action: dict[str, Any]
    ) -> None:
        row = {
            "match_id": match_id,
            "idx": index,
            "seat": seat,
            "action": action,
            "at": datetime.now(UTC),
        }

        async def conflict(connection: AsyncConnection) -> StoreError:
            if not await match_exists(connection, match_id):
                return unknown_match(match_id)
            return StoreError(
                "duplicate_action", f"match {match_id!r} already has an action at index {index}"
            )

        await self._submit(match_id, Write(action_row=row, on_conflict=conflict))

    async def record_hand(self, *, match_id: str, hand_index: int, result: dict[str, Any]) -> None:
        async def run(connection: AsyncConnection) -> None:
            await self._must_exist(connection, match_id)
            await connection.execute(
                delete(HANDS).where(HANDS.c.match_id == match_id, HANDS.c.hand_index == hand_index)
            )
            values = {
                "match_id": match_id,
                "hand_index": hand_index,
                "result": result,
                "at": datetime.now(UTC),
            }
            await connection.execute(insert(HANDS).values(values))

        await self._submit(match_id, Write(run=run))

    async def finish_match(
        self,
        *,
        match_id: str,
        status: str,
        result: dict[str, Any] | None,
        final_scores: list[int] | None,
    ) -> None:
        if status not in END_STATUSES:
            raise StoreError("bad_status", f"a match ends as one of {END_STATUSES}, not {status!r}")
        finished_at = datetime.now(UTC)

        async def run(connection: AsyncConnection) -> None:
            done = await connection.execute(
                update(MATCHES)
                .where(MATCHES.c.id == match_id)
                .values(status=status, finished_at=finished_at, result=result)
            )
            if done.rowcount == 0:
                raise unknown_match(match_id)
            for seat, score in enumerate(final_scores or []):
                await connection.execute(
                    update(SEATS)
                    .where(SEATS.c.match_id == match_id, SEATS.c.seat == seat)
                    .values(final_score=score)
                )

        await self._submit(match_id, Write(run=run))

    async def save_room(self, *, room: RoomRecord) -> None:
        async def run(connection: AsyncConnection) -> None:
            await sql_rooms.write_room(connection, room, datetime.now(UTC))

        await self._submit(room.room_id, Write(run=run))

    async def open_rooms(self) -> list[StoredRoom]:
        async with self.engine.connect() as connection:
            return await sql_rooms.open_rooms(connection)

    async def close_room(self, *, room_id: str) -> None:
        async def run(connection: AsyncConnection) -> None:
            await sql_rooms.mark_closed(connection, room_id, datetime.now(UTC))

        await self._submit(room_id, Write(run=run))

    async def unfinished_matches(self) -> list[StoredMatch]:
        async with self.engine.connect() as connection:
            chosen = select(MATCHES.c.id).where(MATCHES.c.status == ACTIVE)
            return await sql_reads.load_matches(connection, chosen)

    async def load_match(self, *, match_id: str) -> StoredMatch | None:
        async with self.engine.connect() as connection:
            chosen = select(MATCHES.c.id).where(MATCHES.c.id == match_id)
            loaded = await sql_reads.load_matches(connection, chosen)
        return loaded[0] if loaded else None

    async def list_matches(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[list[MatchSummary], int]:
        if status is not None and status not in STATUSES:
            raise StoreError("bad_status", f"status is one of {STATUSES}, not {status!r}")
        async with self.engine.connect() as connection:
            return await sql_reads.list_matches(
                connection, game=game, player=player, status=status, limit=limit, offset=offset
            )

    async def match_detail(self, *, match_id: str) -> MatchDetail | None:
        async with self.engine.connect() as connection:
            return await sql_reads.match_detail(connection, match_id=match_id)

    async def player_stats(self, *, name: str) -> PlayerStats:
        async with self.engine.connect() as connection:
            entries = await sql_reads.player_matches(connection, name=name)
        return compute_player_stats(name, entries)
