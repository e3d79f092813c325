"""Generated REST requests and socket messages against a real server: no 5xx, no unhandled
exception in the log, every refusal JSON with a code from the table, and a refused input leaves
the game exactly as it was. Bounded by example counts so that CI stays fast."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from app.api.error_codes import ERROR_CODES
from app.api.messages import BadMessage, Ping, parse
from app.rooms.room import Room
from tests.api.live import LiveServer, create_room, join, live_server
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

EXAMPLES = 250
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class Collected(logging.Handler):
    """Every record at ERROR or above, from any thread."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class Table:
    server: LiveServer
    room_id: str
    tokens: list[str]
    errors: Collected

    @property
    def room(self) -> Room:
        return self.server.directory.get(self.room_id)

    def game(self) -> Any:
        """The game and the seats as they stand (the room's engine state, seats' kinds)."""
        room = self.room
        assert room.match is not None
        return room.match.engine.to_json(), [seat.kind for seat in room.seats], room.status


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    # PostgreSQL too: it is the one that cannot store a NUL character in text.
    if request.param == "sqlite":
        folder: Path = tmp_path_factory.mktemp("fuzz")
        yield f"sqlite+aiosqlite:///{folder / 'meldhall.db'}"
        return
    url = asyncio.run(fresh_postgres_database())
    try:
        yield url
    finally:
        asyncio.run(drop_postgres_database(url))


@pytest.fixture(scope="module")
def table(database_url: str) -> Iterator[Table]:
    errors = Collected()
    watched = [logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "app")]
    for logger in watched:
        logger.addHandler(errors)
    # Slow bots: rooms the fuzzer creates full of bots play without taking the machine. No
    # pause between hands: only both seats being ready deals, inside the request that does.
    overrides = {"bot_delay_ms": 2_000, "between_hands_s": 3_600, "log_level": "error"}
    with live_server(database_url, **overrides) as server:
        room_id = create_room(server, game="gin_rummy", players=2, options={"target": 10_000})[
            "room_id"
        ]
        tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
        for token in tokens:
            headers = {"Authorization": f"Bearer {token}"}
            assert httpx.post(f"{server.http}/api/rooms/{room_id}/ready", headers=headers)
        yield Table(server, room_id, tokens, errors)
    for logger in watched:
        logger.removeHandler(errors)


def unhandled(errors: Collected) -> list[str]:
    return [record.getMessage() for record in errors.records]


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """Where two JSON-like values differ, as paths with both values (for a failure's message)."""
    if isinstance(before, dict) and isinstance(after, dict):
        keys = sorted(set(before) | set(after), key=str)
        return [d for k in keys for d in differences(before.get(k), after.get(k), f"{path}/{k}")]
    sequences = isinstance(before, list | tuple) and isinstance(after, list | tuple)
    if sequences and len(before) == len(after):
        pairs = zip(before, after, strict=True)
        return [d for i, (b, a) in enumerate(pairs) for d in differences(b, a, f"{path}/{i}")]
    return [] if before == after else [f"{path}: {before!r} -> {after!r}"]


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.sampled_from(["H1", "S13", "R5a", "J1", "new", "stock", "discard", "\u0000", "a\u0000b"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
action_types = st.sampled_from(
    ["pass", "take_upcard", "draw", "discard", "knock", "gin", "big_gin", "next_hand", "play",
     "move", "split", "merge", "timeout", "", "x" * 100]
)  # fmt: skip
action_fields = st.sampled_from(
    ["source", "card", "melds", "table", "jokers", "tile", "to", "pos", "x", "type", "seat"]
)
actions = st.builds(
    lambda kind, extra: {"type": kind, **extra},
    action_types,
    st.dictionaries(action_fields, json_values, max_size=3),
)
bodies = st.one_of(
    json_values,
    st.builds(lambda action, version: {"action": action, "version": version}, actions, scalars),
    st.dictionaries(
        st.sampled_from(["game", "players", "options", "bots", "public", "name", "seat", "level"]),
        json_values,
        max_size=4,
    ),
)
ROUTES = [
    ("POST", "/api/rooms/{room}/actions"),
    ("GET", "/api/rooms/{room}/state"),
    ("GET", "/api/rooms/{room}/legal"),
    ("POST", "/api/rooms/{room}/ready"),
    ("POST", "/api/rooms/{room}/rematch"),
    ("POST", "/api/rooms/{room}/join"),
    ("POST", "/api/rooms/{room}/bots"),
    ("DELETE", "/api/rooms/{room}/bots/{text}"),
    ("GET", "/api/rooms/{room}/hint"),
    ("POST", "/api/rooms"),
    ("GET", "/api/rooms?game={text}"),
    ("GET", "/api/matches?player={text}&limit={text}"),
    ("GET", "/api/matches/{text}"),
    ("GET", "/api/matches/{text}/replay"),
    ("GET", "/api/players/{text}/stats"),
    ("PATCH", "/api/rooms/{room}"),
]
path_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="/?#"), min_size=1, max_size=12
)


