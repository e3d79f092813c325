"""No message to a seat or a spectator ever names a card or tile hidden from it at that version.

Whole matches of both games are played over real sockets, every seat by a client, with a
spectator watching; every snapshot, patch, ack and error each client received is checked
against `engine.hidden_from(viewer)` at the version that message brought the client to.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import app.rooms.match as match_module
from app.bots.base import Bot
from tests.api.live import LiveServer, create_room, join, live_server
from tests.api.play import HiddenRecorder, play_until, seat_bots, shared_clients


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server() as live:
        yield live


@pytest.fixture
def deal_seed(monkeypatch):  # type: ignore[no-untyped-def]
    """Fix the next matches' seeds (the server runs in this process) so every run plays alike."""

    def use(seed: int) -> None:
        seeds = iter(range(seed * 1000, seed * 1000 + 1000))
        monkeypatch.setattr(match_module, "new_seed", lambda: next(seeds))

    return use


class Fidgety:
    """A Rummikub player that sometimes lays a tile on the table and takes it back first."""

    def __init__(self, bot: Bot, seed: int) -> None:
        self.bot = bot
        self.random = random.Random(seed)
        self.pending: list[dict[str, Any]] = []

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        if self.pending:
            return self.pending.pop()
        can_move = view.get("rack") and any(a["type"] == "move" for a in legal)
        if can_move and self.random.random() < 0.3:
            self.pending = [{"type": "reset"}]
            return {"type": "move", "tile": self.random.choice(view["rack"]), "to": "new"}
        return self.bot.choose(view, legal)


async def play_and_check(
    server: LiveServer, game: str, players: int, seed: int, **body: Any
) -> int:
    room = create_room(server, game=game, players=players, **body)
    room_id = room["room_id"]
    recorder = HiddenRecorder(server.directory.get(room_id))
    tokens = [join(server, room_id, f"p{seat}") for seat in range(players)]
    url = server.ws_url(room_id)
    clients = shared_clients([(url, token) for token in tokens] + [(url, None)])
    for client in clients:
        await client.connect()
    for client in clients[:players]:
        await client.send({"type": "ready"})
    bots = seat_bots(game, list(range(players)), seed)
    if game == "rummikub":
        bots = {seat: Fidgety(bot, seed + seat) for seat, bot in bots.items()}  # type: ignore[misc]
    moves = await play_until(clients, bots)
    leaks = [leak for client in clients for leak in recorder.leaks(client)]
    assert leaks == []
    for client in clients:
        await client.close()
    return moves


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (2, 3), (3, 4), (4, 5)])
async def test_gin_rummy_matches_never_show_a_hidden_card(
    server, deal_seed, players: int, seed: int
) -> None:
    deal_seed(seed)
    moves = await play_and_check(server, "gin_rummy", players, seed, options={"target": 40})
    assert moves > 0


@pytest.mark.parametrize(("players", "seed"), [(2, 11), (2, 14), (3, 12), (4, 13)])
async def test_rummikub_games_never_show_a_hidden_tile(
    server, deal_seed, players: int, seed: int
) -> None:
    deal_seed(seed)
    moves = await play_and_check(server, "rummikub", players, seed)
    assert moves > 0


def test_the_leak_check_itself_finds_a_hidden_name() -> None:
    from tests.api.live import SeatClient

    class FakeRoom:
        match = None
        version = 3

        class spec:
            players = 2

        class fanout:
            @staticmethod
            def broadcast(version: int, *arguments: Any) -> None: ...

    recorder = HiddenRecorder(FakeRoom())  # type: ignore[arg-type]
    recorder.hidden[3] = {None: {"H5"}, 0: set(), 1: set()}
    client = SeatClient("ws://unused", None)
    client.received.append((3, '{"type":"patch","patch":[{"value":"H5"}]}'))
    assert recorder.leaks(client) != []
