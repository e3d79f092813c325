"""Stores to test against: in memory, a SQLite file, and PostgreSQL in a fresh schema."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.storage.store import MatchStore, open_store


@pytest.fixture(params=["memory"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[MatchStore]:
    opened = open_store("memory://")
    await opened.start()
    yield opened
    await opened.close()
