"""The engines: SQLite (aiosqlite) in WAL mode, or PostgreSQL through asyncpg.

SQLite's action log is written by a thread of its own (app.storage.commit_thread) through a
synchronous engine on the same file, with the same pragmas except `synchronous`, which the
writer takes from MELDHALL_SQLITE_SYNCHRONOUS:

- "full" (the default) syncs the WAL on every commit: an acknowledged action survives a power
  cut or an operating system crash, not only a killed server. Group commit spreads that one
  sync over every action in the batch, but at people's pace most actions commit alone and each
  waits for its sync.
- "normal" syncs the WAL only at checkpoints. A killed server (SIGKILL, out of memory) still
  loses nothing it acknowledged, since each commit is in the operating system's cache before
  the acknowledgement; a power cut or an operating system crash may lose the last commits
  (the database itself stays consistent). It takes the sync's wait off every move.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

ASYNC_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")

SQLITE_SYNCHRONOUS = ("full", "normal")

# WAL lets the history readers run while the log writer commits; everything but the log writer
# (migrations, reads) keeps synchronous=FULL.
SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
    "PRAGMA cache_size=-16000",
)


def parse_database_url(url: str) -> URL:
    parsed = make_url(url)
    if parsed.drivername not in ASYNC_DRIVERS:
        raise ValueError(
            f"database URL must start with one of {', '.join(d + '://' for d in ASYNC_DRIVERS)}"
            f", got {parsed.drivername}://"
        )
    return parsed


def is_sqlite(url: str) -> bool:
    return make_url(url).drivername.startswith("sqlite")


def ensure_sqlite_folder(url: str) -> None:
    """Create the folder of a SQLite file, so a fresh data folder needs no setup."""
    database = make_url(url).database
    if is_sqlite(url) and database and database != ":memory:":
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def _set_pragmas(pragmas: tuple[str, ...], dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    for pragma in pragmas:
        cursor.execute(pragma)
    cursor.close()


_set_sqlite_pragmas = partial(_set_pragmas, SQLITE_PRAGMAS)


# A PostgreSQL that accepts connections but stops answering (a hung server, a network that
# drops packets) must not hold a request, or a room's log write, for ever: a connection
# attempt is given up after CONNECT_TIMEOUT_S, and a statement of the store's after
# STATEMENT_TIMEOUT_S (asyncpg's defaults are 60 s and none). A log write given up that way
# is in doubt, which the room's match resolves at its next write (app.rooms.match).
CONNECT_TIMEOUT_S = 10.0
STATEMENT_TIMEOUT_S = 15.0


def create_engine(
    url: str,
    *,
    statement_timeout_s: float | None = None,
    idle_in_transaction_s: float | None = None,
) -> AsyncEngine:
    """An engine for the URL; on PostgreSQL, statements are bounded by `statement_timeout_s`
    when given (not for migrations, which may wait for another node's), and a transaction left
    idle for `idle_in_transaction_s` is ended by the server, its session closed.

    The latter is for cluster nodes: a node frozen (SIGSTOP, a stopped VM) in the middle of a
    transaction of several statements (a hand's result, a room's save) keeps its locks on the
    room's row for as long as it is frozen, and the claim of the node taking the room over
    would wait for them (docs/cluster.md)."""
    parsed = parse_database_url(url)
    if parsed.drivername.startswith("sqlite"):
        ensure_sqlite_folder(url)
        engine = create_async_engine(parsed)
        event.listen(engine.sync_engine, "connect", _set_sqlite_pragmas)
        return engine
    connect_args: dict[str, Any] = {"timeout": CONNECT_TIMEOUT_S}
    if statement_timeout_s is not None:
        connect_args["command_timeout"] = statement_timeout_s
    if idle_in_transaction_s is not None:
        milliseconds = str(max(1, round(idle_in_transaction_s * 1000)))
        connect_args["server_settings"] = {"idle_in_transaction_session_timeout": milliseconds}
    return create_async_engine(
        parsed, pool_size=5, max_overflow=5, pool_pre_ping=True, connect_args=connect_args
    )


def create_sqlite_writer_engine(url: str, synchronous: str = "full") -> Engine:
    """A synchronous engine (the standard library's sqlite3) on the file of an aiosqlite URL."""
    parsed = parse_database_url(url)
    if not parsed.drivername.startswith("sqlite"):
        raise ValueError(f"a SQLite URL was expected, got {parsed.drivername}://")
    if synchronous not in SQLITE_SYNCHRONOUS:
        raise ValueError(f"SQLite synchronous is one of {SQLITE_SYNCHRONOUS}, not {synchronous!r}")
    ensure_sqlite_folder(url)
    # The writer thread keeps its one connection open; a pool would only add a reset per use.
    engine = create_sync_engine(parsed.set(drivername="sqlite+pysqlite"), poolclass=NullPool)
    # A batch with several statements (a hand's result among actions) is a transaction whose
    # statements keep their own rollback journal: in memory, not a temporary file made each time.
    pragmas = (
        *SQLITE_PRAGMAS,
        f"PRAGMA synchronous={synchronous.upper()}",
        "PRAGMA temp_store=MEMORY",
    )
    event.listen(engine, "connect", partial(_set_pragmas, pragmas))
    return engine
