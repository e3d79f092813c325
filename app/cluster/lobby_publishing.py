"""The lobby across nodes: this node's public waiting rooms published in Redis, and every
node's read back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import orjson
from redis.exceptions import RedisError

from app.cluster.node_state import NodeState

# Every part of a node logs as the node.
log = logging.getLogger("app.cluster.node")


class LobbyPublishing(NodeState):
    """Each node publishes its lobby; any node lists them all."""

    async def lobby(self, game: str | None = None) -> list[dict[str, Any]]:
        """Every node's public waiting rooms: this one's as they are now, the others' as they
        published them (at their last tick, or just after a change); only this node's while
        Redis is away."""
        found = {info["room_id"]: info for info in await self.directory.lobby(game)}
        try:
            now_ms = int(time.time() * 1000)
            members: list[Any] = await self.redis.zrangebyscore(self.keys.nodes, now_ms, "+inf")
            alive = [bytes(member).decode() for member in members]
            others = [node for node in alive if node != self.node_id]
            pipe = self.redis.pipeline(transaction=False)
            for node in others:
                pipe.hvals(self.keys.lobby(node))
            published = await pipe.execute()
        except (RedisError, OSError) as error:
            # Without Redis the others' rooms cannot be listed; this node's still can.
            log.warning("listing the lobby without the other nodes' rooms: %s", error)
            published = []
        for entries in published:
            for entry in entries:
                info = orjson.loads(entry)
                if game is not None and info["game"] != game:
                    continue
                kept = found.get(info["room_id"])
                if kept is None or kept["version"] < info["version"]:
                    found[info["room_id"]] = info
        return sorted(found.values(), key=lambda info: str(info["room_id"]))

    def lobby_changed(self) -> None:
        """Publish this node's lobby soon, rather than at the next tick."""
        if not self._lobby_soon:
            self._lobby_soon = True
            self._spawn(self._publish_lobby_soon())

    async def _publish_lobby_soon(self) -> None:
        await asyncio.sleep(0.02)
        self._lobby_soon = False
        with contextlib.suppress(RedisError, OSError):
            pipe = self.redis.pipeline(transaction=True)
            await self._queue_lobby(pipe)
            await pipe.execute()

    async def _queue_lobby(self, pipe: Any) -> None:
        lobby = self.keys.lobby(self.node_id)
        entries = {info["room_id"]: orjson.dumps(info) for info in await self.directory.lobby()}
        pipe.delete(lobby)
        if entries:
            pipe.hset(lobby, mapping=entries)
            pipe.pexpire(lobby, int(self.lease_s * 3000))
