"""Who may serve from a database: one server on a SQLite file; one server or one cluster on
PostgreSQL.

Two servers that each think they hold every room would take each other's rooms at start and run
each other's bots. So a server that serves alone holds the database exclusively for as long as it
runs, and one that would share it is refused at start with a one-line reason:

- a SQLite file is held with an advisory lock (flock) on a file beside it, which the operating
  system lets go of when the process ends, however it ends;
- a PostgreSQL database is held with a session advisory lock on a connection kept open for this
  purpose: exclusively by a server alone, shared by each node of a cluster, so that neither a
  second lone server nor a cluster node can start beside a lone server (and the reverse).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Protocol

import asyncpg  # type: ignore[import-untyped]  # no stubs; two calls here
from sqlalchemy.engine import make_url

from app.storage.database import is_sqlite

# The advisory lock's key on PostgreSQL: "meldhall" in ASCII, as a bigint.
ADVISORY_KEY = int.from_bytes(b"meldhall", "big") & (2**63 - 1)


class DatabaseInUse(Exception):
    """Another server holds the database in a way that rules this one out."""


class Hold(Protocol):
    async def release(self) -> None: ...


class NoHold:
    """For stores that live in this process only."""

    async def release(self) -> None:
        return None


class SqliteFileHold:
    def __init__(self, lock_path: Path, handle: IO[str]) -> None:
        self.lock_path = lock_path
        self._handle = handle

    async def release(self) -> None:
        with contextlib.suppress(OSError):
            self._handle.close()


class PostgresHold:
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    async def release(self) -> None:
        # Ending the session lets go of its advisory locks.
        with contextlib.suppress(OSError, asyncpg.PostgresError):
            await self._connection.close()


def hold_sqlite_file(database: Path) -> SqliteFileHold:
    import fcntl

    lock_path = database.with_name(database.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    handle = lock_path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise DatabaseInUse(
            f"another meldhall server (pid {holder}) is serving from {database}: stop it, or "
            "give this one its own MELDHALL_DATA_DIR or DATABASE_URL"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return SqliteFileHold(lock_path, handle)


async def hold_postgres(url: str, *, shared: bool) -> PostgresHold:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(dsn, timeout=10)
    how = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    if await connection.fetchval(f"SELECT {how}($1)", ADVISORY_KEY):
        return PostgresHold(connection)
    await connection.close()
    if shared:
        reason = (
            "a meldhall server that runs alone (no MELDHALL_REDIS_URL) is serving from this "
            "database: stop it before starting cluster nodes on it"
        )
    else:
        reason = (
            "another meldhall server or cluster is serving from this database: stop it, or "
            "join the cluster by setting MELDHALL_REDIS_URL like its nodes"
        )
    raise DatabaseInUse(reason)


async def hold_database(url: str, *, cluster: bool) -> Hold:
    """Hold the database for this server, or raise DatabaseInUse with the reason."""
    if url.startswith("memory://"):
        return NoHold()
    if is_sqlite(url):
        database = make_url(url).database
        if not database or database == ":memory:":
            return NoHold()
        # A lock file beside the database: quick, local, and done before anything is served.
        return hold_sqlite_file(Path(database).expanduser().resolve())  # noqa: ASYNC240
    return await hold_postgres(url, shared=cluster)
