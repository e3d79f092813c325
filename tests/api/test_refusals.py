"""Whatever a client sends, it gets JSON with a stable code: unknown action fields, broken
Authorization headers, bodies that do not parse or are too large, NUL characters, methods a
path does not take, and failures nobody expected."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.exc import OperationalError

from tests.api.live import (
    LiveServer,
    SeatClient,
    call,
    create_room,
    join,
    live_server,
)
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

BODY_CAP = 16_384


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with live_server() as live:
        yield live


def error_of(response: httpx.Response) -> str:
    assert response.headers["content-type"] == "application/json", response.text
    code: str = response.json()["error"]["code"]
    return code


async def started_match(server: LiveServer, game: str) -> tuple[str, list[str], int]:
    """A room with two people in a match: its id, their tokens and the seat to act."""
    room_id = create_room(server, game=game, players=2)["room_id"]
    tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
    for token in tokens:
        assert (await call(server, "POST", f"/api/rooms/{room_id}/ready", token)).is_success
    state = (await call(server, "GET", f"/api/rooms/{room_id}/state", tokens[0])).json()
    to_act = 0 if state["state"]["you"]["legal"] else 1
    return room_id, tokens, to_act


@pytest.mark.parametrize(
    ("game", "action"),
    [
        ("gin_rummy", {"type": "pass", "x": 1}),
        ("gin_rummy", {"type": "take_upcard", "card": "H1"}),
        ("rummikub", {"type": "draw", "x": 1}),
    ],
)
async def test_an_action_with_an_unknown_field_is_refused_over_rest_and_the_socket(
    server: LiveServer, game: str, action: dict[str, Any]
) -> None:
    room_id, tokens, seat = await started_match(server, game)
    path = f"/api/rooms/{room_id}/state"
    before = (await call(server, "GET", path, tokens[seat])).json()["state"]["game"]
    body = {"action": action}
    refused = await call(server, "POST", f"/api/rooms/{room_id}/actions", tokens[seat], json=body)
    assert refused.status_code == 409
    assert error_of(refused) == "bad_action"
    client = await SeatClient(server.ws_url(room_id), tokens[seat]).connect()
    reply = await client.act(action)
    assert (reply["type"], reply["code"]) == ("error", "bad_action")
    await client.close()
    # Connecting changed who is connected (the version); the game is as it was.
    assert (await call(server, "GET", path, tokens[seat])).json()["state"]["game"] == before


@pytest.mark.parametrize("header", ["Basic YW5uOnNlY3JldA==", "Bearer", "", "Token abc"])
@pytest.mark.parametrize(("method", "route"), [("GET", "state"), ("POST", "ready")])
async def test_a_malformed_authorization_header_is_refused_not_taken_for_a_spectator(
    server: LiveServer, header: str, method: str, route: str
) -> None:
    room_id = create_room(server, game="gin_rummy", players=2)["room_id"]
    async with httpx.AsyncClient(base_url=server.http) as client:
        answer = await client.request(
            method, f"/api/rooms/{room_id}/{route}", headers={"Authorization": header}
        )
    assert answer.status_code == 401
    assert error_of(answer) == "bad_authorization"
    assert answer.headers["www-authenticate"] == "Bearer"


def test_a_body_that_is_not_utf8_json_is_a_bad_request(server: LiveServer) -> None:
    answer = httpx.post(
        f"{server.http}/api/rooms",
        content=b'{"game": "\xff"}',
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 422
    assert error_of(answer) == "bad_request"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/api/rooms", {"GET", "HEAD", "POST"}),
        ("PUT", "/healthz", {"GET", "HEAD"}),
        ("PUT", "/api/rooms/abc/join", {"POST"}),
        ("POST", "/api/matches", {"GET", "HEAD"}),
        # GET and HEAD reach the client's files mounted at the root before they are refused.
        ("GET", "/api/rooms/abc/join", {"POST"}),
        ("GET", "/api/rooms/abc/actions", {"POST"}),
    ],
)
async def test_a_method_the_path_does_not_take_names_those_it_does(
    server: LiveServer, method: str, path: str, allowed: set[str]
) -> None:
    answer = await call(server, method, path)
    assert answer.status_code == 405
    assert error_of(answer) == "method_not_allowed"
    assert {m.strip() for m in answer.headers["allow"].split(",")} == allowed


def raw_exchange(server: LiveServer, head: str, body: bytes) -> tuple[int, bytes]:
    """Send a request head and part of a body on a plain socket; the status and the body."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(head.encode() + b"\r\n" + body)
        answer = b""
        while chunk := conn.recv(65_536):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[1]


