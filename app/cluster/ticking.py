"""The tick: leases renewed, the node marked alive, the others' marks read, and orphans
taken over, with the database's work beside the ticks."""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import Coroutine
from typing import Any

from redis.exceptions import RedisError

from app.cluster.attached_sockets import AttachedSockets
from app.rooms.errors import RoomError
from app.storage.store import StoreError

# Every part of a node logs as the node.
log = logging.getLogger("app.cluster.node")

# What a node's mark of being alive says it reads, after the time the mark runs to: a node
# of a release before numbered bundles marks only the time.
READS = "numbered"
# ... and that it reaches the database (it did within the last lease).
DATABASE = "database"


class Ticking(AttachedSockets):
    """What the node does every tick."""

    async def _tick_forever(self) -> None:
        ticks = 0
        # Ended by `_stopping` as well as by the stop's cancel: a cancel that lands inside a
        # library's call may be swallowed there, and the stop, which awaits this task, would
        # wait for ever (seen in a rolling restart: the node never exited; the call was a
        # Redis write on Python 3.11, which `clients` now makes pass the cancel on).
        while True:
            await asyncio.sleep(self.tick_s)
            if self._stopping:
                return
            ticks += 1
            try:
                await self._tick(scan=ticks % 2 == 0)
            except (RedisError, OSError) as error:
                # The rooms play on: the database's fence, not the lease, keeps them safe.
                log.warning("could not reach Redis this tick: %r", error)
                if self._leases_in_doubt():
                    self._beside_ticks("fence check", self._check_fences())
            except Exception:
                log.exception("the cluster tick failed")

    async def _tick(self, *, scan: bool) -> None:
        started = time.monotonic()
        in_doubt = self._leases_in_doubt(started)
        for room_id in await self.leases.renew(list(self.directory.rooms)):
            room = self.directory.rooms.get(room_id)
            if room is not None:
                log.warning("room %s is held by another node now; dropping it", room_id)
                self.directory.drop(room)
        self._renewed_at = started
        if in_doubt:
            # The leases may have run out before this renewal, and a room been claimed and
            # given up by another node since: the renewal took its lease again.
            self._beside_ticks("fence check", self._check_fences())
        await self._mark_alive()
        self._close_relays_of_dead_owners()
        self._drop_sockets_of_dead_nodes()
        if scan:
            self._beside_ticks("orphan scan", self._scan_orphans())

    def _beside_ticks(self, name: str, work: Coroutine[Any, Any, None]) -> None:
        """Work that reads the database runs beside the ticks, never in their way: a slow
        database must not hold up the renewals (the leases would run out on every node). One
        of each at a time; a tick that finds it still running skips it."""
        running = self._beside.get(name)
        if running is not None and not running.done():
            work.close()
            return

        async def run() -> None:
            try:
                await work
            except (RoomError, StoreError, RedisError, OSError) as error:
                log.warning("%s failed: %r", name, error)
            except Exception:
                log.exception("%s failed", name)

        self._beside[name] = asyncio.get_running_loop().create_task(run(), name=name)

    async def _check_fences(self) -> None:
        await self._still_held(list(self.directory.rooms.values()))

    async def _mark_alive(self) -> None:
        now_ms = int(time.time() * 1000)
        until = now_ms + int(self.lease_s * 1000)
        pipe = self.redis.pipeline(transaction=True)
        # The mark says what the node reads besides: numbered bundles (app.cluster.bus).
        reads = f"{until} {READS} {DATABASE}" if self._reaches_database() else f"{until} {READS}"
        pipe.set(self.keys.alive(self.node_id), reads, px=int(self.lease_s * 1000))
        pipe.zadd(self.keys.nodes, {self.node_id: until})
        # Nodes gone for a minute leave the set.
        pipe.zremrangebyscore(self.keys.nodes, "-inf", until - 60_000)
        await self._queue_lobby(pipe)
        pipe.zrangebyscore(self.keys.nodes, now_ms, "+inf")
        members = (await pipe.execute())[-1]
        # The marks of the nodes alive, and of every node this one relays for or holds sockets
        # of, in one read: whose mark is gone is gone.
        nodes = sorted(
            {bytes(member).decode() for member in members}
            | {c.owner for c in self._relayed.values() if c.owner is not None}
            | {node for node, _ in self._remote}
        )
        marks: list[Any] = await self.redis.mget([self.keys.alive(node) for node in nodes])
        self._alive = {
            node: bytes(mark).split()[1:]
            for node, mark in zip(nodes, marks, strict=True)
            if mark is not None
        }
        self._gone = {node for node, mark in zip(nodes, marks, strict=True) if mark is None}
        self._forget_gone_owners()
        self.bus.numbered = {node for node, said in self._alive.items() if READS.encode() in said}
        self.bus.forget_silent(set(self._alive))
        self._others_reach_database = any(
            DATABASE.encode() in said for node, said in self._alive.items() if node != self.node_id
        )

    def _forget_gone_owners(self) -> None:
        """Nodes whose marks are gone (dead, or frozen past a lease) own nothing any more: the
        calls waiting on them are given up, and their rooms are looked up again."""
        if not self._gone:
            return
        for room_id in [r for r, owner in self._owners.items() if owner in self._gone]:
            del self._owners[room_id]
        for node in self._gone:
            self.calls.owner_gone(node)

    async def _scan_orphans(self) -> None:
        now = time.monotonic()
        held = self.directory.rooms
        open_ids = [r for r in await self.directory.store.open_room_ids() if r not in held]
        owners = await self.leases.owners(open_ids)
        orphans = []
        for room_id, owner in zip(open_ids, owners, strict=True):
            if owner is not None:
                self._missing_since.pop(room_id, None)
                continue
            since = self._missing_since.setdefault(room_id, now)
            if now - since >= 1.5 * self.tick_s:
                orphans.append(room_id)
        for room_id in set(self._missing_since) - set(open_ids):
            del self._missing_since[room_id]
        if not orphans:
            return
        alive = await self.redis.zcount(self.keys.nodes, int(time.time() * 1000), "+inf")
        random.shuffle(orphans)
        for room_id in orphans[: math.ceil(len(orphans) / max(1, alive))]:
            try:
                await self._take(room_id)
            except (RoomError, StoreError) as error:
                log.warning("could not take room %s over: %s", room_id, error)
