"""A Gin Rummy knock over REST with the melds the knocker chooses to lay out (`melds`)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.bots.gin_rummy.basic import BasicGinBot
from app.games.gin_rummy import best_arrangement
from tests.api.live import bearer, create_room, join, live_server

MOVES = 2000


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server() as live:
        yield live


def test_a_knock_lays_out_the_melds_sent_and_bad_melds_change_nothing(server) -> None:
    with httpx.Client(base_url=server.http, timeout=30) as http:
        room_id = create_room(server, game="gin_rummy", players=2)["room_id"]
        tokens = [join(server, room_id, name, seat) for seat, name in enumerate(("ann", "bo"))]
        for token in tokens:
            http.post(f"/api/rooms/{room_id}/ready", headers=bearer(token))
        bots = [BasicGinBot(1), BasicGinBot(2)]
        for _ in range(MOVES):
            for seat, token in enumerate(tokens):
                answer = http.get(f"/api/rooms/{room_id}/legal", headers=bearer(token)).json()
                knocks = [a for a in answer["actions"] if a["type"] == "knock"]
                if knocks:
                    knock_with_melds(http, room_id, token, knocks[0], tokens[1 - seat])
                    return
                if answer["actions"]:
                    state = http.get(f"/api/rooms/{room_id}/state", headers=bearer(token))
                    action = bots[seat].choose(state.json()["state"]["game"], answer["actions"])
                    body = {"action": action, "version": answer["version"]}
                    http.post(f"/api/rooms/{room_id}/actions", headers=bearer(token), json=body)
            if not any(
                http.get(f"/api/rooms/{room_id}/legal", headers=bearer(t)).json()["actions"]
                for t in tokens
            ):
                http.post(f"/api/rooms/{room_id}/ready", headers=bearer(tokens[0]))
                http.post(f"/api/rooms/{room_id}/ready", headers=bearer(tokens[1]))
        pytest.fail("no knock came up")


def knock_with_melds(
    http: httpx.Client, room_id: str, token: str, knock: dict[str, Any], defender: str
) -> None:
    state = http.get(f"/api/rooms/{room_id}/state", headers=bearer(token)).json()
    hand = state["state"]["game"]["me"]["hand"]
    kept = [card for card in hand if card != knock["card"]]
    melds = best_arrangement(kept).to_json()["melds"]
    bad = {**knock, "melds": [*melds, [kept[0], kept[0], kept[0]]]}
    refused = http.post(
        f"/api/rooms/{room_id}/actions",
        headers=bearer(token),
        json={"action": bad, "version": state["version"]},
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "invalid_meld")
    again = http.get(f"/api/rooms/{room_id}/state", headers=bearer(token)).json()
    assert again["version"] == state["version"]
    sent = {**knock, "melds": melds}
    accepted = http.post(
        f"/api/rooms/{room_id}/actions",
        headers=bearer(token),
        json={"action": sent, "version": state["version"]},
    )
    assert accepted.status_code == 200, accepted.text
    # Where the defender may lay off, the hand waits for its answer: the best lay-offs.
    waiting = http.get(f"/api/rooms/{room_id}/legal", headers=bearer(defender)).json()
    if waiting["actions"]:
        assert waiting["actions"][0]["type"] == "lay_off"
        body = {"action": {"type": "lay_off"}, "version": waiting["version"]}
        answered = http.post(f"/api/rooms/{room_id}/actions", headers=bearer(defender), json=body)
        assert answered.status_code == 200, answered.text
    match_id = state["state"]["room"]["match_id"]
    hands = http.get(f"/api/matches/{match_id}", headers=bearer(token)).json()["hands"]
    record = hands[-1]["result"]
    knocker = next(p for p in record["players"] if p["seat"] == record["knocker"])
    assert record["knocker"] == state["state"]["you"]["seat"]
    assert sorted(map(sorted, knocker["melds"])) == sorted(map(sorted, melds))
