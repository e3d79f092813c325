"""Write-ahead: an acknowledged action is committed, survives a killed process, and a failed
commit acknowledges nothing. Concurrent actions share commits."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from app.storage.commit_thread import CommitThread
from app.storage.database import create_engine, create_sqlite_writer_engine
from app.storage.group_commit import GroupCommitWriter
from app.storage.migrate import upgrade_to_head
from app.storage.sql_store import SqlMatchStore
from app.storage.store import SeatRecord, StoreError, open_store

ROOT = Path(__file__).resolve().parents[2]

# A child process that logs actions as fast as it can and prints each index once acknowledged.
WRITER = """
import asyncio, sys
from app.storage.store import SeatRecord, open_store

async def main(url, synchronous):
    store = open_store(url, sqlite_synchronous=synchronous)
    await store.start()
    seat = SeatRecord(seat=0, name="ann", kind="human", level=None, token_hash=None)
    await store.create_match(match_id="m", room_id="r", game="gin_rummy", config={}, seed=1,
                             players=2, seats=[seat], room_meta={})
    print("created", flush=True)
    next_index = 0

    async def one(i):
        await store.append_action(match_id="m", index=i, seat=0, action={"i": i})
        print(i, flush=True)

    while True:
        await asyncio.gather(*(one(next_index + k) for k in range(8)))
        next_index += 8

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def sql_store(url: str) -> SqlMatchStore:
    await upgrade_to_head(url)
    store = SqlMatchStore(url)
    await store.start()
    return store


