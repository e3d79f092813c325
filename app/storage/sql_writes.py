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
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, insert, select
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

    def row(self, at: datetime) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "idx": self.index,
            "seat": self.seat,
            "action": self.action,
            "at": at,
        }

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


def _is_action(write: Write) -> bool:
    return isinstance(write, ActionWrite)


def run_writes(connection: Connection, writes: Sequence[Write]) -> None:
    # One time for the batch: the actions in it are logged by the same commit.
    at = datetime.now(UTC)
    for is_action, group in groupby(writes, key=_is_action):
        if is_action:
            rows = [w.row(at) for w in group if isinstance(w, ActionWrite)]
            connection.execute(insert(ACTIONS), rows)
            continue
        for write in group:
            if isinstance(write, StatementWrite):
                write.run(connection)


def commit_writes(connection: Connection, writes: Sequence[Write]) -> None:
    """Every write of the batch in one transaction, or none of them."""
    with connection.begin():
        run_writes(connection, writes)


def commit_write(connection: Connection, write: Write) -> None:
    """One write alone; a broken constraint becomes the caller's StoreError."""
    try:
        commit_writes(connection, [write])
    except IntegrityError:
        if write.conflict is None:
            raise
        raise write.conflict(connection) from None
