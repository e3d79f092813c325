"""The SQLite log writer's side: one sqlite3 connection, used only in the commit thread.

A batch runs as prepared statements on the bare sqlite3 connection (app.storage.prepared), in
one explicit transaction: SQLAlchemy opens the connection (file, pragmas, sync level) and takes
no part in a commit, whose CPU in this thread holds the event loop's GIL. The connection is in
autocommit mode, so that a batch of one statement (a run of actions, the usual batch) is a
transaction by itself: one step, committed and synced before it returns, rather than BEGIN,
the statement and COMMIT, each of which let go of the GIL and waited to take it back.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine.interfaces import DBAPIConnection

from app.storage.database import create_sqlite_writer_engine
from app.storage.group_commit import Outcomes
from app.storage.prepared import statements
from app.storage.rating_writes import Plan, Rows
from app.storage.sql_writes import ActionWrite, Operation, Write, conflict_error, operations


class SqliteLog:
    def __init__(self, url: str, synchronous: str) -> None:
        self._engine = create_sqlite_writer_engine(url, synchronous)
        self._statements = statements(self._engine.dialect)
        self._raw: Any = None
        self._connection: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            # The pool's connection runs the engine's connect hook (pragmas, sync level).
            self._raw = self._engine.raw_connection()
            driver: DBAPIConnection | None = self._raw.driver_connection
            assert isinstance(driver, sqlite3.Connection)
            # No implicit BEGIN: commit_batch opens a transaction only around several calls.
            driver.isolation_level = None
            self._connection = driver
        return self._connection

    def _drop(self) -> None:
        raw, self._raw, self._connection = self._raw, None, None
        if raw is not None:
            # It may be broken already (the reason it is dropped); closing is best effort.
            with contextlib.suppress(sqlite3.Error, OSError):
                raw.close()

    def commit_batch(self, writes: Sequence[Write]) -> Outcomes:
        """Every write of the batch in one transaction, or none of them.

        Actions carry no fence check here: the server holds the SQLite file alone
        (app.storage.exclusive), so no other owner can write between its claims.
        """
        calls = operations(self._statements, writes, datetime.now(UTC))
        connection = self._connect()
        try:
            if len(calls) == 1 and calls[0].alone_is_atomic:
                _run(connection, calls[0])
                return None
            connection.execute("BEGIN")
            for call in calls:
                _run(connection, call)
            connection.execute("COMMIT")
            return None
        except BaseException:
            # After a failed commit the connection's state is unknown: start the next afresh
            # (closing it rolls back whatever the transaction had done).
            self._drop()
            raise

    def commit_one(self, write: Write) -> None:
        """One write alone; a broken constraint becomes the caller's StoreError."""
        try:
            self.commit_batch([write])
        except sqlite3.IntegrityError:
            exists = isinstance(write, ActionWrite) and self._match_exists(write.match_id)
            error = conflict_error(write, exists)
            if error is None:
                raise
            raise error from None

    def _match_exists(self, match_id: str) -> bool:
        prepared = self._statements.match_exists
        found = self._connect().execute(prepared.sql, prepared.args({"p_match_id": match_id}))
        return found.fetchone() is not None

    def close(self) -> None:
        self._drop()
        self._engine.dispose()


def _run(connection: sqlite3.Connection, call: Operation) -> None:
    if call.plan is not None:
        _run_plan(connection, call.plan)
        return
    if call.many:
        connection.executemany(call.sql, call.args)
        return
    done = connection.execute(call.sql, call.args)
    if call.missing is not None and done.rowcount == 0:
        raise call.missing


def _run_plan(connection: sqlite3.Connection, plan: Plan) -> None:
    rows: Rows = None
    while True:
        try:
            query = plan.send(rows)
        except StopIteration:
            return
        if query.many:
            connection.executemany(query.sql, query.args)
            rows = None
        elif query.fetch_all:
            rows = connection.execute(query.sql, query.args).fetchall()
        else:
            rows = connection.execute(query.sql, query.args).fetchone()
