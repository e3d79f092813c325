"""MELDHALL_LOG_FORMAT=json: every line of a real server's log is one JSON object, and a room's
life is logged at info with its room, match and node."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.processes import server_env
from tests.server_process import serving

REPO = Path(__file__).resolve().parents[2]
MELDHALL = Path(sys.executable).parent / "meldhall"
SHORT_GIN = {"target": 10}


def wait_for_status(base: str, room_id: str, status: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if httpx.get(f"{base}/api/rooms/{room_id}").json()["status"] == status:
            return
        time.sleep(0.1)
    raise AssertionError(f"room {room_id} never reached {status!r}")


def test_json_logs_are_one_object_a_line_with_the_rooms_life(tmp_path: Path) -> None:
    env = server_env(
        tmp_path / "data",
        MELDHALL_LOG_FORMAT="json",
        MELDHALL_LOG_LEVEL="info",
        MELDHALL_NODE_ID="logs-node",
        MELDHALL_SOLVER_WARM_UP="false",
    )
    port = int(env["MELDHALL_PORT"])
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    with serving([str(MELDHALL), "serve"], port, cwd=REPO, env=env, log=log):
        bots = [{"seat": 0, "level": "easy"}, {"seat": 1, "level": "easy"}]
        room = httpx.post(
            f"{base}/api/rooms", json={"game": "gin_rummy", "options": SHORT_GIN, "bots": bots}
        ).json()
        room_id = room["room_id"]
        wait_for_status(base, room_id, "finished")
    lines = log.read_text(encoding="utf-8").splitlines()
    entries: list[dict[str, Any]] = [json.loads(line) for line in lines]

    for entry in entries:
        assert {"time", "level", "logger", "message"} <= set(entry), entry
        assert entry["time"].endswith("+00:00")
    about_room = [entry for entry in entries if entry.get("room") == room_id]
    messages = [entry["message"] for entry in about_room]
    assert messages[0].startswith("room created")
    assert "match started" in messages
    assert "match finished" in messages
    for entry in about_room:
        assert (entry["level"], entry["node"], entry["game"]) == ("info", "logs-node", "gin_rummy")
    started = next(entry for entry in about_room if entry["message"] == "match started")
    finished = next(entry for entry in about_room if entry["message"] == "match finished")
    assert started["match"] == finished["match"] is not None
    # uvicorn's own lines are JSON too.
    assert any(entry["logger"].startswith("uvicorn") for entry in entries)


def test_a_log_format_that_is_not_text_or_json_stops_the_server_with_a_clear_line(
    tmp_path: Path,
) -> None:
    env = server_env(tmp_path / "data", MELDHALL_LOG_FORMAT="yaml")
    done = subprocess.run(
        [str(MELDHALL), "serve"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "MELDHALL_LOG_FORMAT" in done.stderr
    assert "'text' or 'json'" in done.stderr
