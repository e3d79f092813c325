"""A cluster of real `meldhall serve` nodes on this machine's PostgreSQL and a Redis, for tests.

Each cluster gets a fresh database and a Redis key prefix of its own, so clusters of different
tests never meet. A test that restarts Redis runs a Redis server of its own (`RedisServer`).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis

from app.games.registry import engine_for
from app.storage.store import StoredMatch, open_store
from tests.conftest import missing_service
from tests.processes import ServerProcess, free_port, server_env

REDIS_URL = "redis://127.0.0.1:6379/0"


def check_redis(url: str = REDIS_URL) -> None:
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        missing_service(f"Redis at {url} is unreachable: {error}")


@dataclass
class RedisServer:
    """A redis-server of the test's own, keeping nothing on disk, that it may restart."""

    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            missing_service("redis-server is not installed (apt-get install -y redis-server)")
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--logfile",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
                return self
            except redis.RedisError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@dataclass
class Cluster:
    """Nodes of one cluster: node i is `nodes[i]`, named n<i>."""

    tmp: Path
    database_url: str
    redis_url: str
    name: str = field(default_factory=lambda: f"test-{uuid.uuid4().hex[:10]}")
    lease_s: float = 2.0
    settings: dict[str, str] = field(default_factory=dict)
    nodes: list[ServerProcess] = field(default_factory=list)

    def add_node(self, **settings: str) -> ServerProcess:
        index = len(self.nodes)
        env = server_env(
            self.tmp / f"n{index}",
            **{
                "DATABASE_URL": self.database_url,
                "MELDHALL_REDIS_URL": self.redis_url,
                "MELDHALL_CLUSTER_NAME": self.name,
                "MELDHALL_NODE_ID": f"n{index}",
                "MELDHALL_LEASE_S": str(self.lease_s),
                **self.settings,
                **settings,
            },
        )
        node = ServerProcess(env, self.tmp / f"n{index}.log")
        self.nodes.append(node)
        return node

    def start(self, count: int, first: dict[str, str] | None = None) -> Cluster:
        """`count` nodes, the first with the settings `first` besides the cluster's."""
        for index in range(count):
            self.add_node(**((first or {}) if index == 0 else {})).start(wait=False)
        for node in self.nodes:
            node.wait_healthy()
        return self

    def stop(self) -> None:
        for node in self.nodes:
            if node.running:
                try:
                    node.stop(30)
                except subprocess.TimeoutExpired:
                    node.kill()

    def redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url)

    def owner(self, room_id: str) -> str | None:
        held = self.redis().get(f"{self.name}:lease:{room_id}")
        return None if held is None else bytes(held).decode()

    def node_named(self, name: str) -> ServerProcess:
        return self.nodes[int(name[1:])]

    def ws_url(self, node: ServerProcess, room_id: str) -> str:
        return f"ws://127.0.0.1:{node.env['MELDHALL_PORT']}/ws/rooms/{room_id}"

    def logs(self) -> str:
        return "\n".join(f"--- {node.log.name}\n{node.output()[-4000:]}" for node in self.nodes)


async def stored_match(database_url: str, match_id: str) -> StoredMatch:
    store = open_store(database_url)
    await store.start()
    try:
        stored = await store.load_match(match_id=match_id)
    finally:
        await store.close()
    assert stored is not None
    return stored


def authentic_views(stored: StoredMatch, viewers: list[int | None]) -> list[dict[Any, Any]]:
    """For each prefix of the log: each viewer's view and the names hidden from it."""
    import orjson

    engine_cls = engine_for(stored.game)
    engine = engine_cls.new(stored.config, stored.players, seed=stored.seed)
    steps: list[dict[Any, Any]] = []

    def record() -> None:
        steps.append(
            {
                viewer: (
                    orjson.loads(orjson.dumps(engine.view(viewer))),
                    engine.hidden_from(viewer),
                )
                for viewer in viewers
            }
        )

    record()
    for action in stored.actions:
        engine.apply(action.seat, action.action)
        record()
    return steps


def base(node: ServerProcess) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=node.url, timeout=30)


def free_redis() -> RedisServer:
    return RedisServer(free_port())


async def wait_until(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.05)
