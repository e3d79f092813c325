"""Migrations are the only source of the schema, and they agree with the models."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from app.storage.database import create_engine
from app.storage.migrate import alembic_config, upgrade_to_head, upgrade_to_head_sync
from app.storage.models import Base

TABLES = {
    "matches",
    "seats",
    "actions",
    "hand_results",
    "rooms",
    "players",
    "player_keys",
    "link_codes",
    "ratings",
    "rating_events",
    "rating_clock",
    "chat_messages",
    "player_pairs",
    "rating_totals",
    "circle_sizes",
    "alembic_version",
}


# The newest revision in migrations/.
HEAD = ScriptDirectory.from_config(alembic_config("sqlite+aiosqlite://")).get_current_head()


def differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def migrated_differences(url: str) -> list[Any]:
    await upgrade_to_head(url)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(differences)
    finally:
        await engine.dispose()


async def table_names(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def test_models_and_migrations_agree_on_sqlite(sqlite_url: str) -> None:
    assert await migrated_differences(sqlite_url) == []


@pytest.mark.postgres
async def test_models_and_migrations_agree_on_postgres(postgres_url: str) -> None:
    assert await migrated_differences(postgres_url) == []


async def test_an_empty_database_has_no_tables_until_migrated(sqlite_url: str) -> None:
    assert await table_names(sqlite_url) == set()
    await upgrade_to_head(sqlite_url)
    assert await table_names(sqlite_url) == TABLES


@pytest.mark.postgres
async def test_postgres_gets_every_table_from_the_migrations(postgres_url: str) -> None:
    await upgrade_to_head(postgres_url)
    assert await table_names(postgres_url) == TABLES


async def test_migrating_again_is_harmless_and_keeps_the_data(sqlite_url: str) -> None:
    await upgrade_to_head(sqlite_url)
    engine = create_engine(sqlite_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO matches (id, room_id, game, config, seed, players, status,"
                    " created_at, room_meta) VALUES ('m', 'r', 'g', '{}', 1, 2, 'active',"
                    " '2026-01-01 00:00:00', '{}')"
                )
            )
    finally:
        await engine.dispose()
    await upgrade_to_head(sqlite_url)
    engine = create_engine(sqlite_url)
    try:
        async with engine.connect() as connection:
            count = await connection.execute(text("SELECT count(*) FROM matches"))
            version = await connection.execute(text("SELECT version_num FROM alembic_version"))
            assert count.scalar_one() == 1
            assert version.scalar_one() == HEAD
    finally:
        await engine.dispose()


def test_the_sync_wrapper_creates_the_data_folder_and_the_schema(tmp_path: Path) -> None:
    database = tmp_path / "fresh" / "folder" / "meldhall.db"
    upgrade_to_head_sync(f"sqlite+aiosqlite:///{database}")
    assert database.is_file()


async def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_full_sync(sqlite_url: str) -> None:
    await upgrade_to_head(sqlite_url)
    engine = create_engine(sqlite_url)
    try:
        async with engine.connect() as connection:
            journal = (await connection.execute(text("PRAGMA journal_mode"))).scalar_one()
            keys = (await connection.execute(text("PRAGMA foreign_keys"))).scalar_one()
            synchronous = (await connection.execute(text("PRAGMA synchronous"))).scalar_one()
    finally:
        await engine.dispose()
    assert (journal, keys, synchronous) == ("wal", 1, 2)


def test_a_synchronous_driver_url_is_refused_with_the_expected_forms() -> None:
    with pytest.raises(ValueError, match=r"sqlite\+aiosqlite://.*got postgresql://"):
        create_engine("postgresql://postgres@127.0.0.1/test")


@pytest.mark.postgres
async def test_nodes_migrating_one_database_at_once_all_succeed(postgres_url: str) -> None:
    # A cluster's nodes start together and each migrates first.
    async with asyncio.timeout(60):
        await asyncio.gather(*(upgrade_to_head(postgres_url) for _ in range(4)))
    engine = create_engine(postgres_url)
    try:
        async with engine.connect() as connection:
            version = await connection.execute(text("SELECT version_num FROM alembic_version"))
            assert version.scalar_one() == HEAD
    finally:
        await engine.dispose()


def _upgrade_to(connection: Connection, url: str, revision: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _downgrade_to(connection: Connection, url: str, revision: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.downgrade(config, revision)


# Statements and their values, stored by a server of an older version.
Stored = list[tuple[str, dict[str, Any]]]


async def _stored_at(url: str, revision: str, rows: Stored) -> None:
    """The database migrated to `revision` only, holding `rows` (statements and their values)
    as a server of that version stored them."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_upgrade_to, url, revision)
            for statement, values in rows:
                await connection.execute(text(statement), values)
    finally:
        await engine.dispose()


