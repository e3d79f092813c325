"""`meldhall ratings rebuild`: refused beside a running server, the same numbers once stopped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.api.live import live_server
from tests.players.conftest import new_player, player_auth
from tests.players.test_ratings_live import play_rated

MELDHALL = Path(sys.executable).parent / "meldhall"


def rebuild(database_url: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"DATABASE_URL": database_url, "MELDHALL_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [str(MELDHALL), "ratings", "rebuild"],
        env={**env, "PATH": str(MELDHALL.parent)},
        capture_output=True,
        text=True,
        timeout=120,
    )


async def standings(http: httpx.AsyncClient, player: dict[str, str]) -> dict[Any, Any]:
    """The boards of both modes, the player's own circle, own recent matches and head to
    head."""
    found: dict[Any, Any] = {
        mode: (await http.get("/api/leaderboards/gin_rummy", params={"mode": mode})).json()
        for mode in (2, 3)
    }
    own = player_auth(player["key"])
    found["circle"] = (
        await http.get(
            "/api/leaderboards/gin_rummy", params={"mode": 3, "with": player["id"]}, headers=own
        )
    ).json()
    profile = (await http.get(f"/api/players/{player['id']}", headers=own)).json()
    # A rating's history keeps its numbers but not when they were written.
    found["profile"] = {key: profile[key] for key in ("recent_matches", "head_to_head")}
    return found


async def test_rebuild_is_refused_while_a_server_runs_and_matches_live_once_stopped(
    database_url: str, tmp_path: Path
) -> None:
    with live_server(database_url) as server:
        ann, bob = new_player(server, "Ann"), new_player(server, "Bob")
        for keys in ([ann["key"], bob["key"]], [ann["key"]], [bob["key"], ann["key"]]):
            await play_rated(server, keys, bots=2 - len(keys) + (len(keys) == 1))
        async with httpx.AsyncClient(base_url=server.http) as http:
            live = await standings(http, ann)
        refused = rebuild(database_url, tmp_path)
        assert refused.returncode == 3
        assert refused.stderr.startswith("meldhall: stop the server first")
        assert len(refused.stderr.strip().splitlines()) == 1
    done = rebuild(database_url, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ratings rebuilt: 3 matches")
    with live_server(database_url) as server:
        async with httpx.AsyncClient(base_url=server.http) as http:
            again = await standings(http, ann)
    assert again == live
    assert live[2]["total"] == 2
    assert live[3]["total"] == 3
    assert live["circle"]["total"] == 3
    assert {duel["player_id"] for duel in live["profile"]["head_to_head"]} == {
        bob["id"],
        "bot-gin_rummy-hard",
        "bot-gin_rummy-easy",
    }
