"""Driving seat clients through whole matches, and checking what they were sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

from app.bots.base import Bot
from app.bots.registry import make_bot
from app.rooms.room import Room
from tests.api.live import SeatClient


async def play_until(
    clients: list[SeatClient], bots: dict[int, Bot], status: str = "finished", limit: int = 4000
) -> int:
    """Each seated client moves with its bot's choice until every client sees `status`."""
    changed = clients[0].changed
    moves = 0
    for _ in range(limit):
        changed.clear()
        if all(c.doc is not None and c.status == status for c in clients):
            return moves
        actor = next((c for c in clients if c.token and c.status == "playing" and c.legal), None)
        if actor is None:
            await asyncio.wait_for(changed.wait(), 10)
            continue
        assert actor.doc is not None
        seat = actor.doc["you"]["seat"]
        action = bots[seat].choose(actor.doc["game"], actor.legal)
        reply = await actor.act(action, actor.version)
        if reply["type"] == "error":
            assert reply["code"] == "stale_version", reply
        moves += 1
    raise AssertionError(f"no {status!r} after {limit} steps")


def seat_bots(game: str, seats: list[int], seed: int = 1) -> dict[int, Bot]:
    return {seat: make_bot(game, "normal", seed + seat) for seat in seats}


def shared_clients(urls_tokens: list[tuple[str, str | None]]) -> list[SeatClient]:
    """Clients sharing one change event, so a driver can wait for any of them."""
    event = asyncio.Event()
    return [SeatClient(url, token, changed=event) for url, token in urls_tokens]


def strings(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in a JSON value, object keys included, with where it sits."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield path, key
            yield from strings(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{path}/{index}")


class RecordingFanout:
    """A room's fan-out that calls `record` with each version before broadcasting it (a
    wrapper: a compiled fan-out's methods cannot be replaced)."""

    def __init__(self, fanout: Any, record: Callable[[int], None]) -> None:
        self.fanout = fanout
        self.record = record

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fanout, name)

    def broadcast(self, version: int, *arguments: Any) -> None:
        self.record(version)
        self.fanout.broadcast(version, *arguments)


class HiddenRecorder:
    """What the engine hid from each viewer at every version the room sent."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.hidden: dict[int, dict[int | None, set[str]]] = {}
        room.fanout = RecordingFanout(room.fanout, self.record)  # type: ignore[assignment]
        self.record(room.version)

    def record(self, version: int) -> None:
        match = self.room.match
        viewers: list[int | None] = [None, *range(self.room.spec.players)]
        self.hidden[version] = {
            viewer: (match.engine.hidden_from(viewer) if match else set()) for viewer in viewers
        }

    def leaks(self, client: SeatClient) -> list[str]:
        """Messages that held a name hidden from the client's viewer at that version."""
        seat = None if client.token is None else client.doc["you"]["seat"]  # type: ignore[index]
        found = []
        for version, text in client.received:
            hidden = self.hidden[version][seat]
            leaked = [(where, name) for where, name in strings(json.loads(text)) if name in hidden]
            if leaked:
                found.append(f"v{version} seat {seat}: {leaked} in {text[:300]}")
        return found
