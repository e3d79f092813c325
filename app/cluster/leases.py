"""Room leases in Redis: which node owns a room, for how long, renewed together.

A lease is a key holding the owner's node id with an expiry. It is taken with SET NX (nobody
else holds it), renewed and given up only by its holder (checked in a script, so the check and
the change are one step in Redis). The lease decides who may claim a room; the database's fence
(app.storage) is what makes a claim safe, so a lease that Redis loses (a restart: it keeps
nothing on disk) costs at most a room moving, never a lost or doubled action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis

from app.cluster.keys import ClusterKeys

# Every lease of the node in one step: kept where the node holds it, taken back where nobody
# does (Redis restarted and forgot it), reported lost where another node holds it now.
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  elseif not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    lost[#lost + 1] = i
  end
end
return lost
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Leases:
    def __init__(self, redis: Redis, keys: ClusterKeys, node_id: str, lease_ms: int) -> None:
        self.redis = redis
        self.keys = keys
        self.node_id = node_id
        self.lease_ms = lease_ms
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(RELEASE)

    async def take(self, room_id: str) -> bool:
        """Take the room's lease if nobody holds it."""
        taken: Any = await self.redis.set(
            self.keys.lease(room_id), self.node_id, nx=True, px=self.lease_ms
        )
        return bool(taken)

    async def renew(self, room_ids: Sequence[str]) -> list[str]:
        """Renew every lease of these rooms; returns the rooms another node holds now."""
        if not room_ids:
            return []
        keys = [self.keys.lease(room_id) for room_id in room_ids]
        lost: list[int] = await self._renew(keys=keys, args=[self.node_id, self.lease_ms])
        return [room_ids[int(index) - 1] for index in lost]

    async def release(self, room_id: str) -> None:
        """Give the lease up, if this node still holds it."""
        await self._release(keys=[self.keys.lease(room_id)], args=[self.node_id])

    async def owner(self, room_id: str) -> str | None:
        held: Any = await self.redis.get(self.keys.lease(room_id))
        return None if held is None else bytes(held).decode()

    async def owners(self, room_ids: Sequence[str]) -> list[str | None]:
        if not room_ids:
            return []
        held: list[Any] = await self.redis.mget([self.keys.lease(room_id) for room_id in room_ids])
        return [None if h is None else bytes(h).decode() for h in held]