def request_head(server: LiveServer, *headers: str) -> str:
    lines = [
        "POST /api/rooms HTTP/1.1",
        f"Host: 127.0.0.1:{server.port}",
        "Content-Type: application/json",
        *headers,
    ]
    return "\r\n".join(lines) + "\r\n"


def test_a_body_declared_over_the_cap_is_refused_before_it_is_read(server: LiveServer) -> None:
    # 8 MB announced, a few bytes sent: the answer comes without waiting for the rest.
    head = request_head(server, "Content-Length: 8000000")
    status, body = raw_exchange(server, head, b'{"game": ')
    assert status == 413
    assert b'"body_too_large"' in body


def test_a_streamed_body_is_refused_once_it_passes_the_cap(server: LiveServer) -> None:
    chunk = b"x" * (BODY_CAP + 1)
    head = request_head(server, "Transfer-Encoding: chunked")
    # One chunk over the cap and no last chunk: the server must not wait for the end.
    status, body = raw_exchange(server, head, f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    assert status == 413
    assert b'"body_too_large"' in body


def test_a_body_under_the_cap_is_served_as_before(server: LiveServer) -> None:
    padding = " " * (BODY_CAP - 100)
    content = f'{{"game": "gin_rummy"{padding}}}'.encode()
    answer = httpx.post(
        f"{server.http}/api/rooms", content=content, headers={"content-type": "application/json"}
    )
    assert answer.status_code == 201, answer.text


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
        return
    url = await fresh_postgres_database()
    try:
        yield url
    finally:
        await drop_postgres_database(url)


NUL_REQUESTS = [
    ("GET", "/api/players/a%00b/stats", None),
    ("GET", "/api/matches/a%00b", None),
    ("GET", "/api/matches/a%00b/replay", None),
    ("GET", "/api/matches?player=a%00b", None),
    ("GET", "/api/rooms/a%00b", None),
    ("POST", "/api/rooms", {"game": "gin_rummy", "options": {"a\u0000": 1}}),
]


async def test_nul_characters_are_refused_up_front_on_both_databases(database_url: str) -> None:
    with live_server(database_url) as server:
        room_id = create_room(server, game="gin_rummy", players=2)["room_id"]
        requests = [*NUL_REQUESTS, ("POST", f"/api/rooms/{room_id}/join", {"name": "a\u0000b"})]
        for method, path, body in requests:
            answer = await call(server, method, path, json=body)
            assert answer.status_code == 422, (path, answer.text)
            assert error_of(answer) == "bad_request"
        room = (await call(server, "GET", f"/api/rooms/{room_id}")).json()
        assert [seat["kind"] for seat in room["seats"]] == ["empty", "empty"]
        # The escaped backslash before "u0000" is text, not a NUL: that name is taken.
        joined = await call(server, "POST", f"/api/rooms/{room_id}/join", json={"name": "a\\u0000"})
        assert joined.status_code == 201, joined.text


class Broken:
    """Stands in for a store method: raises what it was given."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (RuntimeError("a bug"), 500, "internal_error"),
        (OperationalError("SELECT", {}, ConnectionRefusedError()), 503, "storage_unavailable"),
        (ConnectionResetError("gone"), 503, "storage_unavailable"),
    ],
)
async def test_an_unexpected_failure_under_a_route_is_json_with_a_code_and_logged(
    error: Exception, status: int, code: str, caplog: pytest.LogCaptureFixture
) -> None:
    with live_server() as server:
        store = server.server.config.loaded_app.app.state.store  # type: ignore[attr-defined]
        store.list_matches = Broken(error)
        store.player_stats = Broken(error)
        with caplog.at_level(logging.ERROR, logger="app.api.last_resort"):
            for path in ("/api/matches", "/api/players/ann/stats"):
                answer = await call(server, "GET", path)
                assert answer.status_code == status
                assert error_of(answer) == code
        assert len([r for r in caplog.records if r.name == "app.api.last_resort"]) == 2
        # The server goes on serving.
        assert (await call(server, "GET", "/healthz")).status_code == 200


async def test_a_socket_message_that_fails_unexpectedly_gets_an_error_and_the_socket_goes_on(
    server: LiveServer,
) -> None:
    room_id, tokens, _ = await started_match(server, "gin_rummy")
    room = server.directory.get(room_id)
    client = await SeatClient(server.ws_url(room_id), tokens[0]).connect()
    original = room.resync
    room.resync = Broken(RuntimeError("a bug"))  # type: ignore[method-assign]
    try:
        count = len(client.loose)
        await client.send({"type": "resync"})
        await client.wait_for(lambda: len(client.loose) > count)
        assert client.loose[-1]["code"] == "internal_error"
    finally:
        room.resync = original  # type: ignore[method-assign]
    reply = await client.act({"type": "no_such_action"})
    assert reply["code"] == "bad_action"
    await client.close()
