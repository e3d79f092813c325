"""Hints over REST: a seat to act gets a move it can send as it is; others get a stable error."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.rooms.tokens import hash_token
from tests.api.live import LiveServer, bearer, create_room, join, live_server
from tests.api.play import strings

STEPS = 14


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server() as live:
        yield live


@pytest.fixture
def http(server):  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=server.http, timeout=30) as client:
        yield client


def started_room(
    server: LiveServer, http: httpx.Client, game: str, **body: Any
) -> tuple[str, list[str]]:
    """A two-person room whose match has begun; returns its id and both seat tokens."""
    room_id = create_room(server, game=game, players=2, **body)["room_id"]
    tokens = [join(server, room_id, name, seat) for seat, name in enumerate(("ann", "bo"))]
    for token in tokens:
        assert http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token)).status_code == 200
    assert http.get(f"/api/rooms/{room_id}").json()["status"] == "playing"
    return room_id, tokens


def seat_to_act(http: httpx.Client, room_id: str, tokens: list[str]) -> tuple[str, str]:
    """(the token of the seat with legal actions, the other seat's token)."""
    legal = [
        http.get(f"/api/rooms/{room_id}/legal", headers=bearer(token)).json()["actions"]
        for token in tokens
    ]
    assert sum(1 for actions in legal if actions) == 1, legal
    return (tokens[0], tokens[1]) if legal[0] else (tokens[1], tokens[0])


def error_code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


def hidden_from(server: LiveServer, room_id: str, token: str) -> set[str]:
    """What the engine hides from the token's seat right now."""
    room = server.directory.get(room_id)
    assert room.match is not None
    return room.match.engine.hidden_from(room.seat_for(hash_token(token)).index)


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
def test_a_hint_for_the_seat_to_act_is_accepted_when_sent_and_names_nothing_hidden(
    server, http, game
) -> None:
    room_id, tokens = started_room(server, http, game)
    for _ in range(STEPS):
        if http.get(f"/api/rooms/{room_id}").json()["status"] != "playing":
            break
        actor, _ = seat_to_act(http, room_id, tokens)
        hidden = hidden_from(server, room_id, actor)
        answer = http.get(f"/api/rooms/{room_id}/hint", headers=bearer(actor))
        assert answer.status_code == 200, answer.text
        hint = answer.json()
        assert set(hint) == {"version", "action"}
        assert [name for _, name in strings(hint["action"]) if name in hidden] == []
        sent = http.post(
            f"/api/rooms/{room_id}/actions",
            headers=bearer(actor),
            json={"action": hint["action"], "version": hint["version"]},
        )
        assert sent.status_code == 200, sent.text


def test_a_room_created_without_hints_says_so_and_refuses_them(server, http) -> None:
    room_id, tokens = started_room(server, http, "gin_rummy", hints=False)
    assert http.get(f"/api/rooms/{room_id}").json()["hints"] is False
    actor, _ = seat_to_act(http, room_id, tokens)
    answer = http.get(f"/api/rooms/{room_id}/hint", headers=bearer(actor))
    assert (answer.status_code, error_code(answer)) == (403, "hints_disabled")


def test_rooms_allow_hints_unless_told_otherwise(server, http) -> None:
    assert create_room(server, game="rummikub")["hints"] is True


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
def test_a_seat_whose_turn_it_is_not_gets_no_hint(server, http, game) -> None:
    room_id, tokens = started_room(server, http, game)
    _, waiting = seat_to_act(http, room_id, tokens)
    answer = http.get(f"/api/rooms/{room_id}/hint", headers=bearer(waiting))
    assert (answer.status_code, error_code(answer)) == (409, "no_hint")


def test_a_hint_before_the_match_or_without_a_seat_token_is_refused(server, http) -> None:
    room_id = create_room(server, game="gin_rummy")["room_id"]
    token = join(server, room_id, "ann")
    early = http.get(f"/api/rooms/{room_id}/hint", headers=bearer(token))
    anonymous = http.get(f"/api/rooms/{room_id}/hint")
    stranger = http.get(f"/api/rooms/{room_id}/hint", headers=bearer("not-a-seat-token"))
    nowhere = http.get("/api/rooms/nowhere/hint", headers=bearer(token))
    assert (early.status_code, error_code(early)) == (409, "no_hint")
    assert (anonymous.status_code, error_code(anonymous)) == (401, "missing_token")
    assert (stranger.status_code, error_code(stranger)) == (401, "bad_token")
    assert (nowhere.status_code, error_code(nowhere)) == (404, "room_not_found")
