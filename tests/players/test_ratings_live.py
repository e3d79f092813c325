"""Matches played on a real server rate their players: the change at the end, the leaderboard,
the profile; private matches stay out of what strangers read."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.live import LiveServer, SeatClient
from tests.api.play import play_until, seat_bots, shared_clients
from tests.players.conftest import new_player, player_auth

# Bots of one level on two seats would not be rated against each other.
LEVELS = ("hard", "easy", "normal")


async def play_rated(
    server: LiveServer,
    keys: list[str | None],
    *,
    bots: int = 0,
    public: bool = False,
    rated: bool = True,
) -> tuple[str, str, list[str]]:
    """A Gin Rummy match to one point (its first won hand ends it): people join with their
    keys (None: anonymous), bots take the last seats. (room id, match id, seat tokens)."""
    players = len(keys) + bots
    body: dict[str, Any] = {
        "game": "gin_rummy",
        "players": players,
        "options": {"target": 1},
        "public": public,
        "rated": rated,
        "bots": [{"seat": len(keys) + b, "level": LEVELS[b]} for b in range(bots)],
    }
    async with httpx.AsyncClient(base_url=server.http, timeout=30) as http:
        room = (await http.post("/api/rooms", json=body)).json()
        tokens = []
        for index, key in enumerate(keys):
            joined = await http.post(
                f"/api/rooms/{room['room_id']}/join",
                json={"name": f"guest {index}"},
                headers=player_auth(key) if key else {},
            )
            assert joined.status_code == 201, joined.text
            tokens.append(joined.json()["token"])
    clients: list[SeatClient] = shared_clients(
        [(server.ws_url(room["room_id"]), token) for token in tokens]
    )
    for client in clients:
        await client.connect()
        await client.send({"type": "ready"})
    await play_until(clients, seat_bots("gin_rummy", list(range(len(keys)))))
    match_id: str = clients[0].doc["room"]["match_id"]  # type: ignore[index]
    for client in clients:
        await client.close()
    return room["room_id"], match_id, tokens


async def test_a_match_against_a_bot_rates_both_and_shows_the_change(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    _, match_id, tokens = await play_rated(server, [ann["key"]], bots=1)
    async with httpx.AsyncClient(base_url=server.http) as http:
        detail = (
            await http.get(
                f"/api/matches/{match_id}", headers={"Authorization": f"Bearer {tokens[0]}"}
            )
        ).json()
        changes = {c["seat"]: c for c in detail["rating_changes"]}
        assert set(changes) == {0, 1}
        assert changes[0]["player_id"] == ann["id"]
        assert changes[1]["player_id"] == "bot-gin_rummy-hard"
        assert changes[0]["before"] == changes[1]["before"] == 1500
        places = {seat["seat"]: seat["place"] for seat in detail["seats"]}
        winner = min(places, key=lambda seat: places[seat])
        loser = 1 - winner
        assert changes[winner]["after"] > changes[loser]["after"]
        board = (await http.get("/api/leaderboards/gin_rummy")).json()
        assert board["mode"] == "gin_rummy:2"
        assert {row["player_id"] for row in board["items"]} == {ann["id"], "bot-gin_rummy-hard"}
        assert [row["rank"] for row in board["items"]] == [1, 2]
        assert all(row["provisional"] for row in board["items"])
        profile = (
            await http.get(f"/api/players/{ann['id']}", headers=player_auth(ann["key"]))
        ).json()
        (rating,) = profile["ratings"]
        assert rating["mode"] == "gin_rummy:2"
        assert rating["matches"] == 1
        assert [point["rating"] for point in rating["history"]] == [changes[0]["after"]]
        assert profile["recent_matches"][0]["match_id"] == match_id
        assert profile["recent_matches"][0]["rating_after"] == changes[0]["after"]
        (duel,) = profile["head_to_head"]
        assert duel["player_id"] == "bot-gin_rummy-hard"
        assert (duel["matches"], duel["wins"] + duel["losses"]) == (1, 1)
        bot = (await http.get("/api/players/bot-gin_rummy-hard")).json()
        assert bot["player"]["kind"] == "bot"
        assert bot["ratings"][0]["matches"] == 1


async def test_a_private_match_shows_in_a_profile_only_to_its_player(server: LiveServer) -> None:
    ann, bob = new_player(server, "Ann"), new_player(server, "Bob")
    _, match_id, _ = await play_rated(server, [ann["key"], bob["key"]])
    async with httpx.AsyncClient(base_url=server.http) as http:
        own = (await http.get(f"/api/players/{ann['id']}", headers=player_auth(ann["key"]))).json()
        assert [m["match_id"] for m in own["recent_matches"]] == [match_id]
        assert own["ratings"][0]["history"][0]["match_id"] == match_id
        assert [duel["player_id"] for duel in own["head_to_head"]] == [bob["id"]]
        for headers in ({}, player_auth(bob["key"])):
            seen = (await http.get(f"/api/players/{ann['id']}", headers=headers)).json()
            # The rating counts; which match, and against whom, the stranger does not learn.
            assert seen["ratings"][0]["matches"] == 1
            assert seen["ratings"][0]["history"][0]["match_id"] is None
            assert seen["recent_matches"] == []
            assert seen["head_to_head"] == []
        listed = (await http.get("/api/matches")).json()
        assert listed["total"] == 0
        mine = (await http.get("/api/matches", headers=player_auth(bob["key"]))).json()
        assert [m["match_id"] for m in mine["items"]] == [match_id]
        circle = (await http.get("/api/leaderboards/gin_rummy", params={"with": ann["id"]})).json()
        assert [row["player_id"] for row in circle["items"]] == [ann["id"]]
        own_circle = (
            await http.get(
                "/api/leaderboards/gin_rummy",
                params={"with": ann["id"]},
                headers=player_auth(ann["key"]),
            )
        ).json()
        assert {row["player_id"] for row in own_circle["items"]} == {ann["id"], bob["id"]}


async def test_unrated_rooms_and_anonymous_seats_change_no_rating(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    await play_rated(server, [ann["key"]], bots=1, rated=False, public=True)
    await play_rated(server, [None], bots=1, public=True)
    async with httpx.AsyncClient(base_url=server.http) as http:
        board = (await http.get("/api/leaderboards/gin_rummy")).json()
        assert board["items"] == []
        assert board["total"] == 0
        listed = (await http.get("/api/matches")).json()
        assert listed["total"] == 2


async def test_leaderboard_and_profile_refuse_bad_input(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.http) as http:
        for path, params, status, code in (
            ("/api/leaderboards/chess", {}, 400, "unknown_game"),
            ("/api/leaderboards/gin_rummy", {"mode": 5}, 422, "bad_request"),
            ("/api/leaderboards/gin_rummy", {"with": "nobody"}, 404, "player_not_found"),
            ("/api/leaderboards/gin_rummy", {"limit": 0}, 422, "bad_request"),
            ("/api/players/nobody", {}, 404, "player_not_found"),
            ("/api/players/bad%20id!", {}, 422, "bad_request"),
            ("/api/players/nobody/head-to-head", {}, 404, "player_not_found"),
            ("/api/players/bot-gin_rummy-hard/head-to-head", {"limit": 101}, 422, "bad_request"),
            ("/api/players/bot-gin_rummy-hard/head-to-head", {"offset": -1}, 422, "bad_request"),
        ):
            answer = await http.get(path, params=params)
            assert answer.status_code == status, (path, params, answer.text)
            assert answer.json()["error"]["code"] == code


async def test_a_forgotten_player_leaves_a_neutral_name_and_no_rating(server: LiveServer) -> None:
    ann = new_player(server, "Ann")
    _, match_id, _ = await play_rated(server, [ann["key"]], bots=1, public=True)
    async with httpx.AsyncClient(base_url=server.http) as http:
        gone = await http.delete("/api/players/me", headers=player_auth(ann["key"]))
        assert gone.status_code == 204
        detail = (await http.get(f"/api/matches/{match_id}")).json()
        assert (detail["seats"][0]["name"], detail["seats"][0]["player_id"]) == (
            "Former player",
            None,
        )
        # The bot keeps the rating it won or lost; the player's is gone.
        assert [c["player_id"] for c in detail["rating_changes"]] == ["bot-gin_rummy-hard"]
        board = (await http.get("/api/leaderboards/gin_rummy")).json()
        assert [row["player_id"] for row in board["items"]] == ["bot-gin_rummy-hard"]
        assert (await http.get("/api/matches", params={"player": "Ann"})).json()["total"] == 0


async def test_head_to_head_pages_through_every_opponent_as_the_profile_orders_them(
    server: LiveServer,
) -> None:
    ann, bob, cid = (new_player(server, name) for name in ("Ann", "Bob", "Cid"))
    # Ann meets Bob twice and Cid once in public rooms, and Cid once more in a private one.
    await play_rated(server, [ann["key"], bob["key"]], public=True)
    await play_rated(server, [ann["key"], bob["key"]], public=True)
    await play_rated(server, [ann["key"], cid["key"]], public=True)
    await play_rated(server, [ann["key"], cid["key"]])
    path = f"/api/players/{ann['id']}/head-to-head"
    async with httpx.AsyncClient(base_url=server.http) as http:
        own = player_auth(ann["key"])
        profile = (await http.get(f"/api/players/{ann['id']}", headers=own)).json()
        first = (await http.get(path, params={"limit": 1}, headers=own)).json()
        second = (await http.get(path, params={"limit": 1, "offset": 1}, headers=own)).json()
        beyond = (await http.get(path, params={"offset": 2}, headers=own)).json()
        assert (first["total"], first["limit"], first["offset"]) == (2, 1, 0)
        assert first["items"] + second["items"] == profile["head_to_head"]
        assert beyond["items"] == []
        # The player sees the private match; anyone else counts public matches only.
        assert [(d["player_id"], d["matches"]) for d in profile["head_to_head"]] in (
            [(bob["id"], 2), (cid["id"], 2)],
            [(cid["id"], 2), (bob["id"], 2)],
        )
        stranger = (await http.get(path)).json()
        assert [(d["player_id"], d["matches"]) for d in stranger["items"]] == [
            (bob["id"], 2),
            (cid["id"], 1),
        ]
        assert stranger["total"] == 2
        for duel in stranger["items"]:
            assert duel["wins"] + duel["losses"] == duel["matches"]
