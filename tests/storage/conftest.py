"""Stores to test against: in memory, a SQLite file, and PostgreSQL in a fresh database.

Every SQL database here gets its schema from the migrations, as a real server's does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.storage.migrate import upgrade_to_head
from app.storage.sql_store import SqlMatchStore
from app.storage.store import MatchStore, open_store
from tests.storage.databases import drop_postgres_database, fresh_postgres_database


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'data' / 'meldhall.db'}"


@pytest.fixture
async def postgres_url() -> AsyncIterator[str]:
    url = await fresh_postgres_database()
    yield url
    await drop_postgres_database(url)


@pytest.fixture
async def postgres_store_url() -> AsyncIterator[str]:
    """A fresh PostgreSQL database with the schema, for tests that need two stores on it."""
    url = await fresh_postgres_database()
    try:
        await upgrade_to_head(url)
        yield url
    finally:
        await drop_postgres_database(url)


@pytest.fixture(
    params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
async def store_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A ready URL for each kind of store, SQL ones already migrated."""
    async for url in ready_url(request):
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def sql_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A ready URL for each kind of SQL store, already migrated."""
    async for url in ready_url(request):
        yield url


@pytest.fixture
async def sql_store(sql_url: str) -> AsyncIterator[SqlMatchStore]:
    """A started store on each kind of SQL database."""
    store = open_store(sql_url)
    assert isinstance(store, SqlMatchStore)
    await store.start()
    yield store
    await store.close()


@pytest.fixture
async def postgres_nodes(postgres_store_url: str) -> AsyncIterator[list[SqlMatchStore]]:
    """Two started stores on one PostgreSQL database: two nodes of a cluster."""
    nodes = []
    for _ in range(2):
        node = open_store(postgres_store_url)
        assert isinstance(node, SqlMatchStore)
        nodes.append(node)
        await node.start()
    try:
        yield nodes
    finally:
        for node in nodes:
            await node.close()


async def ready_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
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
