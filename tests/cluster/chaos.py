"""Faults on a running cluster while its tables play: a random node killed -9 every few seconds
and restarted, one node paused past its lease and resumed, Redis restarted once, and (with
`hang_redis`) Redis hung past the lease once, its sockets open (SIGSTOP), then resumed.

Shared by the suite's short run (tests/cluster/test_chaos.py) and the long one
(bench/chaos_cluster.py); both count the same faults afterwards (tests/cluster/tables.py).
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from dataclasses import dataclass, field

from tests.cluster.cluster import Cluster, RedisServer


@dataclass
class Chaos:
    cluster: Cluster
    redis: RedisServer
    seconds: float
    kill_every_s: float = 4.0
    seed: int = 1
    hang_redis: bool = False
    events: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        self.events.append(f"{time.monotonic() - self.started:6.1f}s {what}")

    async def run(self) -> None:
        rng = random.Random(self.seed)
        self.started = time.monotonic()
        end = self.started + self.seconds
        pause_at = self.started + self.seconds * 0.4
        redis_at = self.started + self.seconds * 0.7
        hang_at = self.started + self.seconds * 0.85
        paused = redis_restarted = False
        hung = not self.hang_redis
        while time.monotonic() < end:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * self.kill_every_s)
            now = time.monotonic()
            if not hung and now >= hang_at:
                hung = True
                await self.hang()
            elif not paused and now >= pause_at:
                paused = True
                await self.pause(rng)
            elif not redis_restarted and now >= redis_at:
                redis_restarted = True
                self.redis.stop()
                self.note("redis stopped")
                await asyncio.sleep(1)
                self.redis.start()
                self.note("redis started")
            else:
                await self.kill_one(rng)
        # Everyone back for the end of the matches.
        for index, node in enumerate(self.cluster.nodes):
            if not node.running:
                await asyncio.to_thread(node.start)
                self.note(f"n{index} started")

    async def kill_one(self, rng: random.Random) -> None:
        running = [i for i, node in enumerate(self.cluster.nodes) if node.running]
        if len(running) <= 1:
            return
        victim = rng.choice(running)
        self.cluster.nodes[victim].kill()
        self.note(f"n{victim} killed")
        for index, node in enumerate(self.cluster.nodes):
            # The one killed before comes back: at most one node down at a time.
            if index != victim and not node.running:
                await asyncio.to_thread(node.start)
                self.note(f"n{index} started")

    async def hang(self) -> None:
        assert self.redis.process is not None
        self.redis.process.send_signal(signal.SIGSTOP)
        self.note("redis hung")
        try:
            await asyncio.sleep(3 * self.cluster.lease_s)
        finally:
            self.redis.process.send_signal(signal.SIGCONT)
        self.note("redis resumed")

    async def pause(self, rng: random.Random) -> None:
        running = [i for i, node in enumerate(self.cluster.nodes) if node.running]
        victim = rng.choice(running)
        node = self.cluster.nodes[victim]
        node.signal(signal.SIGSTOP)
        self.note(f"n{victim} paused")
        await asyncio.sleep(3 * self.cluster.lease_s)
        node.signal(signal.SIGCONT)
        self.note(f"n{victim} resumed")
