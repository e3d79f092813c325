"""Rated matches played through the REST API, to give a player a rating history before a page
opens: a player made with POST /api/players plays Gin Rummy to a target of 1 against an easy
bot, each move the room's own hint."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

# Each pass reads the state once; a match to 1 point takes a few dozen of the player's moves,
# and the passes between them only wait for the bot.
MAX_PASSES = 20_000
POLL_S = 0.02


@dataclass(frozen=True)
class Played:
    match_id: str
    room_id: str
    seat_token: str


def new_player(base: str, name: str) -> dict[str, str]:
    answer = httpx.post(f"{base}/api/players", json={"name": name})
    assert answer.status_code == 201, answer.text
    player: dict[str, str] = answer.json()
    return player


def play_gin_against_a_bot(base: str, key: str) -> Played:
    """One rated private match to 1 point, played to its end."""
    with httpx.Client(base_url=base, timeout=30) as http:
        room = http.post(
            "/api/rooms",
            json={
                "game": "gin_rummy",
                "options": {"target": 1},
                "bots": [{"seat": 1, "level": "easy"}],
            },
        ).json()
        room_id = room["room_id"]
        joined = http.post(
            f"/api/rooms/{room_id}/join",
            json={"seat": 0},
            headers={"Authorization": f"Player {key}"},
        )
        assert joined.status_code == 201, joined.text
        token = joined.json()["token"]
        seat = {"Authorization": f"Bearer {token}"}
        http.post(f"/api/rooms/{room_id}/ready", headers=seat)
        for _ in range(MAX_PASSES):
            answer = http.get(f"/api/rooms/{room_id}/state", headers=seat).json()
            document: dict[str, Any] = answer["state"]
            status = document["room"]["status"]
            if status == "finished":
                return Played(document["room"]["match_id"], room_id, token)
            if status == "between_hands" and not mine(document)["ready"]:
                http.post(f"/api/rooms/{room_id}/ready", headers=seat)
            elif status == "playing" and document["you"].get("legal"):
                hint = http.get(f"/api/rooms/{room_id}/hint", headers=seat).json()
                http.post(
                    f"/api/rooms/{room_id}/actions",
                    json={"action": hint["action"], "version": hint["version"]},
                    headers=seat,
                )
            else:
                time.sleep(POLL_S)
        raise AssertionError(f"the match in room {room_id} was not over after {MAX_PASSES} reads")


def mine(document: dict[str, Any]) -> dict[str, Any]:
    seat = document["you"]["seat"]
    found: dict[str, Any] = next(s for s in document["room"]["seats"] if s["seat"] == seat)
    return found
