"""Every statement the log writers run, compiled once per dialect and run with plain tuples.

SQLAlchemy's Core builds, caches and processes each statement's parameters per execution:
measured on the writer's side, a room save cost about 1.3 ms of CPU and a hand result 1.8 ms,
against well under 0.1 ms for the database's own work, and on PostgreSQL that ran on the event
loop (2-3 ms of its CPU for each such write, the extra CPU per move of the server bench). Here
each statement is compiled once; a write is the statement's name and its values, turned into
the driver's positional tuple with the columns' own bind processors: exactly what Core would
send, run by the writers straight on sqlite3 or asyncpg.

Room saves, seat changes and hand results are upserts, one statement each (both databases
have INSERT ... ON CONFLICT DO UPDATE); a write for an unknown match breaks a foreign key.

A run of actions, from any number of matches, is one statement (up to LOG_ROWS actions on
SQLite), not an executemany, which ran a statement per row: on SQLite each row's step let go of
the GIL and waited to take it back from the busy event loop. JSON columns are encoded by orjson
(SQLAlchemy's processor calls the json module, ten times slower).

The server bench's rooms end a Gin Rummy hand about every 40 moves, with a hand result and two
room saves. User-space instructions per move of the server (callgrind, 10 rooms flat out):
in-memory log 715k; SQLite 846k before, 806k after; PostgreSQL 1169k before, 826k after.
A run of actions as one statement, again (memory 713k): SQLite 811k -> 788k (the commit
thread's share 85k -> 61k, the event loop's 726k either way), PostgreSQL 843k -> 793k. Server
CPU per move with 40 rooms flat out (event loop and commit thread, /proc, median of three
alternated runs on the shared 2-core host at load 1-3): memory 224 us; SQLite 279 -> 270 us;
PostgreSQL 281 -> 262 us. Most of what SQLite still adds is per commit, in the kernel (the
WAL's fdatasync, two pwrites per page, thread wake-ups), shared by the batch's actions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    JSON,
    Dialect,
    Table,
    and_,
    bindparam,
    case,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import ClauseElement, ColumnElement

from app.players.names import FORGOTTEN_NAME
from app.storage import circle_sizes, pair_counts
from app.storage.models import (
    ACTIONS,
    CHAT_MESSAGES,
    HANDS,
    MATCHES,
    PLAYERS,
    RATING_CLOCK,
    RATING_EVENTS,
    RATING_TOTALS,
    RATINGS,
    ROOMS,
    SEATS,
)
from app.storage.records import json_text

Processor = Callable[[Any], Any]

# A run of actions is one statement. On PostgreSQL its rows are one JSON array parameter,
# [[match_id, idx, seat, action], ...], which the server unpacks: one statement text, prepared
# once. On SQLite, whose step unpacking JSON cost 9k instructions a row more than binding its
# values, it is an INSERT with a row of VALUES per action; LOG_ROWS at most a statement keeps
# the texts few (cached by sqlite3 with their compiled statements) and the parameters under
# the 999 of older SQLite builds. `at` is the run's time (its batch's), one value for all.
#
# On PostgreSQL, where several servers may share the database, each row also carries its room
# and the epoch it was made under ([..., room_id, epoch]; null for an unfenced write), and only
# rows whose room still has that epoch are inserted: the room rows are locked FOR SHARE, so a
# claim (which raises the epoch) either waits for this insert to commit, and then reads its rows
# with the rest of the log, or commits first, and then this statement sees the new epoch.
# The statement returns the rows it inserted; the others were fenced.
POSTGRES_LOG_ACTIONS = (
    "WITH entry AS (SELECT e ->> 0 AS match_id, (e ->> 1)::integer AS idx,"
    " (e ->> 2)::integer AS seat, e -> 3 AS action, e ->> 4 AS room_id,"
    " (e ->> 5)::bigint AS epoch FROM jsonb_array_elements($2::text::jsonb) AS e),"
    " fence AS (SELECT rooms.id, rooms.epoch FROM rooms"
    " WHERE rooms.id IN (SELECT room_id FROM entry) FOR SHARE)"
    " INSERT INTO actions (match_id, idx, seat, action, at)"
    " SELECT entry.match_id, entry.idx, entry.seat, entry.action, $1::timestamptz"
    " FROM entry LEFT JOIN fence ON fence.id = entry.room_id"
    " WHERE entry.room_id IS NULL OR fence.epoch = entry.epoch"
    " RETURNING match_id, idx"
)
LOG_ROWS = 100


@lru_cache(maxsize=LOG_ROWS)
def sqlite_log_actions(rows: int) -> str:
    values = ", ".join(["(?, ?, ?, ?, ?)"] * rows)
    return f"INSERT INTO actions (match_id, idx, seat, action, at) VALUES {values}"


class Prepared:
    """One statement compiled for one dialect; `args` makes the driver's positional tuple."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        names = compiled.positiontup
        if names is None:
            raise TypeError(f"{dialect.name} does not take positional parameters")
        self.sql = str(compiled)
        self.names = tuple(names)
        self._binds = [(name, _processor(compiled.binds[name].type, dialect)) for name in names]

    def args(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(
            values[name] if process is None else process(values[name])
            for name, process in self._binds
        )


def _processor(column_type: Any, dialect: Dialect) -> Processor | None:
    impl = column_type.dialect_impl(dialect)
    return json_text if isinstance(impl, JSON) else impl.bind_processor(dialect)


def _as_is(value: Any) -> Any:
    return value


def _upsert(
    dialect: Dialect,
    table: Table,
    keys: tuple[str, ...],
    kept: tuple[str, ...] = (),
    same: str | None = None,
    values: dict[str, Any] | None = None,
) -> ClauseElement:
    """INSERT ... ON CONFLICT (keys) DO UPDATE every other column but `kept`; with `same`, the
    update is made only where the stored row's column `same` equals the new row's; `values`,
    the row's expressions when they are not its columns' own parameters."""
    statement = postgresql.insert(table) if dialect.name == "postgresql" else sqlite.insert(table)
    if values is not None:
        statement = statement.values(values)
    return _on_conflict(statement, table, keys, kept, same)


def _seat_values() -> dict[str, Any]:
    """A seat row's values (parameters "v_<column>") for a seat that may name a player who was
    forgotten meanwhile (a room still seats them): such a seat is written anonymous, under the
    neutral name forgetting gives. The player's row is locked (FOR KEY SHARE on PostgreSQL)
    until the write commits, so forgetting either waits for it and then clears it, or has
    committed first and is seen."""
    values: dict[str, Any] = {
        column.key: bindparam(f"v_{column.key}", type_=column.type) for column in SEATS.columns
    }
    named = values["player_id"]
    known = (
        select(PLAYERS.c.id)
        .where(PLAYERS.c.id == named)
        .with_for_update(read=True, key_share=True)
        .scalar_subquery()
    )
    forgotten: ColumnElement[str] = literal_column("'" + FORGOTTEN_NAME.replace("'", "''") + "'")
    values["player_id"] = known
    values["name"] = case(
        (and_(named.isnot(None), known.is_(None)), forgotten), else_=values["name"]
    )
    return values


def _on_conflict(
    statement: postgresql.Insert | sqlite.Insert,
    table: Table,
    keys: tuple[str, ...],
    kept: tuple[str, ...],
    same: str | None,
) -> ClauseElement:
    changed = {
        column.key: statement.excluded[column.key]
        for column in table.columns
        if column.key not in keys and column.key not in kept
    }
    where = None if same is None else table.c[same] == statement.excluded[same]
    return statement.on_conflict_do_update(index_elements=list(keys), set_=changed, where=where)


def _set(table: Table, *columns: str) -> dict[str, Any]:
    """SET values bound as "v_<column>" (a bind may not share its column's name here)."""
    return {name: bindparam(f"v_{name}", type_=table.c[name].type) for name in columns}


class Statements:
    """The log writers' statements for one dialect."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect_name = dialect.name
        match_id = bindparam("p_match_id", type_=MATCHES.c.id.type)
        self.action_at = _processor(ACTIONS.c.at.type, dialect) or _as_is
        self.insert_match = Prepared(insert(MATCHES), dialect)
        self.insert_seat = Prepared(insert(SEATS).values(_seat_values()), dialect)
        # A seat saved again keeps what its match's end wrote (the room's record has none of it).
        self.upsert_seat = Prepared(
            _upsert(
                dialect,
                SEATS,
                ("match_id", "seat"),
                ("final_score", "place", "ended_at"),
                values=_seat_values(),
            ),
            dialect,
        )
        self.insert_chat = Prepared(insert(CHAT_MESSAGES), dialect)
        self.upsert_hand = Prepared(_upsert(dialect, HANDS, ("match_id", "hand_index")), dialect)
        # A room's row is replaced only by the owner of its current epoch (none changes it).
        self.upsert_room = Prepared(
            _upsert(dialect, ROOMS, ("id",), ("created_at",), same="epoch"), dialect
        )
        room_id = bindparam("p_id", type_=ROOMS.c.id.type)
        epoch = bindparam("p_epoch", type_=ROOMS.c.epoch.type)
        self.close_room = Prepared(
            update(ROOMS).where(ROOMS.c.id == room_id).values(_set(ROOMS, "status", "updated_at")),
            dialect,
        )
        self.close_fenced_room = Prepared(
            update(ROOMS)
            .where(ROOMS.c.id == room_id, ROOMS.c.epoch == epoch)
            .values(_set(ROOMS, "status", "updated_at")),
            dialect,
        )
        # A claim is a compare-and-set: it wins only from the epoch its claimant read.
        self.claim_room = Prepared(
            update(ROOMS)
            .where(
                ROOMS.c.id == room_id,
                ROOMS.c.epoch == epoch,
                ROOMS.c.status != bindparam("p_closed", type_=ROOMS.c.status.type),
            )
            .values(_set(ROOMS, "epoch")),
            dialect,
        )
        # The first step of a fenced write's transaction on PostgreSQL (see POSTGRES_LOG_ACTIONS).
        self.fence_room = Prepared(
            select(ROOMS.c.id)
            .where(ROOMS.c.id == room_id, ROOMS.c.epoch == epoch)
            .with_for_update(read=True),
            dialect,
        )
        self.set_room_meta = Prepared(
            update(MATCHES).where(MATCHES.c.id == match_id).values(_set(MATCHES, "room_meta")),
            dialect,
        )
        self.finish_match = Prepared(
            update(MATCHES)
            .where(MATCHES.c.id == match_id)
            .values(_set(MATCHES, "status", "finished_at", "result")),
            dialect,
        )
        self.set_final_score = Prepared(
            update(SEATS)
            .where(SEATS.c.match_id == match_id, SEATS.c.seat == bindparam("p_seat"))
            .values(_set(SEATS, "final_score", "place")),
            dialect,
        )
        self.end_seats = Prepared(
            update(SEATS).where(SEATS.c.match_id == match_id).values(_set(SEATS, "ended_at")),
            dialect,
        )
        # A finished match's pairs of players (app.storage.pair_counts).
        self.hold_players = Prepared(pair_counts.hold_players(match_id), dialect)
        dialect_insert = postgresql.insert if dialect.name == "postgresql" else sqlite.insert
        self.count_pairs = Prepared(pair_counts.count_pairs(dialect_insert, match_id), dialect)
        # The circles' sizes a rated end changes (app.storage.circle_sizes).
        self.count_new_pairs = Prepared(
            circle_sizes.count_new_pairs(dialect_insert, match_id), dialect
        )
        self.count_newcomers = Prepared(circle_sizes.count_newcomers(dialect_insert), dialect)
        # A rated match end (app.storage.rating_writes).
        self.tick_rating_clock = Prepared(
            update(RATING_CLOCK)
            .where(RATING_CLOCK.c.id == literal_column("1"))
            .values(seq=RATING_CLOCK.c.seq + literal_column("1"))
            .returning(RATING_CLOCK.c.seq),
            dialect,
        )
        total = dialect_insert(RATING_TOTALS)
        self.add_rating_total = Prepared(
            total.on_conflict_do_update(
                index_elements=["mode"],
                set_={"players": RATING_TOTALS.c.players + total.excluded.players},
            ),
            dialect,
        )
        # Up to four players' ratings in a mode; the players that exist, each with their rating
        # or nulls (app.storage.rating_writes fills the parameters it does not need with null).
        self.select_player_ratings = Prepared(
            select(PLAYERS.c.id, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.matches)
            .select_from(
                PLAYERS.outerjoin(
                    RATINGS,
                    (RATINGS.c.player_id == PLAYERS.c.id)
                    & (RATINGS.c.mode == bindparam("p_mode", type_=RATINGS.c.mode.type)),
                )
            )
            .where(
                PLAYERS.c.id.in_(
                    [bindparam(f"p_player_{n}", type_=PLAYERS.c.id.type) for n in range(4)]
                )
            ),
            dialect,
        )
        self.upsert_rating = Prepared(_upsert(dialect, RATINGS, ("player_id", "mode")), dialect)
        self.insert_rating_event = Prepared(insert(RATING_EVENTS), dialect)
        self.set_rating_seq = Prepared(
            update(MATCHES).where(MATCHES.c.id == match_id).values(_set(MATCHES, "rating_seq")),
            dialect,
        )
        self.match_exists = Prepared(select(MATCHES.c.id).where(MATCHES.c.id == match_id), dialect)


# One entry per engine's dialect; a bound keeps engines made and dropped (tests) from piling up.
@lru_cache(maxsize=8)
def statements(dialect: Dialect) -> Statements:
    return Statements(dialect)
