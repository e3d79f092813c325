"""The server closes rooms nobody uses after MELDHALL_ROOM_IDLE_CLOSE_S, and refuses bad values."""

from __future__ import annotations

import time

import httpx
import pytest
from pydantic import ValidationError

from app.settings import Settings
from tests.api.live import LiveServer, create_room, live_server

IDLE_S = 0.5


def seated_public_room(server: LiveServer) -> tuple[str, float]:
    """A public room with a person seated (never connected), and when the join was sent.

    A room is idle from its creation on: when a loaded machine stalls for longer than the idle
    time between the create and the join, the sweeper rightly closes the room first, and a
    fresh one is taken.
    """
    for _ in range(10):
        created_at = time.monotonic()
        room_id = create_room(server, game="gin_rummy", public=True)["room_id"]
        joined_at = time.monotonic()
        joined = httpx.post(f"{server.http}/api/rooms/{room_id}/join", json={"name": "ann"})
        if joined.status_code == 201:
            return room_id, joined_at
        assert joined.json()["error"]["code"] == "room_not_found", joined.text
        assert time.monotonic() - created_at >= IDLE_S, "the room closed before it was idle"
    raise AssertionError("in ten tries no join reached its room within the idle time")


def test_an_idle_room_leaves_the_lobby_and_its_link_answers_404() -> None:
    with live_server(room_idle_close_s=IDLE_S) as server:
        room_id, joined_at = seated_public_room(server)
        url = f"{server.http}/api/rooms/{room_id}"
        deadline = time.monotonic() + 10
        while httpx.get(url).status_code == 200:
            assert time.monotonic() < deadline, "the idle room was never closed"
            time.sleep(0.05)
        assert time.monotonic() - joined_at >= IDLE_S, "the room closed before it was idle"
        assert httpx.get(url).json()["error"]["code"] == "room_not_found"
        assert httpx.get(f"{server.http}/api/rooms").json()["rooms"] == []


@pytest.mark.parametrize("seconds", [0, -1, 31 * 86_400])
def test_an_idle_time_out_of_range_is_refused_at_start(seconds: float) -> None:
    with pytest.raises(ValidationError, match="room_idle_close_s"):
        Settings(room_idle_close_s=seconds)
