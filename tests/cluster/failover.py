"""Rooms whose owner fails while people play them through the live nodes, and how long each
waits for its next move: shared by the frozen-owner test (tests/cluster/test_frozen_owner.py)
and the failover bench (bench/bench_failover.py).

Each table is a Gin Rummy room opened on node n0, so that n0 owns it, with two people whose
sockets are held by n1 and n2 (relayed to the owner). They play as the browser client does: a
refused move is tried again on the same socket (the socket stays open), a player that loses
its socket reconnects (after 0.1 s, to the same live node), and one whose move goes unanswered
for ANSWER_WITHIN_S (a browser's pong timeout) reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonpatch
import websockets

from app.bots.registry import make_bot
from tests.cluster.cluster import Cluster

# Versions count from the room's epoch times this (a claim moves them past the old owner's).
EPOCH = 1_000_000_000
# A move unanswered this long: the player gives its socket up and reconnects.
ANSWER_WITHIN_S = 10.0


@dataclass
class Seat:
    url: str
    token: str
    seed: int
    pace_s: float
    # (when, version) of every move acknowledged.
    acks: list[tuple[float, int]] = field(default_factory=list)
    refusals: dict[str, int] = field(default_factory=dict)
    connections: int = 0
    stop: bool = False

    async def play(self) -> None:
        bot = make_bot("gin_rummy", "easy", self.seed)
        while not self.stop:
            with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
                await self._connection(bot)
            if not self.stop:
                await asyncio.sleep(0.1)

    async def _connection(self, bot: Any) -> None:
        async with websockets.connect(self.url, open_timeout=10, close_timeout=1) as socket:
            self.connections += 1
            await socket.send(json.dumps({"type": "hello", "token": self.token}))
            doc: Any = None
            version = -1
            seq = 0
            pending: int | None = None
            sent_at = 0.0
            while not self.stop:
                wait = 0.5 if pending is None else max(0.05, sent_at + ANSWER_WITHIN_S - now())
                try:
                    text = await asyncio.wait_for(socket.recv(), wait)
                except TimeoutError:
                    if pending is not None and now() >= sent_at + ANSWER_WITHIN_S:
                        return
                    text = None
                if text is not None:
                    message = json.loads(text)
                    kind = message["type"]
                    if kind == "snapshot":
                        doc, version = message["state"], message["version"]
                    elif kind in ("patch", "ack"):
                        if message["from"] != version:
                            return
                        doc = jsonpatch.apply_patch(doc, message["patch"])
                        version = message["version"]
                    if kind == "ack" and message["seq"] == pending:
                        self.acks.append((now(), version))
                        pending = None
                    elif kind == "error" and message.get("seq") == pending:
                        code = message["code"]
                        self.refusals[code] = self.refusals.get(code, 0) + 1
                        pending = None
                if doc is None or pending is not None or not doc["you"]["legal"]:
                    continue
                if doc["room"]["status"] != "playing":
                    continue
                await asyncio.sleep(self.pace_s)
                seq += 1
                pending, sent_at = seq, now()
                action = bot.choose(doc["game"], doc["you"]["legal"])
                await socket.send(
                    json.dumps({"type": "action", "seq": seq, "action": action, "version": version})
                )


def now() -> float:
    return time.monotonic()


@dataclass
class Table:
    room_id: str
    seats: list[Seat]

    def first_after(self, epoch: int) -> float | None:
        """When a move of a later epoch than `epoch` was first acknowledged."""
        times = [at for seat in self.seats for at, version in seat.acks if version // EPOCH > epoch]
        return min(times) if times else None

    def last_before(self, moment: float) -> float | None:
        times = [at for seat in self.seats for at, _ in seat.acks if at <= moment]
        return max(times) if times else None


async def open_table(cluster: Cluster, index: int, pace_s: float) -> Table:
    n0, n1, n2 = cluster.nodes
    async with httpx.AsyncClient(base_url=n0.url, timeout=30) as http:
        created = await http.post(
            "/api/rooms", json={"game": "gin_rummy", "options": {"target": 10_000}}
        )
        created.raise_for_status()
        room_id = created.json()["room_id"]
        tokens = []
        for name in ("ann", "bob"):
            joined = await http.post(f"/api/rooms/{room_id}/join", json={"name": name})
            joined.raise_for_status()
            tokens.append(joined.json()["token"])
        for token in tokens:
            ready = await http.post(
                f"/api/rooms/{room_id}/ready", headers={"Authorization": f"Bearer {token}"}
            )
            ready.raise_for_status()
    seats = [
        Seat(cluster.ws_url(node, room_id), token, 1000 * index + i, pace_s)
        for i, (node, token) in enumerate(zip((n1, n2), tokens, strict=True))
    ]
    return Table(room_id, seats)


def epoch_of(table: Table) -> int:
    versions = [version for seat in table.seats for _, version in seat.acks]
    return max(versions) // EPOCH if versions else 0


async def wait_for_moves(tables: list[Table], moves: int = 2, seconds: float = 30) -> None:
    """Until every seat of every table has had `moves` moves acknowledged."""
    deadline = now() + seconds
    while any(len(seat.acks) < moves for table in tables for seat in table.seats):
        assert now() < deadline, "the rooms did not start playing"
        await asyncio.sleep(0.1)


async def time_to_playable(
    tables: list[Table], fault: Callable[[], None], give_up: float
) -> list[float]:
    """Make the fault, then wait until every table has a move acknowledged by a new owner (at
    most `give_up` seconds): for each, the seconds from the fault to that move (`give_up` for
    one that had none)."""
    epochs = {table.room_id: epoch_of(table) for table in tables}
    faulted = now()
    fault()
    deadline = faulted + give_up
    while now() < deadline and any(  # noqa: ASYNC110  # polls what the players recorded
        table.first_after(epochs[table.room_id]) is None for table in tables
    ):
        await asyncio.sleep(0.05)
    waits = []
    for table in tables:
        first = table.first_after(epochs[table.room_id])
        waits.append(give_up if first is None else first - faulted)
    return waits


def refusals(tables: list[Table]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for table in tables:
        for seat in table.seats:
            for code, count in seat.refusals.items():
                counted[code] = counted.get(code, 0) + count
    return counted


@contextlib.asynccontextmanager
async def played(tables: list[Table]) -> Any:
    """The tables' players playing for as long as the block runs."""
    players = [asyncio.create_task(seat.play()) for table in tables for seat in table.seats]
    try:
        yield
    finally:
        for table in tables:
            for seat in table.seats:
                seat.stop = True
        for player in players:
            player.cancel()
        await asyncio.gather(*players, return_exceptions=True)
