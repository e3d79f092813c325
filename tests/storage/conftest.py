"""Stores to test against: in memory, a SQLite file, and PostgreSQL in a fresh database.

Every SQL database here gets its schema from the migrations, as a real server's does.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from app.storage.migrate import upgrade_to_head
from app.storage.store import MatchStore, open_store
from tests.conftest import POSTGRES_URL, missing_service


def plain_dsn(url: str) -> str:
    """The asyncpg form of a SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def fresh_postgres_database() -> str:
    """A new empty database on the test server, so that runs never collide."""
    name = f"meldhall_{uuid.uuid4().hex[:12]}"
    try:
        admin = await asyncpg.connect(plain_dsn(POSTGRES_URL), timeout=5)
    except (OSError, asyncpg.PostgresError) as error:
        missing_service(f"PostgreSQL at {make_url(POSTGRES_URL).host} is unreachable: {error}")
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


async def drop_postgres_database(url: str) -> None:
    admin = await asyncpg.connect(plain_dsn(POSTGRES_URL), timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'data' / 'meldhall.db'}"


@pytest.fixture
async def postgres_url() -> AsyncIterator[str]:
    url = await fresh_postgres_database()
    yield url
    await drop_postgres_database(url)


@pytest.fixture(
    params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def store_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A ready URL for each kind of store, SQL ones already migrated."""
    if request.param == "memory":
        yield "memory://"
        return
    if request.param == "sqlite":
        url = request.getfixturevalue("sqlite_url")
        await upgrade_to_head(url)
        yield url
        return
    url = await fresh_postgres_database()
    try:
        await upgrade_to_head(url)
        yield url
    finally:
        await drop_postgres_database(url)


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[MatchStore]:
    opened = open_store(store_url)
    await opened.start()
    yield opened
    await opened.close()
