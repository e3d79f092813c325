"""The database refused for a while under a real server with rooms playing, on both databases.

PostgreSQL: the test's own database stops taking connections and its sessions are ended
(`ALLOW_CONNECTIONS false` plus `pg_terminate_backend`); the shared server keeps running.
SQLite: another connection holds the write lock past the server's busy timeout.

While it lasts every REST answer is JSON with a code (history reads and writes included) and a
person's move over the socket gets an `error` with a code. Once it is over every room moves
again, and every action acknowledged before, during or after is in the log.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from sqlalchemy.engine import make_url

from app.storage.store import open_store
from tests.api.live import LiveServer, SeatClient, create_room, join, live_server
from tests.conftest import POSTGRES_URL
from tests.storage.databases import drop_postgres_database, fresh_postgres_database, plain_dsn

# Long enough for every kind of room to hit the outage at least once; SQLite's must pass the
# server's busy timeout (5 s), or the writes would only wait, not fail.
OUTAGE_S = {"postgres": 2.0, "sqlite": 6.5}
# A bound for the test to fail by, not a speed claim: rooms come back within a few seconds.
RECOVERY_BOUND_S = 30.0
FAULT_SETTINGS = {"bot_delay_ms": 50, "between_hands_s": 0, "log_level": "error"}
# Matches long enough to be still playing when the test ends.
LONG_MATCH = {"gin_rummy": {"target": 10_000}, "rummikub": {"rounds": 50}}

Outage = Callable[[], Awaitable[None]]


@asynccontextmanager
async def postgres_outage_switch() -> AsyncIterator[tuple[str, Outage, Outage]]:
    url = await fresh_postgres_database()
    name = make_url(url).database
    admin = await asyncpg.connect(plain_dsn(POSTGRES_URL), timeout=5)

    async def refuse() -> None:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )

    async def restore() -> None:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')

    try:
        yield url, refuse, restore
    finally:
        await restore()
        await admin.close()
        await drop_postgres_database(url)


@asynccontextmanager
async def sqlite_outage_switch(folder: Path) -> AsyncIterator[tuple[str, Outage, Outage]]:
    path = folder / "meldhall.db"
    holder: list[sqlite3.Connection] = []

    async def refuse() -> None:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        connection.execute("BEGIN IMMEDIATE")
        holder.append(connection)

    async def restore() -> None:
        while holder:
            connection = holder.pop()
            connection.execute("ROLLBACK")
            connection.close()

    try:
        yield f"sqlite+aiosqlite:///{path}", refuse, restore
    finally:
        await restore()


def progress(server: LiveServer, room_ids: list[str]) -> dict[str, int]:
    """Each room's count of logged actions (its match's next index)."""
    counts = {}
    for room_id in room_ids:
        match = server.directory.get(room_id).match
        counts[room_id] = 0 if match is None else match.next_index
    return counts


async def wait_until(done: Callable[[], bool], seconds: float) -> None:
    for _ in range(int(seconds * 20)):
        if done():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not done within {seconds} s")


def assert_json_with_code(response: httpx.Response) -> None:
    assert response.headers["content-type"] == "application/json", response.text
    if response.status_code >= 400:
        assert isinstance(response.json()["error"]["code"], str), response.text
        assert response.status_code in (409, 503), response.text


async def probe_every_kind_of_call(
    http: httpx.AsyncClient, room_id: str, match_id: str, token: str
) -> list[httpx.Response]:
    auth = {"Authorization": f"Bearer {token}"}
    return [
        await http.get("/api/matches", headers=auth),
        await http.get("/api/matches", params={"player": "ann"}),
        # The room is private: a seat token of the match reads its history.
        await http.get(f"/api/matches/{match_id}", headers=auth),
        await http.get(f"/api/matches/{match_id}/replay", headers=auth),
        await http.get("/api/players/ann/stats"),
        await http.post("/api/rooms", json={"game": "gin_rummy"}),
        await http.post(f"/api/rooms/{room_id}/ready", headers=auth),
        await http.get(f"/api/rooms/{room_id}/state", headers=auth),
        await http.get("/healthz"),
    ]


async def play_as_person(client: SeatClient, acks: list[int], errors: list[dict[str, Any]]) -> None:
    """Keep making the first legal move whenever the seat may act; note every answer."""
    while not client.closed.is_set():
        if client.doc is not None and client.legal and client.status == "playing":
            reply = await client.act(client.legal[0])
            if reply["type"] == "ack":
                acks.append(reply["version"])
            else:
                errors.append(reply)
                await asyncio.sleep(0.1)
        else:
            await client.wait_for(lambda: client.closed.is_set() or bool(client.legal), 30)


@pytest.mark.parametrize(
    "database", [pytest.param("postgres", marks=pytest.mark.postgres), "sqlite"]
)
async def test_rooms_move_again_and_lose_nothing_after_the_database_was_refused(
    database: str, tmp_path: Path
) -> None:
    switch = postgres_outage_switch() if database == "postgres" else sqlite_outage_switch(tmp_path)
    async with switch as (url, refuse, restore):
        with live_server(url, **FAULT_SETTINGS) as server:
            bots = [{"seat": 0, "level": "easy"}, {"seat": 1, "level": "easy"}]
            room_ids = [
                create_room(server, game=game, players=2, bots=bots, options=LONG_MATCH[game])[
                    "room_id"
                ]
                for game in ("gin_rummy", "gin_rummy", "rummikub", "rummikub")
            ]
            person_room = create_room(
                server,
                game="gin_rummy",
                players=2,
                bots=[{"seat": 1}],
                options=LONG_MATCH["gin_rummy"],
            )
            person_id = person_room["room_id"]
            token = join(server, person_id, "ann", seat=0)
            room_ids.append(person_id)
            client = await SeatClient(server.ws_url(person_id), token).connect()
            await client.send({"type": "ready"})
            acks: list[int] = []
            refused_moves: list[dict[str, Any]] = []
            person = asyncio.create_task(play_as_person(client, acks, refused_moves))
            await wait_until(lambda: all(progress(server, room_ids).values()), RECOVERY_BOUND_S)
            match_id = server.directory.get(person_id).match.match_id  # type: ignore[union-attr]

            await refuse()
            answers: list[httpx.Response] = []
            async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
                deadline = asyncio.get_running_loop().time() + OUTAGE_S[database]
                while asyncio.get_running_loop().time() < deadline:
                    answers += await probe_every_kind_of_call(http, person_id, match_id, token)
                    await asyncio.sleep(0.2)
                await restore()
                during = progress(server, room_ids)
                await wait_until(
                    lambda: all(
                        count > during[room] for room, count in progress(server, room_ids).items()
                    ),
                    RECOVERY_BOUND_S,
                )
                acked_after = len(acks)
                await wait_until(lambda: len(acks) > acked_after, RECOVERY_BOUND_S)
                answers += await probe_every_kind_of_call(http, person_id, match_id, token)
            person.cancel()
            await asyncio.gather(person, return_exceptions=True)
            await client.close()
            logged = progress(server, room_ids)
            matches = {
                room: server.directory.get(room).match.match_id  # type: ignore[union-attr]
                for room in room_ids
            }

        for response in answers:
            assert_json_with_code(response)
        assert any(r.status_code == 503 for r in answers), "the outage was never felt"
        assert all(e["code"] == "storage_unavailable" for e in refused_moves), refused_moves
        # Nothing acknowledged is lost: every logged action of every room is in the store,
        # without a gap, and the person's acknowledged moves are all there.
        store = open_store(url)
        await store.start()
        try:
            for room, match_id in matches.items():
                stored = await store.load_match(match_id=match_id)
                assert stored is not None
                indices = [action.index for action in stored.actions]
                assert indices == list(range(len(indices)))
                assert len(indices) >= logged[room]
            person_match = await store.load_match(match_id=matches[person_id])
            assert person_match is not None
            assert sum(1 for a in person_match.actions if a.seat == 0) >= len(acks)
        finally:
            await store.close()
