"""A player's whole life through the API: create, rename, link a device, sign out, forget."""

from __future__ import annotations

import httpx

from tests.api.live import LiveServer
from tests.players.conftest import new_player, player_auth


def code_of(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


def test_a_new_player_gets_an_id_a_key_and_its_name(server: LiveServer) -> None:
    made = new_player(server, "  Ann  ")
    assert made["name"] == "Ann"
    assert len(made["key"]) >= 32
    assert made["id"]
    me = httpx.get(f"{server.http}/api/players/me", headers=player_auth(made["key"]))
    assert me.status_code == 200
    assert me.json()["id"] == made["id"]
    assert me.json()["kind"] == "person"
    # The key is kept hashed: nothing the server answers shows it again.
    profile = httpx.get(f"{server.http}/api/players/{made['id']}")
    assert made["key"] not in profile.text


def test_names_are_cleaned_and_unique_ignoring_case(server: LiveServer) -> None:
    spoof = new_player(server, "Eve\u202e321 nimda\u200b")
    assert spoof["name"] == "Eve321 nimda"
    new_player(server, "Ann")
    for name, code in (
        ("ANN", "name_taken"),
        ("ann", "name_taken"),
        ("\u202e\u200b\x07", "name_empty"),
        ("x" * 33, "name_too_long"),
    ):
        response = httpx.post(f"{server.http}/api/players", json={"name": name})
        assert code_of(response) == code, name
    assert httpx.post(f"{server.http}/api/players", json={"name": 5}).status_code == 422
    assert httpx.post(f"{server.http}/api/players", json={}).status_code == 422


def test_a_bad_key_is_refused_and_never_reads_another_player(server: LiveServer) -> None:
    new_player(server, "Ann")
    for header in ("Player nope", "Player", "player  x"):
        response = httpx.get(f"{server.http}/api/players/me", headers={"Authorization": header})
        assert response.status_code == 401
        assert code_of(response) in {"bad_player_key", "missing_player_key"}
    missing = httpx.get(f"{server.http}/api/players/me")
    assert missing.status_code == 401
    assert code_of(missing) == "missing_player_key"


def test_renaming_keeps_the_player_and_frees_the_old_name(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    new_player(server, "Bob")
    auth = player_auth(ann["key"])
    taken = httpx.patch(f"{server.http}/api/players/me", json={"name": "BOB"}, headers=auth)
    assert taken.status_code == 409
    assert code_of(taken) == "name_taken"
    renamed = httpx.patch(f"{server.http}/api/players/me", json={"name": "Annie"}, headers=auth)
    assert renamed.status_code == 200
    assert renamed.json()["id"] == ann["id"]
    assert renamed.json()["name"] == "Annie"
    assert new_player(server, "ann")["name"] == "ann"


def test_another_device_becomes_the_player_with_a_one_time_code(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    made = httpx.post(f"{server.http}/api/players/me/link-codes", headers=player_auth(ann["key"]))
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    assert len(code.replace("-", "")) == 8
    linked = httpx.post(f"{server.http}/api/players/link", json={"code": code.lower()})
    assert linked.status_code == 200, linked.text
    second = linked.json()
    assert second["id"] == ann["id"]
    assert second["key"] != ann["key"]
    # Both devices are the player; the code is spent.
    for key in (ann["key"], second["key"]):
        me = httpx.get(f"{server.http}/api/players/me", headers=player_auth(key))
        assert me.json()["id"] == ann["id"]
    again = httpx.post(f"{server.http}/api/players/link", json={"code": code})
    assert again.status_code == 410
    assert code_of(again) == "link_code_expired"


def test_five_wrong_tries_lock_a_link_code(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    code = (
        httpx.post(f"{server.http}/api/players/me/link-codes", headers=player_auth(ann["key"]))
        .json()["code"]
        .replace("-", "")
    )
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    wrong = [code[:3] + c * 5 for c in alphabet if c * 5 != code[3:]][:5]
    for typed in wrong:
        refused = httpx.post(f"{server.http}/api/players/link", json={"code": typed})
        assert refused.status_code == 400
        assert code_of(refused) == "link_code_wrong"
    locked = httpx.post(f"{server.http}/api/players/link", json={"code": code})
    assert locked.status_code == 423
    assert code_of(locked) == "link_code_locked"
    for typed in ("", "short", "!!!!!!!!"):
        response = httpx.post(f"{server.http}/api/players/link", json={"code": typed})
        assert response.status_code in {400, 422}


def test_link_codes_are_rate_limited_per_player(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    answers = [
        httpx.post(f"{server.http}/api/players/me/link-codes", headers=player_auth(ann["key"]))
        for _ in range(5)
    ]
    assert [a.status_code for a in answers][:3] == [201, 201, 201]
    assert answers[-1].status_code == 429
    assert code_of(answers[-1]) == "rate_limited"


def test_signing_out_other_devices_revokes_their_keys(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    code = httpx.post(
        f"{server.http}/api/players/me/link-codes", headers=player_auth(ann["key"])
    ).json()["code"]
    phone = httpx.post(f"{server.http}/api/players/link", json={"code": code}).json()
    fresh = httpx.post(
        f"{server.http}/api/players/me/sign-out-others", headers=player_auth(phone["key"])
    )
    assert fresh.status_code == 200
    new_key = fresh.json()["key"]
    for old in (ann["key"], phone["key"]):
        refused = httpx.get(f"{server.http}/api/players/me", headers=player_auth(old))
        assert refused.status_code == 401
        assert code_of(refused) == "bad_player_key"
    me = httpx.get(f"{server.http}/api/players/me", headers=player_auth(new_key))
    assert me.json()["id"] == ann["id"]


def test_a_forgotten_player_is_gone_and_its_name_free(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    gone = httpx.delete(f"{server.http}/api/players/me", headers=player_auth(ann["key"]))
    assert gone.status_code == 204
    refused = httpx.get(f"{server.http}/api/players/me", headers=player_auth(ann["key"]))
    assert refused.status_code == 401
    missing = httpx.get(f"{server.http}/api/players/{ann['id']}")
    assert missing.status_code == 404
    assert code_of(missing) == "player_not_found"
    assert new_player(server, "Ann")["id"] != ann["id"]


def test_a_room_joined_with_a_key_seats_the_player_under_its_name(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    room = httpx.post(f"{server.http}/api/rooms", json={"game": "gin_rummy"}).json()
    joined = httpx.post(
        f"{server.http}/api/rooms/{room['room_id']}/join",
        json={"name": "ignored"},
        headers=player_auth(ann["key"]),
    )
    assert joined.status_code == 201, joined.text
    seat = joined.json()["room"]["seats"][0]
    assert seat["name"] == "Ann"
    assert seat["player_id"] == ann["id"]
    # The seat token is the room's credential exactly as before.
    assert joined.json()["token"]
    assert joined.json()["token"] != ann["key"]
    anonymous = httpx.post(
        f"{server.http}/api/rooms/{room['room_id']}/join", json={"name": "Bob\u202e"}
    )
    assert anonymous.status_code == 201
    assert (
        anonymous.json()["room"]["seats"][1] | {"name": "Bob"}
        == anonymous.json()["room"]["seats"][1]
    )
    assert anonymous.json()["room"]["seats"][1]["player_id"] is None
    bad = httpx.post(
        f"{server.http}/api/rooms/{room['room_id']}/join",
        json={"name": "Cy"},
        headers=player_auth("not-a-key"),
    )
    assert bad.status_code == 401
    assert code_of(bad) == "bad_player_key"
