"""The async engine: SQLite (aiosqlite) in WAL mode, or PostgreSQL through asyncpg."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

ASYNC_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")

# WAL lets the history readers run while the log writer commits. synchronous=FULL syncs the
# WAL on every commit so that an acknowledged action survives a power cut, not only a killed
# process; group commit spreads that one fsync over every action in the batch.
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


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    for pragma in SQLITE_PRAGMAS:
        cursor.execute(pragma)
    cursor.close()


def create_engine(url: str) -> AsyncEngine:
    parsed = parse_database_url(url)
    if parsed.drivername.startswith("sqlite"):
        ensure_sqlite_folder(url)
        engine = create_async_engine(parsed)
        event.listen(engine.sync_engine, "connect", _set_sqlite_pragmas)
        return engine
    return create_async_engine(parsed, pool_size=5, max_overflow=5, pool_pre_ping=True)
