"""A rebuild loads its tables in bulk with their indexes dropped meanwhile (on PostgreSQL by COPY,
keys and foreign keys dropped too): the schema comes back as the migrations made it, and a
rebuild that fails leaves the ratings, their events, the pairs and the circles' sizes as they
were."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, inspect
from sqlalchemy.exc import IntegrityError

from app.players.rebuild import PairCounts, rebuild_ratings
from app.storage.bulk_load import columns
from app.storage.models import CIRCLE_SIZES, PLAYER_PAIRS, RATING_EVENTS, RATINGS
from app.storage.rating_writes import EVENT_COLUMNS, RATING_COLUMNS
from app.storage.sql_store import SqlMatchStore
from tests.storage.test_rating_writes import (
    circles_of,
    events_of,
    pairs_of,
    people,
    person,
    play_and_end,
    ratings_of,
    scored,
    totals_of,
)

# The tables a rebuild empties and fills again.
LOADED = (RATINGS, RATING_EVENTS, PLAYER_PAIRS, CIRCLE_SIZES)


def schema_of(connection: Connection) -> dict[str, Any]:
    """Each loaded table's primary key, indexes, foreign keys and unique constraints."""
    inspector = inspect(connection)
    found: dict[str, Any] = {}
    for table in LOADED:
        name = table.name
        found[name] = {
            "primary key": inspector.get_pk_constraint(name),
            "indexes": sorted(inspector.get_indexes(name), key=lambda i: str(i["name"])),
            "foreign keys": sorted(inspector.get_foreign_keys(name), key=lambda f: str(f["name"])),
            "unique": sorted(inspector.get_unique_constraints(name), key=lambda u: str(u["name"])),
        }
    return found


async def played(store: SqlMatchStore) -> list[str]:
    ann, bob, cy = await people(store, "Ann", "Bob", "Cy")
    await play_and_end(store, "m1", [person(0, ann), person(1, bob)], scored([10, -10]))
    await play_and_end(
        store,
        "m2",
        [person(0, bob), person(1, cy), person(2, ann)],
        scored([5, 20, -25]),
        public=False,
    )
    seats = [person(0, cy), person(1, ann)]
    await play_and_end(store, "m3", seats, scored([-3, 3]), rated=False)
    return [ann, bob, cy]


async def everything(store: SqlMatchStore) -> tuple[Any, ...]:
    return (
        await ratings_of(store),
        await events_of(store),
        await pairs_of(store),
        await totals_of(store),
        await circles_of(store),
    )


def test_records_follow_the_tables_columns() -> None:
    assert list(RATING_COLUMNS) == columns(RATINGS)
    assert list(EVENT_COLUMNS) == columns(RATING_EVENTS)


async def test_a_rebuild_leaves_the_keys_indexes_and_foreign_keys_as_the_migrations_made_them(
    sql_store: SqlMatchStore,
) -> None:
    await played(sql_store)
    async with sql_store.engine.connect() as connection:
        before = await connection.run_sync(schema_of)
    assert before["player_pairs"]["foreign keys"]
    assert len(before["player_pairs"]["indexes"]) == 3
    live = await everything(sql_store)
    await rebuild_ratings(sql_store.engine)
    async with sql_store.engine.connect() as connection:
        assert await connection.run_sync(schema_of) == before
    assert await everything(sql_store) == live


async def test_a_failed_rebuild_leaves_ratings_pairs_and_schema_as_they_were(
    sql_store: SqlMatchStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await played(sql_store)
    async with sql_store.engine.connect() as connection:
        before = await connection.run_sync(schema_of)
    live = await everything(sql_store)
    assert all(live)
    counted = PairCounts.records

    def with_a_stranger(self: PairCounts) -> Iterator[tuple[Any, ...]]:
        # A pair naming nobody: its foreign key fails, as the last step on PostgreSQL (the
        # keys are made again after the load) and at the insert on SQLite.
        yield from counted(self)
        yield ("nobody", next(iter(self.known)), 1, 1, 0, 0, 0, 0, 0, 0)

    monkeypatch.setattr(PairCounts, "records", with_a_stranger)
    with pytest.raises(IntegrityError, match=r"(?i)foreign key"):
        await rebuild_ratings(sql_store.engine)
    assert await everything(sql_store) == live
    async with sql_store.engine.connect() as connection:
        assert await connection.run_sync(schema_of) == before
