"""The example client plays whole matches of both games over the WebSocket alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from examples.python_client import play, rest
from tests.api.live import live_server
from tests.processes import ServerProcess, server_env


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


@pytest.mark.parametrize(("game", "players"), [("gin_rummy", 2), ("rummikub", 4)])
def test_the_example_client_keeps_within_the_servers_message_rate(
    game: str, players: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # The server's own limits (20 a second, bursts of 40) and bots that answer at once: a
    # client sending at machine speed is refused and, soon after, disconnected.
    limits = {"ws_messages_per_second": 20.0, "ws_burst": 40}
    with live_server(**limits) as server:
        bots = [{"seat": seat} for seat in range(1, players)]
        options = {"target": 30} if game == "gin_rummy" else {}
        body = {"game": game, "players": players, "options": options, "bots": bots}
        room = rest(server.http, "POST", "/api/rooms", body)
        joined = rest(server.http, "POST", f"/api/rooms/{room['room_id']}/join", {"name": "py"})
        final = asyncio.run(play(server.http, room["room_id"], joined["token"], hints=True))
    assert final["room"]["status"] == "finished"
    refused = [line for line in capsys.readouterr().err.splitlines() if "refused" in line]
    assert not [line for line in refused if "rate_limited" in line]


async def test_the_example_client_carries_on_through_a_server_restart(tmp_path: Path) -> None:
    """The server stops (as on an upgrade) and starts again mid-match: the client reconnects
    with its token and plays the match to the end."""
    server = ServerProcess(
        server_env(tmp_path / "data", MELDHALL_BOT_DELAY_MS="150"), tmp_path / "server.log"
    ).start()
    try:
        # No single hand scores 150 (big gin against the most deadwood: 31 + 98): the match
        # is still on when the server stops.
        body = {"game": "gin_rummy", "options": {"target": 150}, "bots": [{"seat": 1}]}
        room = rest(server.url, "POST", "/api/rooms", body)
        joined = rest(server.url, "POST", f"/api/rooms/{room['room_id']}/join", {"name": "py"})
        playing = asyncio.create_task(play(server.url, room["room_id"], joined["token"]))
        await asyncio.sleep(3)
        assert not playing.done()
        await asyncio.to_thread(server.stop)
        await asyncio.to_thread(server.start)
        final = await asyncio.wait_for(playing, 240)
    finally:
        server.stop()
    assert final["room"]["status"] == "finished"
    assert final["game"]["result"] is not None