# A person as the players table has held them since 0006.
_PLAYER = (
    "INSERT INTO players (id, name, name_key, kind, created_at)"
    " VALUES (:id, :id, :id, 'person', '2026-01-01 00:00:00+00')"
)


async def _stored_options(url: str) -> dict[str, Any]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            found = {}
            for table, column in (("matches", "config"), ("rooms", "options")):
                rows = await connection.execute(text(f"SELECT id, {column} FROM {table}"))
                for row_id, options in rows:
                    found[row_id] = json.loads(options) if isinstance(options, str) else options
            return found
    finally:
        await engine.dispose()


async def gin_rules_kept_by_the_upgrade(url: str) -> None:
    """Gin Rummy matches and rooms stored before 0005 keep the automatic lay-offs they were
    played with; other games and explicit rules are left alone."""
    rows: Stored = [
        (
            "INSERT INTO matches (id, room_id, game, config, seed, players, status,"
            " created_at, room_meta) VALUES (:id, 'r', :game, :config, 1, 2,"
            " 'active', '2026-01-01 00:00:00+00', '{}')",
            {"id": match_id, "game": game, "config": config},
        )
        for match_id, game, config in (
            ("gin", "gin_rummy", '{"target": 50}'),
            ("gin-chosen", "gin_rummy", '{"lay_offs": "choose"}'),
            ("tiles", "rummikub", "{}"),
        )
    ]
    rows.append(
        (
            "INSERT INTO rooms (id, game, players, options, public, spectators, status,"
            " seats, created_at, updated_at) VALUES ('room', 'gin_rummy', 2, '{}',"
            " false, true, 'open', '[]', '2026-01-01 00:00:00+00',"
            " '2026-01-01 00:00:00+00')",
            {},
        )
    )
    await _stored_at(url, "0004", rows)
    await upgrade_to_head(url)
    assert await _stored_options(url) == {
        "gin": {"target": 50, "lay_offs": "auto"},
        "gin-chosen": {"lay_offs": "choose"},
        "tiles": {},
        "room": {"lay_offs": "auto"},
    }
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_downgrade_to, url, "0004")
    finally:
        await engine.dispose()
    # Down again: the engine before 0005 would refuse an option it does not know.
    assert await _stored_options(url) == {
        "gin": {"target": 50},
        "gin-chosen": {"lay_offs": "choose"},
        "tiles": {},
        "room": {},
    }


async def test_gin_matches_stored_before_keep_automatic_lay_offs_on_sqlite(
    sqlite_url: str,
) -> None:
    await gin_rules_kept_by_the_upgrade(sqlite_url)


@pytest.mark.postgres
async def test_gin_matches_stored_before_keep_automatic_lay_offs_on_postgres(
    postgres_url: str,
) -> None:
    await gin_rules_kept_by_the_upgrade(postgres_url)


