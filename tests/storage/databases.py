"""Fresh PostgreSQL databases for tests, one per test, so that runs never collide."""

from __future__ import annotations

import uuid

import asyncpg
from sqlalchemy.engine import make_url

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
