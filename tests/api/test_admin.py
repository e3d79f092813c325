"""The operator's routes: every room, closing one, a seat to a bot, a notice; each refused to
anyone without the admin token as if it did not exist."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from app.settings import Settings
from tests.api.live import LiveServer, SeatClient, bearer, call, create_room, join, live_server

ADMIN_TOKEN = "an-operator-token-of-more-than-32-characters"
ADMIN = bearer(ADMIN_TOKEN)
SHORT_GIN = {"target": 30}


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server(admin_token=ADMIN_TOKEN) as live:
        yield live


async def admin(server: LiveServer, method: str, path: str, **kwargs: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.http, headers=ADMIN) as client:
        return await client.request(method, f"/api/admin{path}", **kwargs)


def unknown_path(server: LiveServer) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{server.http}/api/no-such-path").json()
    return answer


async def playing_room(server: LiveServer, **options: Any) -> tuple[str, str, SeatClient]:
    """A Gin Rummy room of ann (seat 0, connected) and a bot, its match under way."""
    room = create_room(
        server, game="gin_rummy", players=2, options=SHORT_GIN, bots=[{"seat": 1}], **options
    )
    room_id = room["room_id"]
    token = join(server, room_id, "ann", seat=0)
    ann = await SeatClient(server.ws_url(room_id), token).connect()
    await ann.send({"type": "ready"})
    await ann.wait_for(lambda: ann.status == "playing")
    return room_id, token, ann


def test_a_short_admin_token_is_refused_at_start() -> None:
    with pytest.raises(ValidationError, match="at least 32 characters"):
        Settings(admin_token="x" * 31)
    assert Settings(admin_token="x" * 32).admin_token == "x" * 32


def test_a_log_format_other_than_text_or_json_is_refused_at_start() -> None:
    with pytest.raises(ValidationError, match="'text' or 'json'"):
        Settings(log_format="xml")  # type: ignore[arg-type]


def test_the_admin_routes_do_not_exist_without_the_token_set() -> None:
    with live_server() as server:
        for headers in ({}, ADMIN):
            answer = httpx.get(f"{server.http}/api/admin/rooms", headers=headers)
            assert (answer.status_code, answer.json()) == (404, unknown_path(server))


def test_the_admin_routes_answer_only_their_token(server: LiveServer) -> None:
    unknown = unknown_path(server)
    for headers in (
        {},
        bearer("wrong"),
        bearer(ADMIN_TOKEN[:-1]),
        bearer(ADMIN_TOKEN + "x"),
        {"Authorization": f"Basic {ADMIN_TOKEN}"},
    ):
        for method, path, body in (
            ("GET", "/api/admin/rooms", None),
            ("POST", "/api/admin/notice", {"text": "hello"}),
            ("POST", "/api/admin/notice", {"not": "a notice"}),
            ("DELETE", "/api/admin/rooms", None),
            ("POST", "/api/admin/rooms/nope/close", {}),
        ):
            answer = httpx.request(method, f"{server.http}{path}", json=body, headers=headers)
            assert (answer.status_code, answer.json()) == (404, unknown), (headers, path)
    assert httpx.get(f"{server.http}/api/admin/rooms", headers=ADMIN).status_code == 200


async def test_every_room_is_listed_private_ones_too_with_seats_node_and_idle_time(
    server: LiveServer,
) -> None:
    room_id, _, ann = await playing_room(server, public=False)
    waiting = create_room(server, game="rummikub", players=3, public=True)
    answer = await admin(server, "GET", "/rooms")
    assert answer.status_code == 200, answer.text
    rooms = {room["room_id"]: room for room in answer.json()["rooms"]}
    node = server.server.config.loaded_app.app.state.node_id  # type: ignore[attr-defined]

    playing = rooms[room_id]
    assert (playing["status"], playing["public"], playing["node"]) == ("playing", False, node)
    assert playing["idle_s"] == 0
    assert playing["connections"] == 1
    assert [(s["name"], s["kind"], s["connections"]) for s in playing["seats"]] == [
        ("ann", "human", 1),
        ("Bot 2", "bot", 0),
    ]
    assert playing["match_id"] is not None
    idle = rooms[waiting["room_id"]]
    assert (idle["status"], idle["game"], idle["connections"]) == ("waiting", "rummikub", 0)
    assert idle["idle_s"] >= 0
    await ann.close()


async def test_closing_a_room_keeps_its_match_as_abandoned_and_tells_its_sockets_why(
    server: LiveServer,
) -> None:
    room_id, token, ann = await playing_room(server)
    watcher = await SeatClient(server.ws_url(room_id), None).connect()
    match_id = ann.doc["room"]["match_id"]  # type: ignore[index]

    answer = await admin(server, "POST", f"/rooms/{room_id}/close", json={"reason": "maintenance"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["room_id"] == room_id
    for client in (ann, watcher):
        await client.wait_for(lambda c=client: c.closed.is_set())  # type: ignore[misc]
        assert client.close_code == 4410
        told = [message for _, message in client.received if '"room_closed"' in message]
        assert told == ['{"type":"room_closed","reason":"maintenance"}']

    gone = await call(server, "GET", f"/api/rooms/{room_id}")
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "room_not_found")
    kept = await call(server, "GET", f"/api/matches/{match_id}", token)
    assert kept.status_code == 200, kept.text
    assert kept.json()["status"] == "abandoned"
    again = await admin(server, "POST", f"/rooms/{room_id}/close", json={})
    assert (again.status_code, again.json()["error"]["code"]) == (404, "room_not_found")
    listed = (await admin(server, "GET", "/rooms")).json()["rooms"]
    assert room_id not in {room["room_id"] for room in listed}


async def test_a_persons_seat_is_handed_to_a_bot_at_once(server: LiveServer) -> None:
    room_id, token, ann = await playing_room(server)
    answer = await admin(server, "POST", f"/rooms/{room_id}/seats/0/bot", json={"level": "easy"})
    assert answer.status_code == 200, answer.text
    seat = answer.json()["seats"][0]
    assert (seat["kind"], seat["level"], seat["name"]) == ("bot", "easy", "ann")
    # Two bots play the match to its end; ann's socket watches.
    await ann.wait_for(lambda: ann.status in ("between_hands", "finished"), seconds=60)
    await ann.close()

    room_id, token, ann = await playing_room(server)
    answer = await admin(server, "POST", f"/rooms/{room_id}/seats/0/bot", json={"revoke": True})
    assert answer.status_code == 200, answer.text
    await ann.wait_for(lambda: ann.closed.is_set())
    assert ann.close_code == 4401
    refused = await call(server, "GET", f"/api/rooms/{room_id}/state", token)
    assert refused.json()["error"]["code"] == "bad_token"


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/rooms/no-such-room/seats/0/bot", {}, 404, "room_not_found"),
        ("/rooms/no-such-room/close", {}, 404, "room_not_found"),
        ("/rooms/{room}/seats/1/bot", {}, 409, "not_a_person"),
        ("/rooms/{room}/seats/7/bot", {}, 400, "bad_seat"),
        ("/rooms/{room}/seats/0/bot", {"level": "godlike"}, 422, "bad_request"),
        ("/rooms/{room}/close", {"reason": ""}, 422, "bad_request"),
    ],
)
async def test_admin_refusals_carry_a_code_and_change_nothing(
    server: LiveServer, path: str, body: dict[str, Any], status: int, code: str
) -> None:
    room_id, _, ann = await playing_room(server)
    answer = await admin(server, "POST", path.format(room=room_id), json=body)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    listed = {
        room["room_id"]: room for room in (await admin(server, "GET", "/rooms")).json()["rooms"]
    }
    assert [seat["kind"] for seat in listed[room_id]["seats"]] == ["human", "bot"]
    await ann.close()


async def test_a_notice_reaches_every_socket_of_every_room(server: LiveServer) -> None:
    _first, _, ann = await playing_room(server)
    second = create_room(server, game="rummikub", players=2)
    watcher = await SeatClient(server.ws_url(second["room_id"]), None).connect()

    answer = await admin(server, "POST", "/notice", json={"text": "  restarting in 5 minutes "})
    assert answer.status_code == 202, answer.text
    posted = answer.json()
    assert (posted["type"], posted["text"]) == ("notice", "restarting in 5 minutes")
    for client in (ann, watcher):
        await client.wait_for(lambda c=client: any('"notice"' in m for _, m in c.received))  # type: ignore[misc]
        notices = [m for _, m in client.received if '"type":"notice"' in m]
        assert notices == [
            f'{{"type":"notice","text":"restarting in 5 minutes","at":{posted["at"]}}}'
        ]
    await asyncio.gather(ann.close(), watcher.close())


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "notice_empty"),
        ("   ", "notice_empty"),
        ("x" * 301, "notice_too_long"),
        ("restarting\nsoon", "notice_bad_characters"),
        ("left \u202eright", "notice_bad_characters"),
        ("bell \x07", "notice_bad_characters"),
    ],
)
async def test_a_notice_that_is_empty_too_long_or_holds_control_characters_is_refused(
    server: LiveServer, text: str, code: str
) -> None:
    answer = await admin(server, "POST", "/notice", json={"text": text})
    assert (answer.status_code, answer.json()["error"]["code"]) == (422, code)


async def test_a_notice_of_300_characters_is_taken(server: LiveServer) -> None:
    answer = await admin(server, "POST", "/notice", json={"text": "\u670d" * 300})
    assert answer.status_code == 202, answer.text


async def test_a_waiting_room_left_to_bots_by_the_operator_starts_once_full(
    server: LiveServer,
) -> None:
    room = create_room(server, game="gin_rummy", players=2, options=SHORT_GIN, bots=[{"seat": 1}])
    room_id = room["room_id"]
    join(server, room_id, "ann", seat=0)
    answer = await admin(server, "POST", f"/rooms/{room_id}/seats/0/bot", json={})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] != "waiting"
