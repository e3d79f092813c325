"""The match store in SQL (SQLite or PostgreSQL), every write through a group-commit writer.

All writes, not only actions, go through the writers, and all writes for one match through the
same writer: their order is the order they were made in (a match exists before its first action
is logged). SQLite gets a single writer, a thread with its own synchronous connection
(app.storage.commit_thread), so the event loop only hands it writes and never sees two writers
compete for SQLite's one write lock. PostgreSQL gets several writer tasks (chosen by a hash of
the match id), whose commits overlap (the server merges their WAL flushes), so throughput grows
with the number of busy rooms. Reads use their own pooled async connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.storage import sql_reads, sql_rooms
from app.storage.commit_thread import CommitThread
from app.storage.database import (
    SQLITE_SYNCHRONOUS,
    create_engine,
    create_sqlite_writer_engine,
    is_sqlite,
)
from app.storage.group_commit import GroupCommitWriter
from app.storage.models import HANDS, MATCHES, SEATS
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
from app.storage.sql_writes import (
    ActionWrite,
    StatementWrite,
    Write,
    action_insert,
    commit_in_autocommit,
    commit_write,
    commit_writes,
    must_exist,
    unknown_match,
)

# Two overlapping commits hide one commit's round trips and fsync behind the other. Measured
# with bench/bench_storage.py (100 rooms, PostgreSQL on the same 2-core host): 1 writer 4.9k
# actions/s p99 89 ms, 2 writers 5.9k p99 39 ms, 4 writers 4.6k p99 54 ms.
POSTGRES_WRITERS = 2


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


class SqliteLog:
    """The SQLite writer thread's side: its one synchronous connection, used only there."""

    def __init__(self, url: str, synchronous: str) -> None:
        self._engine = create_sqlite_writer_engine(url, synchronous)
        self._connection: Connection | None = None

    def _connect(self) -> Connection:
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            connection = self._connection = self._engine.connect()
        return connection

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            # It may be broken already (the reason it is dropped); closing is best effort.
            with contextlib.suppress(SQLAlchemyError, OSError):
                connection.close()

    def commit_batch(self, writes: Sequence[Write]) -> None:
        try:
            commit_writes(self._connect(), writes)
        except BaseException:
            # After a failed commit the connection's state is unknown: start the next afresh.
            self._drop()
            raise

    def commit_one(self, write: Write) -> None:
        try:
            commit_write(self._connect(), write)
        except BaseException:
            self._drop()
            raise

    def close(self) -> None:
        self._drop()
        self._engine.dispose()


