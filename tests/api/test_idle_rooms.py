"""The server closes rooms nobody uses after MELDHALL_ROOM_IDLE_CLOSE_S, and refuses bad values."""

from __future__ import annotations

import time

import httpx
import pytest
from pydantic import ValidationError

from app.settings import Settings
from tests.api.live import create_room, join, live_server


def test_an_idle_room_leaves_the_lobby_and_its_link_answers_404() -> None:
    with live_server(room_idle_close_s=0.2) as server:
        room = create_room(server, game="gin_rummy", public=True)
        join(server, room["room_id"], "ann")
        url = f"{server.http}/api/rooms/{room['room_id']}"
        deadline = time.monotonic() + 10
        while httpx.get(url).status_code == 200:
            assert time.monotonic() < deadline, "the idle room was never closed"
            time.sleep(0.05)
        assert httpx.get(url).json()["error"]["code"] == "room_not_found"
        assert httpx.get(f"{server.http}/api/rooms").json()["rooms"] == []


@pytest.mark.parametrize("seconds", [0, -1, 31 * 86_400])
def test_an_idle_time_out_of_range_is_refused_at_start(seconds: float) -> None:
    with pytest.raises(ValidationError, match="room_idle_close_s"):
        Settings(room_idle_close_s=seconds)
