"""The example client plays whole matches of both games over the WebSocket alone."""

from __future__ import annotations

import asyncio

import pytest

from examples.python_client import play, rest
from tests.api.live import live_server


@pytest.mark.parametrize(("game", "options"), [("gin_rummy", {"target": 30}), ("rummikub", {})])
def test_the_example_client_plays_a_match_against_a_bot_to_the_end(game, options) -> None:
    with live_server() as server:
        room = rest(
            server.http,
            "POST",
            "/api/rooms",
            {"game": game, "options": options, "bots": [{"seat": 1}]},
        )
        joined = rest(server.http, "POST", f"/api/rooms/{room['room_id']}/join", {"name": "py"})
        final = asyncio.run(play(server.http, room["room_id"], joined["token"]))
    assert final["room"]["status"] == "finished"
    assert final["game"]["result"] is not None
    assert final["you"]["seat"] == joined["seat"]
