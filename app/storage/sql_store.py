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
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import literal, select
from sqlalchemy.ext.asyncio import AsyncEngine

from app.storage import sql_chat, sql_reads, sql_rooms
from app.storage.commit_thread import CommitThread
from app.storage.database import (
    SQLITE_SYNCHRONOUS,
    STATEMENT_TIMEOUT_S,
    create_engine,
    is_sqlite,
)
from app.storage.group_commit import GroupCommitWriter
from app.storage.models import MATCHES
from app.storage.player_stats import compute_player_stats
from app.storage.postgres_log import CONNECTION_FAILURES, PostgresLog
from app.storage.rating_writes import RatingUpdate
from app.storage.records import (
    ACTIVE,
    ANYONE,
    END_STATUSES,
    FINISHED,
    ROOM_CLOSED,
    STATUSES,
    ChatRecord,
    Fence,
    MatchDetail,
    MatchSummary,
    PlayerStats,
    Reader,
    RoomRecord,
    SeatRecord,
    StoredMatch,
    StoredRoom,
    StoreError,
    check_seed,
    fenced,
)
from app.storage.sql_writes import ActionWrite, StatementWrite, Step, Write, unknown_match
from app.storage.sqlite_log import SqliteLog

# Two overlapping commits hide one commit's round trips and fsync behind the other; more
# writers contend (docs/performance.md, "Decisions in the code").
POSTGRES_WRITERS = 2


def seat_values(match_id: str, seat: SeatRecord) -> dict[str, Any]:
    """A seat's row as the seat statements take it (app.storage.prepared's _seat_values)."""
    return {
        "v_match_id": match_id,
        "v_seat": seat.seat,
        "v_name": seat.name,
        "v_kind": seat.kind,
        "v_level": seat.level,
        "v_token_hash": seat.token_hash,
        "v_final_score": seat.final_score,
        "v_player_id": seat.player_id,
        "v_place": seat.place,
        "v_ended_at": None,
    }


Writer = CommitThread[Write] | GroupCommitWriter[Write]


