"""Fixtures shared by the API tests that run real server processes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import server_env
from tests.storage.databases import drop_postgres_database, fresh_postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    env = server_env(tmp_path / "data")
    if request.param == "sqlite":
        yield env
        return
    url = asyncio.run(fresh_postgres_database())
    try:
        yield {**env, "DATABASE_URL": url}
    finally:
        asyncio.run(drop_postgres_database(url))
