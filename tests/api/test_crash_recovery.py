"""Kill the real server with SIGKILL mid-match, start it again, and finish every game.

A Gin Rummy match and a Rummikub game are played over REST by four people; after the kill the
restarted server must still hold every action it acknowledged, accept the same seat tokens,
and play both games to the end.
"""

from __future__ import annotations

import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.bots.gin_rummy.basic import BasicGinBot
from app.bots.rummikub.basic import BasicRummikubBot
from tests.processes import base_url, server

# Bounds every loop here: no game in this test needs nearly this many actions.
MAX_ACTIONS = 4000


@dataclass
class Table:
    """One room played by people over REST, with every action the server acknowledged."""

    http: httpx.Client
    room_id: str
    tokens: list[str]
    rng: random.Random
    acknowledged: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    match_id: str = ""

    @classmethod
    def open(cls, http: httpx.Client, game: str, options: dict[str, Any], seed: int) -> Table:
        room = http.post("/api/rooms", json={"game": game, "players": 2, "options": options})
        assert room.status_code == 201, room.text
        room_id = room.json()["room_id"]
        tokens = []
        for name in (f"{game}-a", f"{game}-b"):
            joined = http.post(f"/api/rooms/{room_id}/join", json={"name": name})
            assert joined.status_code == 201, joined.text
            tokens.append(joined.json()["token"])
        table = cls(http=http, room_id=room_id, tokens=tokens, rng=random.Random(seed))
        for token in tokens:
            ready = http.post(f"/api/rooms/{room_id}/ready", headers=table.auth(token))
            assert ready.status_code == 200, ready.text
        table.match_id = http.get(f"/api/rooms/{room_id}").json()["match_id"]
        assert table.match_id
        return table

    def auth(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def choose(self, state: dict[str, Any]) -> dict[str, Any]:
        view, legal = state["game"], state["you"]["legal"]
        bot = BasicRummikubBot if view["game"] == "rummikub" else BasicGinBot
        return dict(bot(self.rng.randrange(1 << 30)).choose(view, legal))

    def finished(self) -> bool:
        return bool(self.http.get(f"/api/rooms/{self.room_id}").json()["status"] == "finished")

    def step(self) -> bool:
        """Let whoever may act do one action; False when nobody may act now."""
        for seat, token in enumerate(self.tokens):
            answer = self.http.get(f"/api/rooms/{self.room_id}/state", headers=self.auth(token))
            assert answer.status_code == 200, answer.text
            state = answer.json()
            if not state["state"]["you"]["legal"]:
                continue
            action = self.choose(state["state"])
            body = {"action": action, "version": answer.json()["version"]}
            done = self.http.post(
                f"/api/rooms/{self.room_id}/actions", json=body, headers=self.auth(token)
            )
            assert done.status_code == 200, done.text
            self.acknowledged.append((seat, action))
            return True
        return False

    def play(self, actions: int | None = None) -> None:
        """Play `actions` acknowledged actions, or to the end of the match."""
        target = len(self.acknowledged) + (actions or MAX_ACTIONS)
        idle_since = time.monotonic()
        while len(self.acknowledged) < target and len(self.acknowledged) < MAX_ACTIONS:
            if self.step():
                idle_since = time.monotonic()
                continue
            if self.finished():
                assert actions is None, "the match ended before the planned kill"
                return
            # Between hands the server deals the next one itself (between_hands_s is 0).
            assert time.monotonic() - idle_since < 30, f"nobody could act for 30 s: {self.stuck()}"
            time.sleep(0.02)
        assert actions is not None, "the match did not end within MAX_ACTIONS"

    def stuck(self) -> str:
        room = self.http.get(f"/api/rooms/{self.room_id}").json()
        state = self.http.get(f"/api/rooms/{self.room_id}/state").json()["state"]
        return f"room {room}, spectator's game view {state['game']}"

    def logged_people_actions(self) -> list[tuple[int, dict[str, Any]]]:
        # The room is private: its invite link (the room id) opens its history.
        replay = self.http.get(
            f"/api/matches/{self.match_id}/replay", params={"room": self.room_id}
        )
        assert replay.status_code == 200, replay.text
        return [(s["seat"], s["action"]) for s in replay.json()["steps"] if s["seat"] is not None]


def test_a_killed_server_resumes_every_match_without_losing_an_acknowledged_action(
    database_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with (
        server(database_env, log) as first,
        httpx.Client(base_url=base_url(database_env), timeout=10) as http,
    ):
        # Hands between these bots score under 60, so 40 actions (two hands at most) cannot
        # reach 120: the match is still on when the server dies.
        gin = Table.open(http, "gin_rummy", {"target": 120}, seed=1)
        rummikub = Table.open(http, "rummikub", {"rounds": 1}, seed=2)
        gin.play(40)
        rummikub.play(16)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

    with (
        server(database_env, log),
        httpx.Client(base_url=base_url(database_env), timeout=10) as http,
    ):
        for table in (gin, rummikub):
            table.http = http
            assert table.logged_people_actions() == table.acknowledged
            room = http.get(f"/api/rooms/{table.room_id}").json()
            assert room["match_id"] == table.match_id
            assert room["status"] in {"playing", "between_hands"}
        for table in (gin, rummikub):
            table.play()
            assert table.logged_people_actions() == table.acknowledged
            detail = http.get(
                f"/api/matches/{table.match_id}", params={"room": table.room_id}
            ).json()
            assert detail["status"] == "finished"
            assert all(seat["final_score"] is not None for seat in detail["seats"])


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_waiting_room_keeps_its_joined_seat_and_token_through_a_killed_server(
    database_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with (
        server(database_env, log) as first,
        httpx.Client(base_url=base_url(database_env), timeout=10) as http,
    ):
        created = http.post("/api/rooms", json={"game": "gin_rummy", "public": True})
        room_id = created.json()["room_id"]
        joined = http.post(f"/api/rooms/{room_id}/join", json={"name": "ann"})
        token = joined.json()["token"]
        assert http.post(f"/api/rooms/{room_id}/ready", headers=auth(token)).status_code == 200
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

    with (
        server(database_env, log),
        httpx.Client(base_url=base_url(database_env), timeout=10) as http,
    ):
        room = http.get(f"/api/rooms/{room_id}").json()
        assert room["status"] == "waiting"
        seats = [(s["name"], s["kind"], s["ready"]) for s in room["seats"]]
        assert seats == [("ann", "human", True), ("", "empty", False)]
        lobby = http.get("/api/rooms").json()["rooms"]
        assert room_id in [listed["room_id"] for listed in lobby]
        mine = http.get(f"/api/rooms/{room_id}/state", headers=auth(token))
        assert mine.status_code == 200, mine.text
        assert mine.json()["state"]["you"]["seat"] == 0
        # The invite link still works: a second person joins and the match starts.
        bob = http.post(f"/api/rooms/{room_id}/join", json={"name": "bob"}).json()["token"]
        assert http.post(f"/api/rooms/{room_id}/ready", headers=auth(bob)).status_code == 200
        assert http.get(f"/api/rooms/{room_id}").json()["status"] == "playing"


def test_a_finished_room_shows_its_result_and_rematches_after_a_killed_server(
    database_env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with (
        server(database_env, log) as first,
        httpx.Client(base_url=base_url(database_env), timeout=10) as http,
    ):
        # A target of 1 point ends the match with the first hand anybody wins.
        gin = Table.open(http, "gin_rummy", {"target": 1}, seed=3)
        gin.play()
        state = f"/api/rooms/{gin.room_id}/state"
        final_view = http.get(state, headers=auth(gin.tokens[0])).json()["state"]["game"]
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

    with (
        server(database_env, log),
        httpx.Client(base_url=base_url(database_env), timeout=10) as http,
    ):
        room = http.get(f"/api/rooms/{gin.room_id}").json()
        assert (room["status"], room["match_id"]) == ("finished", gin.match_id)
        assert http.get(state, headers=auth(gin.tokens[0])).json()["state"]["game"] == final_view
        finished_at = http.get(f"/api/matches/{gin.match_id}", headers=auth(gin.tokens[0])).json()[
            "finished_at"
        ]
        rematch = http.post(f"/api/rooms/{gin.room_id}/rematch", headers=auth(gin.tokens[1]))
        assert rematch.status_code == 200, rematch.text
        assert rematch.json()["status"] == "playing"
        assert rematch.json()["match_id"] not in (None, gin.match_id)
        old = http.get(f"/api/matches/{gin.match_id}", headers=auth(gin.tokens[0])).json()
        assert (old["status"], old["finished_at"]) == ("finished", finished_at)
