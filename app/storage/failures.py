"""Telling a database failure from a bug, and saying what an operator can do about it."""

from __future__ import annotations

import sqlite3
from pathlib import PurePath

import asyncpg  # type: ignore[import-untyped]  # no stubs; two exception types used here
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from app.storage.records import StoreError

# What the drivers and SQLAlchemy raise when the database is away, refuses connections, is
# locked or full; OSError covers refused and reset connections and timeouts.
STORAGE_ERRORS = (
    StoreError,
    SQLAlchemyError,
    sqlite3.Error,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    OSError,
)


def is_storage_failure(exc: BaseException) -> bool:
    """Whether the exception, or one it was raised from or during, came from the database."""
    pending: list[BaseException] = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, STORAGE_ERRORS):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False


def _chain(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def describe_open_failure(exc: BaseException, url: str) -> str:
    """What went wrong opening the database at `url`, and what to do, in one line."""
    parsed = make_url(url)
    causes = _chain(exc)
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        folder = str(PurePath(path).parent)
        for cause in causes:
            if isinstance(cause, sqlite3.DatabaseError) and "not a database" in str(cause):
                return (
                    f"{path} is not a SQLite database: move that file away, or point "
                    "MELDHALL_DATA_DIR (or DATABASE_URL) somewhere else"
                )
            if isinstance(cause, sqlite3.OperationalError) and "unable to open" in str(cause):
                return (
                    f"cannot create or open {path}: make the folder {folder} writable for "
                    "this user, or set MELDHALL_DATA_DIR to a folder that is"
                )
            if isinstance(cause, OSError) and not isinstance(cause, ConnectionError):
                return (
                    f"cannot use the data folder {folder} ({cause.strerror or cause}): make it "
                    "a writable folder for this user, or set MELDHALL_DATA_DIR to one that is"
                )
    elif parsed.get_backend_name() == "postgresql":
        where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
        for cause in causes:
            if isinstance(cause, asyncpg.InvalidCatalogNameError):
                return (
                    f"PostgreSQL at {where} has no database {parsed.database!r}: create it "
                    f"(createdb {parsed.database}) or fix the name in DATABASE_URL"
                )
            if isinstance(
                cause,
                asyncpg.InvalidAuthorizationSpecificationError | asyncpg.InvalidPasswordError,
            ):
                return (
                    f"PostgreSQL at {where} refused the login of {parsed.username!r} ({cause}): "
                    "fix the user or password in DATABASE_URL"
                )
            if isinstance(cause, OSError):
                return (
                    f"cannot reach PostgreSQL at {where} ({cause.strerror or cause}): start it, "
                    "or fix the host and port in DATABASE_URL"
                )
    first = causes[-1]
    return f"cannot open the database ({type(first).__name__}: {first})"
