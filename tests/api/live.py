"""A real uvicorn server on 127.0.0.1 in a thread, and WebSocket seat clients for the tests."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import jsonpatch
import uvicorn
import websockets

from app.cli import uvicorn_config
from app.main import create_app
from app.rooms.directory import RoomDirectory
from app.settings import Settings

TEST_SETTINGS: dict[str, Any] = {
    "bot_delay_ms": 0,
    "between_hands_s": 0,
    "reconnect_grace_s": 0,
    "ws_messages_per_second": 10_000.0,
    "ws_burst": 10_000,
    "log_level": "warning",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class LiveServer:
    server: uvicorn.Server
    port: int
    settings: Settings

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, room_id: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/rooms/{room_id}"

    @property
    def directory(self) -> RoomDirectory:
        directory: RoomDirectory = self.server.config.loaded_app.app.state.directory  # type: ignore[attr-defined]
        return directory


@contextmanager
def live_server(store_url: str = "memory://", **overrides: Any) -> Iterator[LiveServer]:
    port = free_port()
    settings = Settings(**{**TEST_SETTINGS, **overrides, "host": "127.0.0.1", "port": port})
    app = create_app(settings, store_url=store_url)
    server = uvicorn.Server(uvicorn_config(settings, app))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield LiveServer(server, port, settings)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def create_room(server: LiveServer, **body: Any) -> dict[str, Any]:
    response = httpx.post(f"{server.http}/api/rooms", json=body)
    assert response.status_code == 201, response.text
    room: dict[str, Any] = response.json()
    return room


def join(server: LiveServer, room_id: str, name: str, seat: int | None = None) -> str:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    response = httpx.post(f"{server.http}/api/rooms/{room_id}/join", json=body)
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def call(
    server: LiveServer, method: str, path: str, token: str | None = None, **kwargs: Any
) -> httpx.Response:
    """One REST call from async code, with the seat token as bearer when given."""
    headers = bearer(token) if token else {}
    async with httpx.AsyncClient(base_url=server.http) as client:
        return await client.request(method, path, headers=headers, **kwargs)


@dataclass
class SeatClient:
    """One socket: keeps its document up to date from snapshots and patches."""

    url: str
    token: str | None
    received: list[tuple[int, str]] = field(default_factory=list)
    doc: dict[str, Any] | None = None
    version: int = -1
    seq: int = 0
    replies: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    loose: list[dict[str, Any]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    close_code: int | None = None
    on_message: Callable[[SeatClient, str], None] | None = None

    async def connect(self, **options: Any) -> SeatClient:
        self.socket = await websockets.connect(self.url, **options)
        await self.socket.send(json.dumps({"type": "hello", "token": self.token}))
        self.reader = asyncio.create_task(self._read())
        await self.wait_for(lambda: self.doc is not None or self.closed.is_set())
        return self

    async def close(self) -> None:
        await self.socket.close()
        await self.reader

    async def _read(self) -> None:
        try:
            async for text in self.socket:
                assert isinstance(text, str)
                self._handle(text)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.socket.close_code
            self.closed.set()
            self.changed.set()

    def _handle(self, text: str) -> None:
        message = json.loads(text)
        kind = message["type"]
        if kind == "snapshot":
            self.doc, self.version = message["state"], message["version"]
        elif kind in ("patch", "ack"):
            assert message["from"] == self.version, (message["from"], self.version)
            self.doc = jsonpatch.apply_patch(self.doc, message["patch"])
            self.version = message["version"]
        self.received.append((self.version, text))
        if self.on_message is not None:
            self.on_message(self, text)
        seq = message.get("seq")
        if kind in ("ack", "error") and seq in self.replies:
            self.replies.pop(seq).set_result(message)
        elif kind in ("ack", "error", "pong"):
            self.loose.append(message)
        self.changed.set()

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.socket.send(message if isinstance(message, str) else json.dumps(message))

    async def act(self, action: dict[str, Any], version: int | None = None) -> dict[str, Any]:
        self.seq += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[self.seq] = future
        message: dict[str, Any] = {"type": "action", "seq": self.seq, "action": action}
        if version is not None:
            message["version"] = version
        await self.send(message)
        return await asyncio.wait_for(future, 10)

    async def wait_for(self, done: Callable[[], bool], seconds: float = 10) -> None:
        async with asyncio.timeout(seconds):
            while not done():
                self.changed.clear()
                await self.changed.wait()

    @property
    def status(self) -> str:
        assert self.doc is not None
        status: str = self.doc["room"]["status"]
        return status

    @property
    def legal(self) -> list[dict[str, Any]]:
        assert self.doc is not None
        legal: list[dict[str, Any]] = self.doc["you"]["legal"]
        return legal