async def rating_events_learn_their_rooms_publicity(url: str) -> None:
    """0009 marks each stored rating event with its match's room's publicity (public rooms'
    true, private rooms' false), so that profiles keep hiding private matches from others."""
    rows: Stored = [(_PLAYER, {"id": "ann"})]
    for match_id, public in (("open", True), ("closed", False)):
        rows.append(
            (
                "INSERT INTO matches (id, room_id, game, config, seed, players, status,"
                " created_at, room_meta, public) VALUES (:id, 'r', 'gin_rummy', '{}', 1,"
                " 2, 'finished', '2026-01-01 00:00:00+00', '{}', :public)",
                {"id": match_id, "public": public},
            )
        )
        rows.append(
            (
                "INSERT INTO rating_events (match_id, player_id, mode, seq, mu_before,"
                " sigma_before, mu_after, sigma_after, display_before, display_after, at)"
                " VALUES (:id, 'ann', 'gin_rummy:2', 1, 25, 8.3, 26, 8, 1500, 1510,"
                " '2026-01-01 00:00:00+00')",
                {"id": match_id},
            )
        )
    await _stored_at(url, "0008", rows)
    await upgrade_to_head(url)
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT match_id, public FROM rating_events"))
            assert {match_id: bool(public) for match_id, public in rows} == {
                "open": True,
                "closed": False,
            }
    finally:
        await engine.dispose()


async def test_rating_events_learn_their_rooms_publicity_on_sqlite(sqlite_url: str) -> None:
    await rating_events_learn_their_rooms_publicity(sqlite_url)


@pytest.mark.postgres
async def test_rating_events_learn_their_rooms_publicity_on_postgres(postgres_url: str) -> None:
    await rating_events_learn_their_rooms_publicity(postgres_url)


async def circles_are_counted_from_the_stored_pairs(url: str) -> None:
    """0010 counts each circle's rated players per mode from the pairs and ratings stored
    (the query a rebuild runs); its downgrade takes the table away again."""
    rows: Stored = [(_PLAYER, {"id": pid}) for pid in ("ann", "bob", "cy")]
    for pid, mode in (("bob", "gin_rummy:2"), ("cy", "gin_rummy:2"), ("cy", "rummikub:2")):
        rows.append(
            (
                "INSERT INTO ratings (player_id, mode, mu, sigma, display, matches,"
                " updated_at) VALUES (:id, :mode, 25, 8, 1500, 1, '2026-01-01 00:00:00+00')",
                {"id": pid, "mode": mode},
            )
        )
    # Ann shared two private matches with Bob and a public one with Cy.
    for pid, other, shared, public in (
        ("ann", "bob", 2, 0),
        ("ann", "cy", 1, 1),
        ("bob", "ann", 2, 0),
        ("cy", "ann", 1, 1),
        ("bob", "cy", 0, 0),
    ):
        rows.append(
            (
                "INSERT INTO player_pairs (player_id, other_id, shared, shared_public,"
                " duels, wins, losses, duels_public, wins_public, losses_public)"
                " VALUES (:id, :other, :shared, :public, 1, 0, 0, 0, 0, 0)",
                {"id": pid, "other": other, "shared": shared, "public": public},
            )
        )
    await _stored_at(url, "0009", rows)
    await upgrade_to_head(url)
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            rows = await connection.execute(text("SELECT * FROM circle_sizes"))
            assert {(r.player_id, r.mode): (r.members, r.members_public) for r in rows} == {
                ("ann", "gin_rummy:2"): (2, 1),
                ("ann", "rummikub:2"): (1, 1),
            }
            await connection.run_sync(_downgrade_to, url, "0009")
        assert "circle_sizes" not in await table_names(url)
    finally:
        await engine.dispose()


async def test_circles_are_counted_from_the_stored_pairs_on_sqlite(sqlite_url: str) -> None:
    await circles_are_counted_from_the_stored_pairs(sqlite_url)


@pytest.mark.postgres
async def test_circles_are_counted_from_the_stored_pairs_on_postgres(postgres_url: str) -> None:
    await circles_are_counted_from_the_stored_pairs(postgres_url)
