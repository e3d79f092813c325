"""One PostgreSQL log writer's connection, kept open and driven through asyncpg directly.

The connection comes from SQLAlchemy's engine (so it has the engine's JSON codecs) and stays
checked out in AUTOCOMMIT: no pool checkout, ping or reset per commit. A batch of actions alone
is one statement (app.storage.prepared's log_actions), atomic by itself, so it takes one round
trip; a single executemany likewise (committed at its closing Sync); anything more gets a
transaction.
SQLAlchemy's execution layer (a greenlet, an execution context, statement caching, the
adapter's cursor) ran on the event loop for every commit: about 40 us for a batch of actions
and 2-3 ms for a room save or a hand result, which the prepared statements of
app.storage.prepared cut to the driver's own work.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime

import asyncpg  # type: ignore[import-untyped]  # no stubs; its calls are few here
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.storage.group_commit import Outcomes
from app.storage.prepared import statements
from app.storage.rating_writes import Plan, Rows
from app.storage.records import StoreError
from app.storage.sql_writes import (
    ActionWrite,
    Operation,
    Write,
    conflict_error,
    fenced_outcomes,
    not_inserted,
    operations,
)

# Failures of the connection, not of a write: every write of a failed batch would meet them
# alike, so none is tried again alone (each would wait out the same timeout).
CONNECTION_FAILURES = (
    OSError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,
    OperationalError,
    InterfaceError,
)


class PostgresLog:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._statements = statements(engine.dialect)
        self._connection: AsyncConnection | None = None
        self._driver: asyncpg.Connection | None = None

    async def _connect(self) -> asyncpg.Connection:
        driver = self._driver
        if driver is None or driver.is_closed():
            await self.drop()
            connection = await self._engine.connect()
            self._connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
            driver = (await connection.get_raw_connection()).driver_connection
            if driver is None:
                raise StoreError("store_closed", "the log connection is closed")
            self._driver = driver
        return driver

    async def drop(self, *, broken: bool = False) -> None:
        """Give the connection back; a `broken` one (after a failed commit, its state unknown,
        its server perhaps not answering) is closed at once, not reset over the network."""
        connection, self._connection, self._driver = self._connection, None, None
        if connection is not None:
            with contextlib.suppress(SQLAlchemyError, OSError, asyncpg.PostgresError):
                if broken:
                    await connection.invalidate()
                await connection.close()

    async def commit_batch(self, writes: Sequence[Write]) -> Outcomes:
        driver = await self._connect()
        refused: list[ActionWrite] = []
        try:
            calls = operations(self._statements, writes, datetime.now(UTC))
            if len(calls) == 1 and calls[0].plan is None:
                refused = await _run(driver, calls[0])
            else:
                async with driver.transaction():
                    for call in calls:
                        refused += await _run(driver, call)
        except BaseException:
            await self.drop(broken=True)
            raise
        return fenced_outcomes(writes, refused)

    async def commit_one(self, write: Write) -> None:
        """One write alone; a broken constraint becomes the caller's StoreError."""
        try:
            outcomes = await self.commit_batch([write])
        except asyncpg.IntegrityConstraintViolationError:
            exists = isinstance(write, ActionWrite) and await self._match_exists(write.match_id)
            error = conflict_error(write, exists)
            if error is None:
                raise
            raise error from None
        if outcomes is not None and outcomes[0] is not None:
            raise outcomes[0]

    async def _match_exists(self, match_id: str) -> bool:
        prepared = self._statements.match_exists
        driver = await self._connect()
        found = await driver.fetchrow(prepared.sql, *prepared.args({"p_match_id": match_id}))
        return found is not None


async def _run(driver: asyncpg.Connection, call: Operation) -> list[ActionWrite]:
    """Run one call; returns the actions of a fenced run that were refused."""
    if call.plan is not None:
        await _run_plan(driver, call.plan)
        return []
    if call.fenced_run is not None:
        inserted = await driver.fetch(call.sql, *call.args)
        return not_inserted(call.fenced_run, [(row[0], row[1]) for row in inserted])
    if call.many:
        await driver.executemany(call.sql, call.args)
        return []
    status = await driver.execute(call.sql, *call.args)
    # The command tag ends with the row count ("UPDATE 0", "SELECT 0").
    if call.missing is not None and status.rsplit(" ", 1)[-1] == "0":
        raise call.missing
    return []


async def _run_plan(driver: asyncpg.Connection, plan: Plan) -> None:
    rows: Rows = None
    while True:
        try:
            query = plan.send(rows)
        except StopIteration:
            return
        if query.many:
            await driver.executemany(query.sql, query.args)
            rows = None
        elif query.fetch_all:
            rows = await driver.fetch(query.sql, *query.args)
        elif query.fetch:
            rows = await driver.fetchrow(query.sql, *query.args)
        else:
            await driver.execute(query.sql, *query.args)
            rows = None