async def create(store: SqlMatchStore, match_id: str) -> None:
    seat = SeatRecord(seat=0, name="ann", kind="human", level=None, token_hash=None)
    await store.create_match(
        match_id=match_id,
        room_id="r",
        game="gin_rummy",
        config={},
        seed=1,
        players=2,
        seats=[seat],
        room_meta={},
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sql_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_url"))


async def test_concurrent_actions_from_many_rooms_share_commits(sql_url: str) -> None:
    store = await sql_store(sql_url)
    try:
        for m in range(20):
            await create(store, f"m{m}")
        before = store.commits

        async def room(match_id: str) -> None:
            for i in range(10):
                await store.append_action(match_id=match_id, index=i, seat=0, action={"i": i})

        await asyncio.gather(*(room(f"m{m}") for m in range(20)))
        commits = store.commits - before
    finally:
        await store.close()
    # 200 actions from 20 rooms acting at once: one commit per writer per round of the rooms,
    # so far fewer commits than actions (a commit per action would be 200).
    assert commits <= 100


async def test_closing_commits_every_action_already_submitted(sql_url: str) -> None:
    store = await sql_store(sql_url)
    await create(store, "m")
    pending = [
        asyncio.create_task(store.append_action(match_id="m", index=i, seat=0, action={"i": i}))
        for i in range(50)
    ]
    await asyncio.sleep(0)
    await store.close()
    await asyncio.gather(*pending)

    reopened = await sql_store(sql_url)
    try:
        match = await reopened.load_match(match_id="m")
    finally:
        await reopened.close()
    assert match is not None
    assert [a.index for a in match.actions] == list(range(50))


async def test_an_action_after_close_is_refused(sql_url: str) -> None:
    store = await sql_store(sql_url)
    await create(store, "m")
    await store.close()
    with pytest.raises(StoreError) as refused:
        await store.append_action(match_id="m", index=0, seat=0, action={})
    assert refused.value.code == "store_closed"


async def rename_actions_table(url: str, old: str, new: str) -> None:
    saboteur = create_engine(url)
    try:
        async with saboteur.begin() as connection:
            await connection.execute(text(f"ALTER TABLE {old} RENAME TO {new}"))
    finally:
        await saboteur.dispose()


async def test_a_failed_commit_acknowledges_nothing_and_the_store_recovers(
    sql_url: str,
) -> None:
    store = await sql_store(sql_url)
    try:
        await create(store, "m")
        await store.append_action(match_id="m", index=0, seat=0, action={"ok": True})
        await rename_actions_table(sql_url, "actions", "actions_gone")
        results = await asyncio.gather(
            *(
                store.append_action(match_id="m", index=i, seat=0, action={"i": i})
                for i in range(1, 6)
            ),
            return_exceptions=True,
        )
        assert all(isinstance(r, Exception) for r in results)
        await rename_actions_table(sql_url, "actions_gone", "actions")
        await store.append_action(match_id="m", index=1, seat=0, action={"i": 1})
        match = await store.load_match(match_id="m")
    finally:
        await store.close()
    assert match is not None
    assert [a.action for a in match.actions] == [{"ok": True}, {"i": 1}]


async def test_a_match_whose_seats_break_a_constraint_leaves_nothing_behind(sql_url: str) -> None:
    store = await sql_store(sql_url)
    try:
        twice = SeatRecord(seat=0, name="ann", kind="human", level=None, token_hash=None)
        results = await asyncio.gather(
            create(store, "ok"),
            store.create_match(
                match_id="bad", room_id="r", game="gin_rummy", config={}, seed=1, players=2,
                seats=[twice, twice], room_meta={},
            ),
            store.append_action(match_id="ok", index=0, seat=0, action={"i": 0}),
            return_exceptions=True,
        )  # fmt: skip
        assert results[0] is None
        assert isinstance(results[1], Exception)
        assert results[2] is None
        assert await store.load_match(match_id="bad") is None
        ok = await store.load_match(match_id="ok")
    finally:
        await store.close()
    assert ok is not None
    assert [a.index for a in ok.actions] == [0]


async def test_a_batch_with_one_bad_write_commits_the_others() -> None:
    committed: list[int] = []

    async def commit_batch(items: list[int]) -> None:
        if any(i < 0 for i in items):
            raise ValueError("a negative item spoils the batch")
        committed.extend(items)

    async def commit_one(item: int) -> None:
        if item < 0:
            raise ValueError(f"{item} is negative")
        committed.append(item)

    writer = GroupCommitWriter[int](commit_batch, commit_one)
    writer.start()
    results = await asyncio.gather(
        *(writer.submit(i) for i in (1, 2, -3, 4)), return_exceptions=True
    )
    await writer.close()
    assert results[:2] == [None, None]
    assert isinstance(results[2], ValueError)
    assert results[3] is None
    assert sorted(committed) == [1, 2, 4]
    assert writer.batches == 1


async def test_the_commit_thread_fails_only_the_bad_write_of_a_batch() -> None:
    committed: list[int] = []
    exited = threading.Event()

    def commit_batch(items: list[int]) -> None:
        if any(i < 0 for i in items):
            raise ValueError("a negative item spoils the batch")
        committed.extend(items)

    def commit_one(item: int) -> None:
        if item < 0:
            raise ValueError(f"{item} is negative")
        committed.append(item)

    writer = CommitThread[int](commit_batch, commit_one, exited.set)
    writer.start()
    results = await asyncio.gather(
        *(writer.submit(i) for i in (1, 2, -3, 4)), return_exceptions=True
    )
    await writer.close()
    assert results[:2] == [None, None]
    assert isinstance(results[2], ValueError)
    assert results[3] is None
    assert sorted(committed) == [1, 2, 4]
    assert exited.is_set()


async def test_the_commit_thread_acknowledges_a_write_only_once_its_batch_committed() -> None:
    entered, release = threading.Event(), threading.Event()
    committed: list[list[str]] = []

    def commit_batch(items: list[str]) -> None:
        entered.set()
        release.wait()
        committed.append(items)

    writer = CommitThread[str](commit_batch, lambda item: None, lambda: None)
    writer.start()
    first = writer.submit("a")
    await asyncio.to_thread(entered.wait)
    # Submitted while "a" commits: they wait for the next commit, and share it.
    second, third = writer.submit("b"), writer.submit("c")
    await asyncio.sleep(0.01)
    assert [f.done() for f in (first, second, third)] == [False, False, False]
    release.set()
    await asyncio.gather(first, second, third)
    await writer.close()
    assert committed == [["a"], ["b", "c"]]
    with pytest.raises(StoreError) as refused:
        writer.submit("d")
    assert refused.value.code == "store_closed"


async def test_a_cancelled_caller_stops_waiting_but_its_action_is_kept(sql_url: str) -> None:
    store = await sql_store(sql_url)
    try:
        await create(store, "m")
        waiting = asyncio.create_task(
            store.append_action(match_id="m", index=0, seat=0, action={"i": 0})
        )
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await store.append_action(match_id="m", index=1, seat=0, action={"i": 1})
        match = await store.load_match(match_id="m")
    finally:
        await store.close()
    assert match is not None
    assert [a.index for a in match.actions] == [0, 1]


@pytest.mark.parametrize(("synchronous", "level"), [("full", 2), ("normal", 1)])
def test_the_sqlite_log_writer_syncs_as_set(sqlite_url: str, synchronous: str, level: int) -> None:
    engine = create_sqlite_writer_engine(sqlite_url, synchronous)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == level
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            # 2: a batch's statement journals stay in memory, no temporary file per batch.
            assert connection.exec_driver_sql("PRAGMA temp_store").scalar() == 2
    finally:
        engine.dispose()


def test_an_unknown_sqlite_sync_level_is_refused(sqlite_url: str) -> None:
    with pytest.raises(StoreError) as refused:
        open_store(sqlite_url, sqlite_synchronous="off")
    assert refused.value.code == "bad_setting"


async def read_acknowledged(process: asyncio.subprocess.Process, count: int) -> list[int]:
    assert process.stdout is not None
    assert (await process.stdout.readline()).strip() == b"created"
    acknowledged = []
    while len(acknowledged) < count:
        line = await process.stdout.readline()
        assert line, "the writer process ended early"
        acknowledged.append(int(line))
    return acknowledged


@pytest.fixture(
    params=[
        ("sqlite", "full"),
        # Syncing only at checkpoints gives up power cuts, not a killed process.
        ("sqlite", "normal"),
        pytest.param(("postgres", "full"), marks=pytest.mark.postgres),
    ],
    ids=["sqlite-full", "sqlite-normal", "postgres"],
)
def url_and_sync_level(request: pytest.FixtureRequest) -> tuple[str, str]:
    database, synchronous = request.param
    return str(request.getfixturevalue(f"{database}_url")), synchronous


async def test_every_acknowledged_action_survives_sigkill(
    url_and_sync_level: tuple[str, str],
) -> None:
    sql_url, synchronous = url_and_sync_level
    await upgrade_to_head(sql_url)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WRITER,
        sql_url,
        synchronous,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        acknowledged = await asyncio.wait_for(read_acknowledged(process, 300), timeout=60)
    finally:
        process.send_signal(signal.SIGKILL)
        await process.wait()

    store = await sql_store(sql_url)
    try:
        match = await store.load_match(match_id="m")
    finally:
        await store.close()
    assert match is not None
    logged = [a.index for a in match.actions]
    assert set(acknowledged) <= set(logged)
    assert logged == list(range(len(logged)))
