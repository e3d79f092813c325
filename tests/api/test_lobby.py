"""The lobby over REST: games, rooms, seats, bots, ready, acting without a socket."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.api.live import bearer, create_room, join, live_server


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server() as live:
        yield live


@pytest.fixture
def http(server):  # type: ignore[no-untyped-def]
    with httpx.Client(base_url=server.http) as client:
        yield client


def error_code(response: httpx.Response) -> str:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    code: str = body["error"]["code"]
    return code


def test_games_list_both_games_with_seat_ranges_and_option_defaults(http) -> None:
    games = {game["name"]: game for game in http.get("/api/games").json()["games"]}
    assert (games["gin_rummy"]["min_players"], games["gin_rummy"]["max_players"]) == (2, 4)
    assert (games["rummikub"]["min_players"], games["rummikub"]["max_players"]) == (2, 4)
    assert any(option["name"] == "turn_timer_s" for option in games["rummikub"]["options"])


def test_a_new_room_waits_with_empty_seats_and_an_invite_path(http) -> None:
    room = http.post("/api/rooms", json={"game": "rummikub", "players": 3}).json()
    assert room["status"] == "waiting"
    assert [seat["kind"] for seat in room["seats"]] == ["empty"] * 3
    assert room["invite_path"] == f"/r/{room['room_id']}"
    assert http.get(f"/api/rooms/{room['room_id']}").json()["room_id"] == room["room_id"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess"}, 400, "unknown_game"),
        ({"game": "gin_rummy", "players": 5}, 400, "bad_players"),
        ({"game": "rummikub", "options": {"turn_timer_s": -1}}, 400, "bad_config"),
        ({"game": "rummikub", "options": {"colour": "red"}}, 400, "bad_config"),
        ({"game": "rummikub", "bots": [{"level": "godlike"}]}, 422, "bad_request"),
        ({"game": "rummikub", "surprise": 1}, 422, "bad_request"),
        ({}, 422, "bad_request"),
    ],
)
def test_bad_room_requests_are_refused_with_one_error_shape(http, body, status, code) -> None:
    response = http.post("/api/rooms", json=body)
    assert response.status_code == status
    assert error_code(response) == code


def test_joining_takes_free_seats_until_the_room_is_full(server, http) -> None:
    room = create_room(server, game="gin_rummy", players=2)
    path = f"/api/rooms/{room['room_id']}/join"
    first = http.post(path, json={"name": "ann", "seat": 1}).json()
    assert first["seat"] == 1
    assert len(first["token"]) >= 43
    taken = http.post(path, json={"name": "bob", "seat": 1})
    assert (taken.status_code, error_code(taken)) == (409, "seat_taken")
    assert http.post(path, json={"name": "bob"}).json()["seat"] == 0
    full = http.post(path, json={"name": "cy"})
    assert (full.status_code, error_code(full)) == (409, "room_full")
    blank = http.post(path, json={"name": "   "})
    assert (blank.status_code, error_code(blank)) == (422, "name_empty")


def test_leaving_before_the_match_frees_the_seat_and_revokes_the_token(server, http) -> None:
    room = create_room(server, game="gin_rummy", players=2)
    room_id = room["room_id"]
    token = join(server, room_id, "ann")
    left = http.post(f"/api/rooms/{room_id}/leave", headers=bearer(token)).json()
    assert left["seats"][0]["kind"] == "empty"
    again = http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
    assert (again.status_code, error_code(again)) == (401, "bad_token")


def test_bots_can_be_added_and_removed_only_before_the_match(server, http) -> None:
    room_id = create_room(server, game="rummikub", players=2)["room_id"]
    added = http.post(f"/api/rooms/{room_id}/bots", json={"seat": 1, "level": "easy"}).json()
    assert added["seats"][1] == {**added["seats"][1], "kind": "bot", "level": "easy"}
    assert http.delete(f"/api/rooms/{room_id}/bots/1").json()["seats"][1]["kind"] == "empty"
    person = http.delete(f"/api/rooms/{room_id}/bots/0")
    assert (person.status_code, error_code(person)) == (409, "not_a_bot")
    http.post(f"/api/rooms/{room_id}/bots", json={"seat": 1})
    token = join(server, room_id, "ann")
    assert http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token)).json()["status"] in (
        "playing",
        "finished",
    )
    late = http.delete(f"/api/rooms/{room_id}/bots/1")
    assert (late.status_code, error_code(late)) == (409, "match_started")


def test_public_waiting_rooms_are_listed_and_private_ones_are_not(server, http) -> None:
    public = create_room(server, game="rummikub", players=2, public=True)["room_id"]
    private = create_room(server, game="rummikub", players=2)["room_id"]
    listed = {room["room_id"] for room in http.get("/api/rooms?game=rummikub").json()["rooms"]}
    assert public in listed
    assert private not in listed
    assert public not in {
        r["room_id"] for r in http.get("/api/rooms?game=gin_rummy").json()["rooms"]
    }


def test_a_rest_client_reads_its_state_and_legal_actions_and_acts(server, http) -> None:
    room_id = create_room(server, game="rummikub", players=2, bots=[{"seat": 1}])["room_id"]
    token = join(server, room_id, "ann")
    http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
    # The bot may have the first turn: the state is compared with /legal once it is ann's.
    for _ in range(300):
        state = http.get(f"/api/rooms/{room_id}/state", headers=bearer(token)).json()
        if state["state"]["you"]["legal"]:
            break
        time.sleep(0.05)
    rack = state["state"]["game"]["rack"]
    assert len(rack) == 14
    assert state["state"]["you"]["seat"] == 0
    legal = http.get(f"/api/rooms/{room_id}/legal", headers=bearer(token)).json()
    assert {"type": "draw"} in legal["actions"]
    assert legal["actions"] == state["state"]["you"]["legal"]
    acted = http.post(
        f"/api/rooms/{room_id}/actions",
        headers=bearer(token),
        json={"action": {"type": "draw"}, "version": state["version"]},
    )
    assert acted.status_code == 200, acted.text
    assert len(acted.json()["state"]["game"]["rack"]) >= 15
    stale = http.post(
        f"/api/rooms/{room_id}/actions",
        headers=bearer(token),
        json={"action": {"type": "draw"}, "version": state["version"]},
    )
    assert (stale.status_code, error_code(stale)) == (409, "stale_version")
    spectator = http.get(f"/api/rooms/{room_id}/state").json()["state"]
    assert "rack" not in spectator["game"] or spectator["game"]["rack"] is None


def test_acting_needs_a_token_and_an_unknown_room_is_404(server, http) -> None:
    room_id = create_room(server, game="rummikub", players=2)["room_id"]
    missing = http.post(f"/api/rooms/{room_id}/actions", json={"action": {"type": "draw"}})
    assert (missing.status_code, error_code(missing)) == (401, "missing_token")
    nowhere = http.get("/api/rooms/nowhere")
    assert (nowhere.status_code, error_code(nowhere)) == (404, "room_not_found")
    early = http.post(
        f"/api/rooms/{room_id}/actions",
        headers=bearer(join(server, room_id, "ann")),
        json={"action": {"type": "draw"}},
    )
    assert (early.status_code, error_code(early)) == (409, "not_started")


def test_an_absent_players_seat_can_be_handed_to_a_bot_and_taken_back(server, http) -> None:
    room_id = create_room(server, game="rummikub", players=2)["room_id"]
    ann, bob = join(server, room_id, "ann"), join(server, room_id, "bob")
    for token in (ann, bob):
        http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
    handed = http.post(f"/api/rooms/{room_id}/seats/1/bot", headers=bearer(ann))
    assert handed.status_code == 200, handed.text
    assert handed.json()["seats"][1]["kind"] == "bot"
    back = http.get(f"/api/rooms/{room_id}/state", headers=bearer(bob)).json()
    assert back["state"]["room"]["seats"][1]["kind"] == "human"


def test_a_present_player_keeps_their_seat() -> None:
    with live_server(reconnect_grace_s=3600) as server:
        room_id = create_room(server, game="rummikub", players=2)["room_id"]
        ann, bob = join(server, room_id, "ann"), join(server, room_id, "bob")
        with httpx.Client(base_url=server.http) as http:
            for token in (ann, bob):
                http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
            refused = http.post(f"/api/rooms/{room_id}/seats/1/bot", headers=bearer(ann))
        assert (refused.status_code, error_code(refused)) == (409, "player_present")


def test_invite_history_and_rules_links_serve_the_browser_page(http) -> None:
    home = http.get("/")
    assert home.status_code == 200
    assert "html" in home.headers["content-type"]
    for path in ("/r/abc123", "/history", "/rules"):
        page = http.get(path)
        assert (page.status_code, page.text) == (200, home.text)
    assert http.get("/healthz").json() == {"status": "ok"}


def test_leaving_during_the_match_hands_the_seat_to_a_bot_for_good(server, http) -> None:
    room_id = create_room(server, game="rummikub", players=2)["room_id"]
    ann, bob = join(server, room_id, "ann"), join(server, room_id, "bob")
    for token in (ann, bob):
        http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
    left = http.post(f"/api/rooms/{room_id}/leave", headers=bearer(bob)).json()
    assert left["seats"][1]["kind"] == "bot"
    gone = http.get(f"/api/rooms/{room_id}/state", headers=bearer(bob))
    assert (gone.status_code, error_code(gone)) == (401, "bad_token")