@FUZZ_SETTINGS
@given(
    route=st.sampled_from(ROUTES),
    text=path_text,
    body=st.one_of(st.none(), bodies.map(lambda value: json.dumps(value).encode()), st.binary()),
    auth=st.sampled_from(["seat0", "seat1", "none", "Basic eA==", "Bearer", "Bearer nope"]),
)
def test_generated_rest_requests_get_json_answers_and_refusals_change_nothing(
    table: Table, route: tuple[str, str], text: str, body: bytes | None, auth: str
) -> None:
    method, template = route
    path = template.format(room=table.room_id, text=quote(text, safe=""))
    headers = {"content-type": "application/json"}
    if auth.startswith("seat"):
        headers["Authorization"] = f"Bearer {table.tokens[int(auth[-1])]}"
    elif auth != "none":
        headers["Authorization"] = auth
    before = table.game()
    answer = httpx.request(
        method, f"{table.server.http}{path}", content=body, headers=headers, timeout=30
    )
    assert answer.status_code < 500, answer.text
    assert answer.headers["content-type"] == "application/json", answer.text
    if answer.status_code >= 400:
        assert answer.json()["error"]["code"] in ERROR_CODES, answer.text
        after = table.game()
        assert after == before, differences(before, after)
    assert unhandled(table.errors) == []


messages = st.one_of(
    json_values.map(json.dumps),
    st.text(max_size=40),
    st.builds(
        lambda seq, action, version: json.dumps(
            {"type": "action", "seq": seq, "action": action, "version": version}
        ),
        st.integers(min_value=0, max_value=2**31),
        actions,
        st.none() | st.integers(min_value=-5, max_value=10_000),
    ),
    st.builds(
        lambda kind, extra: json.dumps({"type": kind, **extra}),
        st.sampled_from(["ready", "resync", "hint", "hello", "action", "ping", "nope"]),
        st.dictionaries(st.sampled_from(["seq", "token", "action", "x"]), json_values, max_size=2),
    ),
)


def replies_until_pong(socket: ClientConnection, pongs: int = 1) -> list[dict[str, Any]]:
    """What came before the `pongs`-th pong (the pong of the ping sent after a message)."""
    replies: list[dict[str, Any]] = []
    while True:
        message = json.loads(socket.recv(timeout=30))
        if message["type"] != "pong":
            replies.append(message)
            continue
        pongs -= 1
        if pongs == 0:
            return replies


def is_a_ping(message: str) -> bool:
    """Whether the server answers `message` itself with a pong. Its pong must be read too:
    left unread, it would end the next example's replies before that example's own answer,
    and each later example would be judged by the answer to the one before."""
    try:
        return isinstance(parse(message), Ping)
    except BadMessage:
        return False


def asks_for_a_hint(message: str) -> bool:
    try:
        value = json.loads(message)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("type") == "hint"


@pytest.fixture(scope="module")
def seat_socket(table: Table) -> Iterator[ClientConnection]:
    with connect(table.server.ws_url(table.room_id)) as socket:
        socket.send(json.dumps({"type": "hello", "token": table.tokens[0]}))
        assert json.loads(socket.recv(timeout=30))["type"] == "snapshot"
        yield socket


@FUZZ_SETTINGS
@given(message=messages)
def test_generated_socket_messages_get_coded_errors_and_refusals_change_nothing(
    table: Table, seat_socket: ClientConnection, message: str
) -> None:
    before = table.game()
    seat_socket.send(message)
    seat_socket.send(json.dumps({"type": "ping"}))
    replies = replies_until_pong(seat_socket, pongs=2 if is_a_ping(message) else 1)
    if asks_for_a_hint(message) and not any(r["type"] in ("hint", "error") for r in replies):
        # A hint is worked out while later messages are answered: its answer is this example's,
        # not the next one's (where an error would be taken for that message's refusal).
        replies.append(json.loads(seat_socket.recv(timeout=30)))
    errors = [reply for reply in replies if reply["type"] == "error"]
    for error in errors:
        assert error["code"] in ERROR_CODES, error
        assert not error["code"].startswith(("internal", "storage")), error
    if errors and not any(reply["type"] == "ack" for reply in replies):
        after = table.game()
        assert after == before, (replies, differences(before, after))
    assert unhandled(table.errors) == []