class SqlMatchStore:
    def __init__(
        self,
        url: str,
        *,
        sqlite_synchronous: str = "full",
        idle_in_transaction_s: float | None = None,
    ) -> None:
        """`sqlite_synchronous` ("full" or "normal") is the SQLite log writer's sync level;
        `idle_in_transaction_s`, on PostgreSQL, how long a transaction of this store's may sit
        idle before the server ends it (app.storage.database.create_engine)."""
        if sqlite_synchronous not in SQLITE_SYNCHRONOUS:
            raise StoreError(
                "bad_setting",
                f"SQLite synchronous is one of {SQLITE_SYNCHRONOUS}, not {sqlite_synchronous!r}",
            )
        self.url = url
        self.sqlite_synchronous = sqlite_synchronous
        self.idle_in_transaction_s = idle_in_transaction_s
        self._engine: AsyncEngine | None = None
        self._postgres_logs: list[PostgresLog] = []
        self._writers: list[Writer] = []
        self._sqlite = is_sqlite(url)

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

    def _fenced(self, fence: Fence | None, write: StatementWrite) -> StatementWrite:
        """The write, checked first against the room's epoch (PostgreSQL; see ActionWrite)."""
        if fence is None or self._sqlite:
            return write
        values = {"p_id": fence.room_id, "p_epoch": fence.epoch}
        check = Step("fence_room", (values,), missing=fenced(fence.room_id))
        return StatementWrite((check, *write.steps), write.conflict, write.rating, write.then)

    async def start(self) -> None:
        if self._engine is not None:
            return
        self._engine = create_engine(
            self.url,
            statement_timeout_s=STATEMENT_TIMEOUT_S,
            idle_in_transaction_s=self.idle_in_transaction_s,
        )
        if is_sqlite(self.url):
            log = SqliteLog(self.url, self.sqlite_synchronous)
            self._writers = [CommitThread[Write](log.commit_batch, log.commit_one, log.close)]
        else:
            self._postgres_logs = [PostgresLog(self._engine) for _ in range(POSTGRES_WRITERS)]
            self._writers = [
                GroupCommitWriter[Write](
                    log.commit_batch, log.commit_one, shared_failures=CONNECTION_FAILURES
                )
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
        fence: Fence | None = None,
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
            "public": room_meta.get("public") is not False,
            "rated": room_meta.get("rated") is True,
            "rating_seq": None,
        }

        steps = [Step("insert_match", (values,))]
        if seats:
            steps.append(Step("insert_seat", tuple(seat_values(match_id, s) for s in seats)))
        # A broken constraint here is the match's id taken (or its seats' own clash).
        taken = StoreError("duplicate_match", f"a match with id {match_id!r} already exists")
        await self._submit(match_id, self._fenced(fence, StatementWrite(tuple(steps), taken)))

    async def update_seat(
        self, *, match_id: str, seat: SeatRecord, fence: Fence | None = None
    ) -> None:
        # An upsert; only a match that is not there breaks its foreign key.
        step = Step("upsert_seat", (seat_values(match_id, seat),))
        write = StatementWrite((step,), unknown_match(match_id))
        await self._submit(match_id, self._fenced(fence, write))

    async def update_room_meta(
        self, *, match_id: str, room_meta: dict[str, Any], fence: Fence | None = None
    ) -> None:
        values = {"p_match_id": match_id, "v_room_meta": room_meta}
        step = Step("set_room_meta", (values,), missing=unknown_match(match_id))
        await self._submit(match_id, self._fenced(fence, StatementWrite((step,))))

    async def append_action(
        self,
        *,
        match_id: str,
        index: int,
        seat: int | None,
        action: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        # The hot path: one small object and a future on the event loop, nothing more.
        if fence is None:
            write = ActionWrite(match_id, index, seat, action)
        else:
            write = ActionWrite(match_id, index, seat, action, fence.room_id, fence.epoch)
        await self._writer(match_id).submit(write)

    async def record_hand(
        self,
        *,
        match_id: str,
        hand_index: int,
        result: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        at = datetime.now(UTC)
        values = {"match_id": match_id, "hand_index": hand_index, "result": result, "at": at}
        step = Step("upsert_hand", (values,))
        write = StatementWrite((step,), unknown_match(match_id))
        await self._submit(match_id, self._fenced(fence, write))

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
        if status not in END_STATUSES:
            raise StoreError("bad_status", f"a match ends as one of {END_STATUSES}, not {status!r}")
        at = datetime.now(UTC)
        values = {
            "p_match_id": match_id,
            "v_status": status,
            "v_finished_at": at,
            "v_result": result,
        }
        # A rating update runs first (app.storage.rating_writes says why), then the match's
        # own statements, then its pairs of players, counted from its places and rating events,
        # and the circles its new pairs grow (app.storage.circle_sizes).
        steps = [Step("finish_match", (values,), missing=unknown_match(match_id))]
        if final_scores:
            scores = tuple(
                {
                    "p_match_id": match_id,
                    "p_seat": seat,
                    "v_final_score": score,
                    "v_place": None if places is None else places[seat],
                }
                for seat, score in enumerate(final_scores)
            )
            steps.append(Step("set_final_score", scores))
        match = {"p_match_id": match_id}
        steps.append(Step("end_seats", ({**match, "v_ended_at": at},)))
        if status == FINISHED:
            steps.append(Step("hold_players", (match,)))
            if rating is not None:
                # Before its pairs are counted: it compares them with the stored ones.
                steps.append(Step("count_new_pairs", (match,)))
            steps.append(Step("count_pairs", (match,)))
        if rating is None:
            write = StatementWrite(tuple(steps))
        else:
            # Its events' foreign key is the one a missing match breaks before finish_match.
            write = StatementWrite((), unknown_match(match_id), rating, tuple(steps))
        await self._submit(match_id, self._fenced(fence, write))

    async def save_room(self, *, room: RoomRecord) -> None:
        at = datetime.now(UTC)
        values = {**sql_rooms.room_values(room), "id": room.room_id, "created_at": at}
        values["updated_at"] = at
        # The upsert changes a stored row only under the same epoch: else no row, so fenced.
        step = Step("upsert_room", (values,), missing=fenced(room.room_id))
        await self._submit(room.room_id, StatementWrite((step,)))

    async def claim_room(self, *, room_id: str, epoch: int) -> Fence:
        values = {"p_id": room_id, "p_epoch": epoch, "v_epoch": epoch + 1, "p_closed": ROOM_CLOSED}
        lost = StoreError("claim_lost", f"room {room_id!r} is closed or was claimed past {epoch}")
        await self._submit(room_id, StatementWrite((Step("claim_room", (values,), missing=lost),)))
        return Fence(room_id, epoch + 1)

    async def load_room(self, *, room_id: str) -> StoredRoom | None:
        async with self.engine.connect() as connection:
            return await sql_rooms.load_room(connection, room_id)

    async def open_rooms(self) -> list[StoredRoom]:
        async with self.engine.connect() as connection:
            return await sql_rooms.open_rooms(connection)

    async def open_room_ids(self) -> list[str]:
        async with self.engine.connect() as connection:
            return await sql_rooms.open_room_ids(connection)

    async def ping(self) -> None:
        async with self.engine.connect() as connection:
            await connection.execute(select(literal(1)))

    async def room_epochs(self, room_ids: Sequence[str]) -> dict[str, int]:
        if not room_ids:
            return {}
        async with self.engine.connect() as connection:
            return await sql_rooms.room_epochs(connection, room_ids)

    async def close_room(self, *, room_id: str, epoch: int | None = None) -> None:
        values: dict[str, Any] = {
            "p_id": room_id,
            "v_status": ROOM_CLOSED,
            "v_updated_at": datetime.now(UTC),
        }
        if epoch is None:
            step = Step("close_room", (values,))
        else:
            values["p_epoch"] = epoch
            step = Step("close_fenced_room", (values,), missing=fenced(room_id))
        await self._submit(room_id, StatementWrite((step,)))

    async def unfinished_matches(self) -> list[StoredMatch]:
        async with self.engine.connect() as connection:
            chosen = select(MATCHES.c.id).where(MATCHES.c.status == ACTIVE)
            return await sql_reads.load_matches(connection, chosen)

    async def active_match(self, *, room_id: str) -> StoredMatch | None:
        async with self.engine.connect() as connection:
            chosen = (
                select(MATCHES.c.id)
                .where(MATCHES.c.room_id == room_id, MATCHES.c.status == ACTIVE)
                .order_by(MATCHES.c.created_at.desc())
                .limit(1)
            )
            # LIMIT inside IN () is not allowed everywhere: read the id first.
            match_id = (await connection.execute(chosen)).scalar()
            if match_id is None:
                return None
            loaded = await sql_reads.load_matches(
                connection, select(MATCHES.c.id).where(MATCHES.c.id == match_id)
            )
        return loaded[0] if loaded else None

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
        reader: Reader = ANYONE,
    ) -> tuple[list[MatchSummary], int]:
        if status is not None and status not in STATUSES:
            raise StoreError("bad_status", f"status is one of {STATUSES}, not {status!r}")
        async with self.engine.connect() as connection:
            return await sql_reads.list_matches(
                connection,
                game=game,
                player=player,
                status=status,
                limit=limit,
                offset=offset,
                reader=reader,
            )

    async def match_detail(self, *, match_id: str) -> MatchDetail | None:
        async with self.engine.connect() as connection:
            return await sql_reads.match_detail(connection, match_id=match_id)

    async def player_stats(self, *, name: str) -> PlayerStats:
        async with self.engine.connect() as connection:
            entries = await sql_reads.player_matches(connection, name=name)
        return compute_player_stats(name, entries)

    async def append_chat(self, *, chat: ChatRecord, fence: Fence | None = None) -> None:
        step = Step("insert_chat", (sql_chat.chat_values(chat),))
        taken = StoreError("duplicate_chat", f"room {chat.room_id!r} has a chat line {chat.id}")
        await self._submit(chat.room_id, self._fenced(fence, StatementWrite((step,), taken)))

    async def recent_chat(self, *, room_id: str, limit: int) -> list[ChatRecord]:
        async with self.engine.connect() as connection:
            return await sql_chat.recent_chat(connection, room_id, limit)

    async def match_chat(self, *, match_id: str) -> list[ChatRecord]:
        async with self.engine.connect() as connection:
            return await sql_chat.match_chat(connection, match_id)
