"""`meldhall admin ...` against a real server: the same routes, from a shell."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.api.live import LiveServer, create_room, join, live_server

MELDHALL = Path(sys.executable).parent / "meldhall"
ADMIN_TOKEN = "the-cli-operator-token-0123456789abcdef"


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server(admin_token=ADMIN_TOKEN) as live:
        yield live


def admin(
    server: LiveServer, *arguments: str, token: str = ADMIN_TOKEN
) -> subprocess.CompletedProcess[str]:
    """The command, with the server's address and the token from the environment."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("MELDHALL_")}
    env.update(MELDHALL_ADMIN_URL=server.http, MELDHALL_ADMIN_TOKEN=token)
    return subprocess.run(
        [str(MELDHALL), "admin", *arguments], env=env, capture_output=True, text=True, timeout=60
    )


def test_admin_commands_list_hand_over_notify_and_close(server: LiveServer) -> None:
    room = create_room(server, game="gin_rummy", players=2, public=False)
    room_id = room["room_id"]
    join(server, room_id, "ann", seat=0)

    listed = admin(server, "rooms")
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith(room_id))
    assert "gin_rummy" in row
    assert "waiting" in row
    assert "0: ann (away)" in row
    assert "1: empty" in row

    # A room id may begin with "-": after "--" it is not taken for an option.
    handed = admin(server, "bot", "--level", "hard", "--", room_id, "0")
    assert handed.returncode == 0, handed.stderr
    assert f"seat 0 of room {room_id}" in handed.stdout
    seats = httpx.get(f"{server.http}/api/rooms/{room_id}").json()["seats"]
    assert (seats[0]["kind"], seats[0]["level"]) == ("bot", "hard")

    noticed = admin(server, "notice", "restarting in 5 minutes")
    assert noticed.returncode == 0, noticed.stderr
    assert noticed.stdout.strip() == "notice posted: restarting in 5 minutes"

    closed = admin(server, "--json", "close", "--reason", "maintenance", "--", room_id)
    assert closed.returncode == 0, closed.stderr
    assert '"room_id": "' + room_id + '"' in closed.stdout
    gone = httpx.get(f"{server.http}/api/rooms/{room_id}")
    assert gone.json()["error"]["code"] == "room_not_found"


def test_admin_commands_say_why_they_were_refused(server: LiveServer) -> None:
    missing = admin(server, "close", "no-such-room")
    assert missing.returncode == 1
    assert "room_not_found" in missing.stderr

    too_long = admin(server, "notice", "x" * 301)
    assert too_long.returncode == 1
    assert "notice_too_long" in too_long.stderr

    wrong = admin(server, "rooms", token="not-the-token")
    assert wrong.returncode == 1
    assert "MELDHALL_ADMIN_TOKEN" in wrong.stderr

    nobody = admin(server, "rooms", token="")
    assert nobody.returncode == 1
    assert "--token or MELDHALL_ADMIN_TOKEN" in nobody.stderr


def test_admin_commands_say_when_the_server_cannot_be_reached() -> None:
    with live_server() as server:
        url = server.http
    env = {key: value for key, value in os.environ.items() if not key.startswith("MELDHALL_")}
    done = subprocess.run(
        [str(MELDHALL), "admin", "--url", url, "--token", ADMIN_TOKEN, "rooms"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"cannot reach {url}" in done.stderr
