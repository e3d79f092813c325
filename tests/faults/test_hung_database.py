"""A PostgreSQL that stops answering (not refusing) under a real server: nothing waits for ever.

The server reaches PostgreSQL through a proxy of the test's that can freeze: it keeps every
connection open and holds what either side sends, as a hung server or a network dropping
packets would, and delivers it when thawed. While frozen a move and a history read are
answered 503 within the store's timeouts, lowered here from their defaults. The move's write
reached the proxy, so PostgreSQL commits it once thawed, though the server had given it up:
the room takes that action in at its next write, and holds what its log holds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

import app.storage.database
import app.storage.sql_store
from app.games.registry import engine_for
from app.storage.migrate import upgrade_to_head
from app.storage.store import open_store
from tests.api.live import bearer, create_room, join, live_server
from tests.proxies import FreezingProxy
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

pytestmark = pytest.mark.postgres

TIMEOUT_S = 2.0
# A bound for the test to fail by: the statement's timeout, then a reconnection's.
ANSWER_BOUND_S = 4 * TIMEOUT_S + 5


@contextmanager
def short_store_timeouts() -> Iterator[None]:
    saved = app.storage.database.CONNECT_TIMEOUT_S, app.storage.sql_store.STATEMENT_TIMEOUT_S
    app.storage.database.CONNECT_TIMEOUT_S = TIMEOUT_S
    app.storage.sql_store.STATEMENT_TIMEOUT_S = TIMEOUT_S
    try:
        yield
    finally:
        app.storage.database.CONNECT_TIMEOUT_S, app.storage.sql_store.STATEMENT_TIMEOUT_S = saved


async def a_move(http: httpx.AsyncClient, room_id: str, token: str) -> dict[str, Any]:
    """The person's next action with the version it was read at (the bot moves in between)."""
    for _ in range(500):
        answer = (await http.get(f"/api/rooms/{room_id}/legal", headers=bearer(token))).json()
        if answer["actions"]:
            return {"action": answer["actions"][0], "version": answer["version"]}
        await asyncio.sleep(0.02)
    raise AssertionError("the person could not act for 10 s")


async def test_a_hung_database_is_answered_in_bounded_time_and_the_room_holds_its_log() -> None:
    url = await fresh_postgres_database()
    proxy: FreezingProxy | None = None
    try:
        await upgrade_to_head(url)
        parsed = make_url(url)
        proxy = FreezingProxy(parsed.host or "127.0.0.1", parsed.port or 5432).start()
        proxied = parsed.set(host="127.0.0.1", port=proxy.port).render_as_string(False)
        with short_store_timeouts(), live_server(proxied, bot_delay_ms=0) as server:
            bots = [{"seat": 1, "level": "easy"}]
            room_id = create_room(server, game="gin_rummy", players=2, bots=bots)["room_id"]
            token = join(server, room_id, "ann", seat=0)
            async with httpx.AsyncClient(base_url=server.http, timeout=60) as http:
                await http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
                for _ in range(3):
                    move = await a_move(http, room_id, token)
                    answer = await http.post(
                        f"/api/rooms/{room_id}/actions", headers=bearer(token), json=move
                    )
                    assert answer.status_code == 200, answer.text
                move = await a_move(http, room_id, token)

                proxy.freeze()
                started = time.monotonic()
                refused = await http.post(
                    f"/api/rooms/{room_id}/actions", headers=bearer(token), json=move
                )
                took = time.monotonic() - started
                assert refused.status_code == 503, refused.text
                assert refused.json()["error"]["code"] == "storage_unavailable"
                assert "may have been saved" in refused.json()["error"]["message"]
                assert took < ANSWER_BOUND_S, f"the move was answered after {took:.1f} s"
                started = time.monotonic()
                history = await http.get("/api/matches")
                took = time.monotonic() - started
                assert history.status_code == 503, history.text
                assert took < ANSWER_BOUND_S, f"the history was answered after {took:.1f} s"

                proxy.thaw()
                # The frozen write reached PostgreSQL once thawed: the same move again finds
                # it in the log, and the room takes it in (or, had it not landed, makes it).
                deadline = time.monotonic() + ANSWER_BOUND_S
                while True:
                    again = await http.post(
                        f"/api/rooms/{room_id}/actions", headers=bearer(token), json=move
                    )
                    if again.status_code != 503 or time.monotonic() > deadline:
                        break
                    await asyncio.sleep(0.2)
                assert again.status_code in (200, 409), again.text
                if again.status_code == 409:
                    assert again.json()["error"]["code"] == "stale_version"
                for _ in range(3):
                    move = await a_move(http, room_id, token)
                    answer = await http.post(
                        f"/api/rooms/{room_id}/actions", headers=bearer(token), json=move
                    )
                    assert answer.status_code == 200, answer.text
            room = server.directory.get(room_id)
            assert room is not None
            assert room.match is not None
            match_id = room.match.match_id
        # Read once the server has stopped: the bot (no delay) may still be moving after the
        # person's last answer, and its moves are logged like any other.
        live_engine = room.match.engine.to_json()

        store = open_store(url)
        await store.start()
        try:
            stored = await store.load_match(match_id=match_id)
        finally:
            await store.close()
        assert stored is not None
        assert [a.index for a in stored.actions] == list(range(len(stored.actions)))
        replayed = engine_for(stored.game).new(stored.config, stored.players, seed=stored.seed)
        for logged in stored.actions:
            replayed.apply(logged.seat, logged.action)
        assert replayed.to_json() == live_engine
    finally:
        if proxy is not None:
            proxy.stop()
        await drop_postgres_database(url)