class PostgresLog:
    """One PostgreSQL writer's connection, kept open (no pool checkout, ping or reset per commit)
    and in AUTOCOMMIT, so that a batch of actions alone is one round trip."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._connection: AsyncConnection | None = None

    async def _connect(self) -> AsyncConnection:
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            connection = await self._engine.connect()
            self._connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
        return connection

    async def drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(SQLAlchemyError, OSError):
                await connection.close()

    async def commit_batch(self, writes: Sequence[Write]) -> None:
        connection = await self._connect()
        try:
            actions = [write for write in writes if isinstance(write, ActionWrite)]
            if len(actions) == len(writes):
                await self._insert_actions(connection, actions)
                return
            # The whole batch runs in one pass through SQLAlchemy's async layer.
            await connection.run_sync(commit_in_autocommit, writes)
        except BaseException:
            await self.drop()
            raise

    @staticmethod
    async def _insert_actions(connection: AsyncConnection, actions: list[ActionWrite]) -> None:
        """Actions alone, the hot path, straight through asyncpg: its executemany is atomic by
        itself (one implicit transaction, committed at its closing Sync), so the batch is one
        round trip. The SQL and the parameters are SQLAlchemy's (ActionInsert); skipping its
        execution layer (a greenlet, an execution context, the adapter's cursor) saves about
        40 us of event-loop CPU a commit (bench_storage, 10 rooms: 47 -> 40 us an action)."""
        driver = (await connection.get_raw_connection()).driver_connection
        if driver is None:
            raise StoreError("store_closed", "the log connection is closed")
        insert = action_insert(connection.dialect)
        await driver.executemany(insert.sql, insert.rows(actions, datetime.now(UTC)))

    async def commit_one(self, write: Write) -> None:
        connection = await self._connect()
        try:
            await connection.run_sync(commit_write, write, commit_in_autocommit)
        except BaseException:
            await self.drop()
            raise


Writer = CommitThread[Write] | GroupCommitWriter[Write]


class SqlMatchStore:
    def __init__(self, url: str, *, sqlite_synchronous: str = "full") -> None:
        """`sqlite_synchronous` ("full" or "normal") is the SQLite log writer's sync level."""
        if sqlite_synchronous not in SQLITE_SYNCHRONOUS:
            raise StoreError(
                "bad_setting",
                f"SQLite synchronous is one of {SQLITE_SYNCHRONOUS}, not {sqlite_synchronous!r}",
            )
        self.url = url
        self.sqlite_synchronous = sqlite_synchronous
        self._engine: AsyncEngine | None = None
        self._postgres_logs: list[PostgresLog] = []
        self._writers: list[Writer] = []

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

    def _writer(self, key: str) -> Writer:
        """Writes with the same key (a match id or a room id) commit in the order made."""
        writers = self._writers
        if not writers:
            raise StoreError("store_closed", "the match store is not running")
        if len(writers) == 1:
            return writers[0]
        return writers[zlib.crc32(key.encode()) % len(writers)]

    async def _submit(self, key: str, write: Write) -> None:
        await self._writer(key).submit(write)

    async def start(self) -> None:
        if self._engine is not None:
            return
        self._engine = create_engine(self.url)
        if is_sqlite(self.url):
            log = SqliteLog(self.url, self.sqlite_synchronous)
            self._writers = [CommitThread[Write](log.commit_batch, log.commit_one, log.close)]
        else:
            self._postgres_logs = [PostgresLog(self._engine) for _ in range(POSTGRES_WRITERS)]
            self._writers = [
                GroupCommitWriter[Write](log.commit_batch, log.commit_one)
                for log in self._postgres_logs
            ]
        for writer in self._writers:
            writer.start()

    async def close(self) -> None:
        await asyncio.gather(*(writer.close() for writer in self._writers))
        for log in self._postgres_logs:
            await log.drop()
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

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

        def run(connection: Connection) -> None:
            connection.execute(insert(MATCHES).values(values))
            if seats:
                connection.execute(insert(SEATS), [seat_values(match_id, s) for s in seats])

        def conflict(connection: Connection) -> StoreError:
            return StoreError("duplicate_match", f"a match with id {match_id!r} already exists")

        await self._submit(match_id, StatementWrite(run, conflict))

    async def update_seat(self, *, match_id: str, seat: SeatRecord) -> None:
        def run(connection: Connection) -> None:
            must_exist(connection, match_id)
            connection.execute(
                delete(SEATS).where(SEATS.c.match_id == match_id, SEATS.c.seat == seat.seat)
            )
            connection.execute(insert(SEATS).values(seat_values(match_id, seat)))

        await self._submit(match_id, StatementWrite(run))

    async def update_room_meta(self, *, match_id: str, room_meta: dict[str, Any]) -> None:
        def run(connection: Connection) -> None:
            done = connection.execute(
                update(MATCHES).where(MATCHES.c.id == match_id).values(room_meta=room_meta)
            )
            if done.rowcount == 0:
                raise unknown_match(match_id)

        await self._submit(match_id, StatementWrite(run))

    async def append_action(
        self, *, match_id: str, index: int, seat: int | None, action: dict[str, Any]
    ) -> None:
        # The hot path: one small object and a future on the event loop, nothing more.
        await self._writer(match_id).submit(ActionWrite(match_id, index, seat, action))

    async def record_hand(self, *, match_id: str, hand_index: int, result: dict[str, Any]) -> None:
        at = datetime.now(UTC)

        def run(connection: Connection) -> None:
            must_exist(connection, match_id)
            connection.execute(
                delete(HANDS).where(HANDS.c.match_id == match_id, HANDS.c.hand_index == hand_index)
            )
            values = {"match_id": match_id, "hand_index": hand_index, "result": result, "at": at}
            connection.execute(insert(HANDS).values(values))

        await self._submit(match_id, StatementWrite(run))

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

        def run(connection: Connection) -> None:
            done = connection.execute(
                update(MATCHES)
                .where(MATCHES.c.id == match_id)
                .values(status=status, finished_at=finished_at, result=result)
            )
            if done.rowcount == 0:
                raise unknown_match(match_id)
            for seat, score in enumerate(final_scores or []):
                connection.execute(
                    update(SEATS)
                    .where(SEATS.c.match_id == match_id, SEATS.c.seat == seat)
                    .values(final_score=score)
                )

        await self._submit(match_id, StatementWrite(run))

    async def save_room(self, *, room: RoomRecord) -> None:
        at = datetime.now(UTC)

        def run(connection: Connection) -> None:
            sql_rooms.write_room(connection, room, at)

        await self._submit(room.room_id, StatementWrite(run))

    async def open_rooms(self) -> list[StoredRoom]:
        async with self.engine.connect() as connection:
            return await sql_rooms.open_rooms(connection)

    async def close_room(self, *, room_id: str) -> None:
        at = datetime.now(UTC)

        def run(connection: Connection) -> None:
            sql_rooms.mark_closed(connection, room_id, at)

        await self._submit(room_id, StatementWrite(run))

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
