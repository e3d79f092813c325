"""Tables emptied and filled again in bulk inside one transaction (`meldhall ratings rebuild`).

On PostgreSQL the rows go in by COPY, through the transaction's own asyncpg connection, and the
tables are emptied by TRUNCATE; while they are filled, their keys, indexes and foreign keys are
dropped and then made again from the tables' metadata (the definitions the migrations were
written from): building an index over millions of rows sorted once is far cheaper than entering
each row into four btrees, and a foreign key added over a full table is checked by one join
instead of two lookups per row. PostgreSQL's DDL is transactional, so a failure anywhere rolls
the schema back with the rows. Elsewhere (SQLite) the rows go in by executemany, which SQLite
runs fast in one transaction, with the tables' secondary indexes dropped and made again the
same way (its keys and foreign keys are part of a table's definition and stay).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from itertools import islice
from typing import Any

from sqlalchemy import Table, delete, insert, text
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.schema import AddConstraint, CreateIndex, DropConstraint, DropIndex

# Rows per executemany (SQLite) or per COPY (PostgreSQL), so that neither holds them all.
BATCH = 5000
COPY_BATCH = 50_000

# Memory for each index build: an index over a few million short rows is sorted in memory
# rather than in temporary files (the default, 64 MB, spills).
MAINTENANCE_WORK_MEM = "512MB"


def is_postgres(connection: AsyncConnection) -> bool:
    return connection.dialect.name == "postgresql"


def columns(table: Table) -> list[str]:
    """The order of each record's values: the table's columns as declared."""
    return [column.name for column in table.columns]


async def empty(connection: AsyncConnection, *tables: Table) -> None:
    """Every row of the tables gone; TRUNCATE on PostgreSQL (no dead rows left behind)."""
    if is_postgres(connection):
        names = ", ".join(connection.dialect.identifier_preparer.format_table(t) for t in tables)
        await connection.execute(text(f"TRUNCATE {names}"))
        return
    for table in tables:
        await connection.execute(delete(table))


async def load(connection: AsyncConnection, table: Table, records: Iterable[Sequence[Any]]) -> None:
    """Records (tuples in `columns(table)` order) added to the table, in batches."""
    names = columns(table)
    iterator = iter(records)
    if not is_postgres(connection):
        while chunk := list(islice(iterator, BATCH)):
            rows = [dict(zip(names, record, strict=True)) for record in chunk]
            await connection.execute(insert(table), rows)
        return
    # The asyncpg connection under the transaction's: COPY runs in the same transaction.
    raw = await connection.get_raw_connection()
    driver: Any = raw.driver_connection
    while chunk := list(islice(iterator, COPY_BATCH)):
        await driver.copy_records_to_table(table.name, records=chunk, columns=names)


@asynccontextmanager
async def unindexed(connection: AsyncConnection, *tables: Table) -> AsyncIterator[None]:
    """The tables without their indexes while the block fills them, all made again after it in
    the same transaction. On PostgreSQL their primary keys and foreign keys go too; SQLite keeps
    those in the table's own definition, so it drops only the other indexes. The block is to
    empty the tables first, then fill them: no other table may refer to their keys."""
    postgres = is_postgres(connection)
    if postgres:
        await connection.execute(text(f"SET LOCAL maintenance_work_mem = '{MAINTENANCE_WORK_MEM}'"))
    for table in tables:
        if postgres:
            for foreign_key in table.foreign_key_constraints:
                await connection.execute(DropConstraint(foreign_key))
        for index in table.indexes:
            await connection.execute(DropIndex(index))
        if postgres:
            await connection.execute(DropConstraint(table.primary_key))
    yield
    for table in tables:
        if postgres:
            await connection.execute(AddConstraint(table.primary_key))
        for index in sorted(table.indexes, key=lambda index: str(index.name)):
            await connection.execute(CreateIndex(index))
        if postgres:
            for foreign_key in table.foreign_key_constraints:
                await connection.execute(AddConstraint(foreign_key))
