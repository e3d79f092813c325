"""The SQL store's writes as plain synchronous statements, and how a batch of them commits.

A write is an `ActionWrite` (one row of the log) or a `StatementWrite` (a function that runs its
statements on a connection). A batch commits in one transaction, in the order it was made;
consecutive actions, from any number of matches, go in one executemany. The same functions
serve both databases: SQLite runs them in its writer thread on a synchronous connection,
PostgreSQL inside `AsyncConnection.run_sync`, so a batch enters SQLAlchemy's async layer once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, Dialect, insert, select
from sqlalchemy.exc import IntegrityError

from app.storage.models import ACTIONS, MATCHES
from app.storage.records import StoreError


@dataclass(slots=True)
class ActionWrite:
    """One action for the log; the event loop builds nothing else per action."""

    match_id: str
    index: int
    seat: int | None
    action: dict[str, Any]

    def conflict(self, connection: Connection) -> StoreError:
        if not match_exists(connection, self.match_id):
            return unknown_match(self.match_id)
        return StoreError(
            "duplicate_action",
            f"match {self.match_id!r} already has an action at index {self.index}",
        )


@dataclass(frozen=True, slots=True)
class StatementWrite:
    run: Callable[[Connection], None]
    conflict: Callable[[Connection], StoreError] | None = None


Write = ActionWrite | StatementWrite


def match_exists(connection: Connection, match_id: str) -> bool:
    found = connection.execute(select(MATCHES.c.id).where(MATCHES.c.id == match_id))
    return found.first() is not None


def unknown_match(match_id: str) -> StoreError:
    return StoreError("unknown_match", f"no match with id {match_id!r}")


def must_exist(connection: Connection, match_id: str) -> None:
    if not match_exists(connection, match_id):
        raise unknown_match(match_id)


class ActionInsert:
    """The log's INSERT compiled once for a dialect, run as an executemany of plain tuples.

    SQLAlchemy's per-row parameter handling costs more CPU than SQLite's insert itself (the
    SQLite writer's CPU an action, in 50-action commits: 11.5 us through Core, 8 through this),
    so the rows are made here, with the columns' own bind processors: exactly what Core would
    send, through the same connection and transaction.
    """

    COLUMNS = ("match_id", "idx", "seat", "action", "at")

    def __init__(self, dialect: Dialect) -> None:
        compiled = insert(ACTIONS).compile(dialect=dialect)
        processors = {
            column.key: column.type.dialect_impl(dialect).bind_processor(dialect)
            for column in ACTIONS.columns
        }
        if tuple(compiled.positiontup or ()) != self.COLUMNS or any(
            processors[key] is not None for key in ("match_id", "idx", "seat")
        ):
            raise TypeError(f"the actions INSERT is not as expected on {dialect.name}")
        self.sql = str(compiled)
        self._action: Callable[[Any], Any] = processors["action"] or _as_is
        self._at: Callable[[Any], Any] = processors["at"] or _as_is

    def rows(self, writes: Sequence[ActionWrite], at: datetime) -> list[tuple[Any, ...]]:
        at_value, action = self._at(at), self._action
        return [(w.match_id, w.index, w.seat, action(w.action), at_value) for w in writes]

    def run(self, connection: Connection, writes: Sequence[ActionWrite], at: datetime) -> None:
        connection.exec_driver_sql(self.sql, self.rows(writes, at))


def _as_is(value: Any) -> Any:
    return value


# One entry per engine's dialect; a bound keeps engines made and dropped (tests) from piling up.
@lru_cache(maxsize=8)
def action_insert(dialect: Dialect) -> ActionInsert:
    return ActionInsert(dialect)


def _is_action(write: Write) -> bool:
    return isinstance(write, ActionWrite)


def run_writes(connection: Connection, writes: Sequence[Write]) -> None:
    # One time for the batch: the actions in it are logged by the same commit.
    at = datetime.now(UTC)
    for is_action, group in groupby(writes, key=_is_action):
        if is_action:
            actions = [w for w in group if isinstance(w, ActionWrite)]
            action_insert(connection.dialect).run(connection, actions, at)
            continue
        for write in group:
            if isinstance(write, StatementWrite):
                write.run(connection)


Commit = Callable[[Connection, Sequence[Write]], None]


def commit_writes(connection: Connection, writes: Sequence[Write]) -> None:
    """Every write of the batch in one transaction, or none of them."""
    with connection.begin():
        run_writes(connection, writes)


def commit_in_autocommit(connection: Connection, writes: Sequence[Write]) -> None:
    """A batch on a connection kept in AUTOCOMMIT, as PostgreSQL's log writers keep theirs.

    Actions alone need no transaction: asyncpg's executemany is atomic by itself (one implicit
    transaction, committed at its closing Sync), so such a batch takes one round trip instead of
    three (BEGIN, the rows, COMMIT). Any other batch gets a transaction of its own.
    """
    if all(isinstance(write, ActionWrite) for write in writes):
        # In AUTOCOMMIT SQLAlchemy's begin and commit send nothing; they close its bookkeeping.
        commit_writes(connection, writes)
        return
    connection.execution_options(isolation_level=connection.default_isolation_level)
    try:
        commit_writes(connection, writes)
    finally:
        connection.execution_options(isolation_level="AUTOCOMMIT")


def commit_write(connection: Connection, write: Write, commit: Commit = commit_writes) -> None:
    """One write alone; a broken constraint becomes the caller's StoreError."""
    try:
        commit(connection, [write])
    except IntegrityError:
        if write.conflict is None:
            raise
        raise write.conflict(connection) from None
