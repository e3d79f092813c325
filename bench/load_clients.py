"""The bench's clients: two-seat Gin Rummy tables on meldhall, two-socket groups on the bare server.

Both keep at most one move in flight per room: a move is sent, then the next waits until the
actor has its ack and every seat has the move's message, so the two servers see the same
pattern of traffic. At a pace, the wait before each move is drawn around it (`Pacing`): with
one fixed wait, rooms started together stay in step and reach the server in bursts, so the
round trips measure how long a burst of hundreds of moves takes to drain rather than a move.
Both use bench/light_socket.py, which handles each message in a callback, so the clients take
as little of the shared CPU as they can.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from bench.light_socket import LightSocket
from examples.python_client import apply_patch, choose


@dataclass
class Stats:
    own: list[float] = field(default_factory=list)
    everyone: list[float] = field(default_factory=list)
    moves: int = 0
    measuring: bool = False

    def record(self, own: float, everyone: float) -> None:
        self.moves += 1
        if self.measuring:
            self.own.append(own)
            self.everyone.append(everyone)


@dataclass
class Pacing:
    """The wait before each move: `pace` seconds on average, spread evenly over +-`jitter` of
    it (0 keeps every wait at `pace`), from a seeded generator so runs repeat."""

    pace: float
    jitter: float = 0.0
    rng: random.Random = field(default_factory=lambda: random.Random(1))

    def wait(self) -> float:
        if not self.jitter:
            return self.pace
        return self.pace * self.rng.uniform(1 - self.jitter, 1 + self.jitter)


@dataclass
class InFlight:
    seat: int
    sent: float
    own: float | None = None
    key: int | None = None
    acked: bool = False


class Room:
    """What both kinds of table share: the move in flight and when each seat saw it."""

    def __init__(self, stats: Stats, pacing: Pacing, seats: int = 2) -> None:
        self.stats = stats
        self.pacing = pacing
        self.seats = seats
        self.active = False
        self.flight: InFlight | None = None
        self.scheduled = False
        self.arrivals: dict[int, dict[int, float]] = {}
        self.sockets: list[LightSocket] = []
        # Kept so the rematch requests are not garbage-collected mid-flight; pruned as they end.
        self.sends: set[asyncio.Future[None]] = set()

    def arrived(self, seat: int, key: int, now: float) -> None:
        flight = self.flight
        if flight is not None and flight.seat == seat and flight.own is None:
            flight.own = now - flight.sent
        self.arrivals.setdefault(key, {})[seat] = now
        self.settle()

    def settle(self) -> None:
        flight = self.flight
        if flight is None or flight.key is None or not flight.acked:
            return
        seen = self.arrivals.get(flight.key, {})
        if len(seen) < self.seats:
            return
        everyone = max(seen.values()) - flight.sent
        self.stats.record(flight.own if flight.own is not None else everyone, everyone)
        self.arrivals = {k: v for k, v in self.arrivals.items() if k > flight.key}
        self.flight = None
        self.next_move()

    def next_move(self) -> None:
        if not self.active or self.flight is not None or self.scheduled:
            return
        self.scheduled = True
        if self.pacing.pace:
            asyncio.get_running_loop().call_later(self.pacing.wait(), self.fire)
        else:
            self.fire()

    def fire(self) -> None:
        self.scheduled = False
        self.sends = {send for send in self.sends if not send.done()}
        if self.active and self.flight is None:
            self.move()

    def move(self) -> None:
        raise NotImplementedError

    def begin(self) -> None:
        self.active = True
        self.next_move()

    async def close(self) -> None:
        self.active = False
        await asyncio.gather(*self.sends, return_exceptions=True)
        for sock in self.sockets:
            sock.close()
        await asyncio.gather(*(sock.closed for sock in self.sockets))


class GinTable(Room):
    """One two-player Gin Rummy room on meldhall, both seats played over WebSockets."""

    def __init__(
        self,
        port: int,
        http: httpx.AsyncClient,
        stats: Stats,
        pacing: Pacing,
        deflate: bool = False,
    ) -> None:
        super().__init__(stats, pacing)
        self.port = port
        self.deflate = deflate
        self.http = http
        self.docs: list[Any] = [None, None]
        self.rematching = False
        self.versions = [-1, -1]

    async def open(self) -> None:
        body = {"game": "gin_rummy", "players": 2}
        room_id = (await self.http.post("/api/rooms", json=body)).json()["room_id"]
        self.room_id = room_id
        for seat in range(2):
            joined = await self.http.post(f"/api/rooms/{room_id}/join", json={"name": f"p{seat}"})
            if seat == 0:
                self.bearer = {"Authorization": f"Bearer {joined.json()['token']}"}
            sock = await LightSocket.connect(
                self.socket_port(seat),
                f"/ws/rooms/{room_id}",
                lambda text, seat=seat: self.read(seat, text),
                self.deflate,
            )
            sock.send(orjson.dumps({"type": "hello", "token": joined.json()["token"]}).decode())
            self.sockets.append(sock)
        for sock in self.sockets:
            sock.send('{"type":"ready"}')

    def socket_port(self, seat: int) -> int:
        """The port `seat`'s socket connects to (the room's own server here)."""
        return self.port

    def read(self, seat: int, text: str) -> None:
        now = time.perf_counter()
        message = orjson.loads(text)
        kind = message["type"]
        if kind in ("patch", "ack"):
            # An ack carries the patch of the action it answers.
            if kind == "ack" and self.flight is not None:
                self.flight.key, self.flight.acked = message["version"], True
            if message["from"] != self.versions[seat]:
                self.sockets[seat].send('{"type":"resync"}')
                return
            self.docs[seat] = apply_patch(self.docs[seat], message["patch"])
            self.versions[seat] = message["version"]
            self.arrived(seat, message["version"], now)
        elif kind == "snapshot":
            self.docs[seat], self.versions[seat] = message["state"], message["version"]
        elif kind == "error":
            self.flight = None
        self.next_move()

    async def rematch(self) -> None:
        # The pooled HTTP connection may have been closed by the server's keep-alive timeout
        # while the sockets played; one retry opens a fresh one.
        for _ in range(2):
            try:
                await self.http.post(f"/api/rooms/{self.room_id}/rematch", headers=self.bearer)
                break
            except httpx.TransportError:
                continue
        self.rematching = False

    def move(self) -> None:
        if self.docs[0] is not None and self.docs[0]["room"]["status"] == "finished":
            if not self.rematching:
                self.rematching = True
                self.sends.add(asyncio.ensure_future(self.rematch()))
            return
        for seat in range(2):
            doc = self.docs[seat]
            if doc is not None and doc["you"]["legal"]:
                action = choose("gin_rummy", doc["you"]["legal"])
                self.flight = InFlight(seat, time.perf_counter())
                message = {"type": "action", "seq": 1, "version": self.versions[seat]}
                message["action"] = action
                self.sockets[seat].send(orjson.dumps(message).decode())
                return


class BareGroup(Room):
    """Two sockets on the bare server taking turns to have a message broadcast to both."""

    def __init__(
        self, port: int, stats: Stats, pacing: Pacing, name: str, deflate: bool = False
    ) -> None:
        super().__init__(stats, pacing)
        self.port = port
        self.deflate = deflate
        self.path = f"/ws/{name}"
        self.counter = 0
        self.turn = 0

    async def open(self) -> None:
        for seat in range(2):
            self.sockets.append(
                await LightSocket.connect(
                    self.port,
                    self.path,
                    lambda text, seat=seat: self.read(seat, text),
                    self.deflate,
                )
            )

    def socket_port(self, seat: int) -> int:
        """The port `seat`'s socket connects to (the room's own server here)."""
        return self.port

    def read(self, seat: int, text: str) -> None:
        now = time.perf_counter()
        key = orjson.loads(text)["seq"]
        if self.flight is not None and self.flight.seat == seat and key == self.counter:
            self.flight.key, self.flight.acked = key, True
        self.arrived(seat, key, now)

    def move(self) -> None:
        self.counter += 1
        self.turn = 1 - self.turn
        self.flight = InFlight(self.turn, time.perf_counter())
        self.sockets[self.turn].send(str(self.counter))
