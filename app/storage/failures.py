"""Telling a database failure from a bug: the first is the operator's to fix, the second ours."""

from __future__ import annotations

import sqlite3

import asyncpg  # type: ignore[import-untyped]  # no stubs; two exception types used here
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
