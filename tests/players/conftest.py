"""A live server on each kind of database that keeps players: a SQLite file, PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.live import LiveServer, live_server
from tests.storage.databases import drop_postgres_database, fresh_postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
        return
    url = asyncio.run(fresh_postgres_database())
    try:
        yield url
    finally:
        asyncio.run(drop_postgres_database(url))


@pytest.fixture
def server(database_url: str) -> Iterator[LiveServer]:
    with live_server(database_url) as running:
        yield running


def player_auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Player {key}"}


def new_player(server: LiveServer, name: str) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/api/players", json={"name": name})
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made
