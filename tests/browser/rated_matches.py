"""Rated matches played through the REST API, to give a player a rating history before a page
opens: a player made with POST /api/players plays Gin Rummy to a target of 1 against an easy
bot, knocking as soon as it may and otherwise discarding what leaves the least deadwood (cheap
to work out here, where the room's hint would keep the server thinking)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from app.games.gin_rummy.melds import min_deadwood

# Each pass reads the state once; a match to 1 point takes a few dozen of the player's moves,
# and the passes between them only wait for the bot.
MAX_PASSES = 20_000
POLL_S = 0.05


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
                move = quick_move(document["game"]["me"]["hand"], document["you"]["legal"])
                http.post(
                    f"/api/rooms/{room_id}/actions",
                    json={"action": move, "version": answer["version"]},
                    headers=seat,
                )
            else:
                time.sleep(POLL_S)
        raise AssertionError(f"the match in room {room_id} was not over after {MAX_PASSES} reads")


# Among the moves that give up a card: going gin first, then knocking, then a discard.
GIVING_UP = {"gin": 0, "knock": 1, "discard": 2}


def quick_move(hand: list[str], legal: list[dict[str, Any]]) -> dict[str, Any]:
    if {"type": "big_gin"} in legal:
        return {"type": "big_gin"}
    giving = [a for a in legal if a["type"] in GIVING_UP]
    if giving:
        return min(
            giving,
            key=lambda a: (GIVING_UP[a["type"]], min_deadwood(c for c in hand if c != a["card"])),
        )
    for wanted in ({"type": "draw", "source": "stock"}, {"type": "pass"}):
        if wanted in legal:
            return wanted
    lay_offs = [a for a in legal if a["type"] == "lay_off"]
    if lay_offs:
        return max(lay_offs, key=lambda a: len(a["layoffs"]))
    return legal[0]


def mine(document: dict[str, Any]) -> dict[str, Any]:
    seat = document["you"]["seat"]
    found: dict[str, Any] = next(s for s in document["room"]["seats"] if s["seat"] == seat)
    return found
