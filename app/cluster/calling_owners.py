"""Calls on rooms wherever they are held: answered here for a room held here, sent to the
owner otherwise, and given up once the owner no longer holds the room."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from redis.exceptions import RedisError

from app.cluster.answers import HANDLERS
from app.cluster.attached_sockets import AttachedSockets
from app.cluster.calls import CHECK_S, Lapsed, NotHere, Unreachable
from app.cluster.node_state import TRY_AGAIN, UNAVAILABLE
from app.rooms.errors import RoomError

MAYBE_MADE = (
    "the server holding this room did not answer; your request may or may not have been made: "
    "read the room's state before trying again"
)


class CallingOwners(AttachedSockets):
    """Calls on rooms, made here or on their owners."""

    async def call_room(
        self, room_id: str, op: str, arguments: dict[str, Any], *, again: bool
    ) -> Any:
        """Call `op` on the room wherever it is held; RoomError with the owner's refusal.

        Tried again while the room changes hands, up to two leases and a call's wait; `again`
        also after an owner that did not answer (for calls that change nothing).
        """
        result, _ = await self.call_room_from(room_id, op, arguments, again=again)
        return result

    async def call_room_from(
        self, room_id: str, op: str, arguments: dict[str, Any], *, again: bool
    ) -> tuple[Any, str]:
        """`call_room`, with the node that answered."""
        deadline = time.monotonic() + 2 * self.lease_s + 5
        delay = 0.05
        while True:
            room = self.directory.rooms.get(room_id)
            if room is not None and not room.lost:
                answer = await HANDLERS[op](self, room, {**arguments, "from": self.node_id})
                return answer, self.node_id
            owner = await self._owner(room_id)
            if owner is None or owner == self.node_id:
                if await self._take(room_id) is None and await self._owner(room_id) is None:
                    raise RoomError("room_not_found", f"no room {room_id!r}")
                continue
            try:
                return await self.calls.call(owner, op, room_id, arguments), owner
            except NotHere:
                self._owners.pop(room_id, None)
            except Unreachable as error:
                self._owners.pop(room_id, None)
                if not again:
                    if isinstance(error, Lapsed) and error.holder is None:
                        # Nobody holds the room now (its owner froze or died): taken over at
                        # once, as a room asked for while nobody owns it is, so that its sockets
                        # are served again without waiting for the orphan scan.
                        self._spawn(self._take_quietly(room_id))
                    raise RoomError(UNAVAILABLE, MAYBE_MADE) from error
            if time.monotonic() > deadline:
                raise RoomError(UNAVAILABLE, TRY_AGAIN)
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 2)

    async def _watch_calls(self) -> None:
        """Give up the calls whose owner no longer holds their room (app.cluster.calls): a
        frozen owner's inbox is still read by Redis, so its calls would otherwise wait out
        CALL_TIMEOUT_S, after its lease ran out, before the room could be taken over."""
        loop = asyncio.get_running_loop()
        while not self._stopping:
            await asyncio.sleep(CHECK_S)
            overdue = self.calls.overdue(loop.time())
            if not overdue:
                continue
            rooms = sorted({room_id for _, _, room_id in overdue})
            try:
                holders = dict(zip(rooms, await self.leases.owners(rooms), strict=True))
            except (RedisError, OSError):
                # Redis cannot tell who holds them: the calls wait on (for their timeout).
                continue
            for call_id, owner, room_id in overdue:
                holder = holders[room_id]
                if holder != owner:
                    if self._owners.get(room_id) == owner:
                        del self._owners[room_id]
                    self.calls.lapsed(call_id, holder)
