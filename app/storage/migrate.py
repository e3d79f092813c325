"""Bring a database's schema to the newest migration: the only way the schema comes to exist."""

from __future__ import annotations

import asyncio

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection

from app.resources import MIGRATIONS
from app.storage.database import create_engine


def alembic_config(url: str) -> Config:
    """Alembic's configuration without any ini file, so an installed package works anywhere."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolation would read a '%' in a password as a reference.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


# Nodes of a cluster start together and each migrates first: on PostgreSQL one at a time, under
# a transaction-scoped advisory lock ("meldhall-migrate"), so the others find the work done.
MIGRATION_LOCK = int.from_bytes(b"mh-migr8", "big") & (2**63 - 1)


def _upgrade(connection: Connection, config: Config) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def upgrade_to_head(url: str) -> None:
    """Apply every migration not yet applied; safe to call on every start."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade, alembic_config(url))
    finally:
        await engine.dispose()


def upgrade_to_head_sync(url: str) -> None:
    """The same, for callers outside an event loop (the `meldhall migrate` command)."""
    asyncio.run(upgrade_to_head(url))
