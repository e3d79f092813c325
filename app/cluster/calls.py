"""Calls on rooms between nodes: the caller's side, its calls waiting for answers.

A call is one bus message to the room's owner and one answer back. A call the bus could not
deliver (nobody reads the owner's inbox: it is gone) surely was not made, so it may be tried
again anywhere; a call that went unanswered may have been made, so only calls that change
nothing are tried again then (app.cluster.remote).

A call waits for its answer no longer than its owner holds the room: an owner frozen (SIGSTOP,
a stopped VM, a partition that drops nothing) still has its inbox read by Redis, so its calls
are delivered and never answered. The node checks the rooms of calls waiting past
OVERDUE_S against their leases every CHECK_S (`overdue`, `lapsed`), and gives a call up as soon
as the lease no longer names the owner it was sent to, or the owner's mark of being alive is
gone (`owner_gone`): the room is taken over then, instead of after CALL_TIMEOUT_S.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import orjson

from app.cluster import wire
from app.rooms.errors import RoomError

# How long a call waits for the owner's answer before the owner counts as unreachable.
CALL_TIMEOUT_S = 5.0
# A call unanswered this long has its room's lease checked, every CHECK_S, until it is answered.
OVERDUE_S = 0.2
CHECK_S = 0.2


class Unreachable(Exception):
    """The owner did not answer in time: the call may or may not have been made."""


class Lapsed(Unreachable):
    """The owner stopped holding the room (its lease ran out or names another node now, or its
    mark of being alive is gone) before it answered: the call may or may not have been made.
    `holder` is the lease's holder now, if known."""

    def __init__(self, owner: str, holder: str | None) -> None:
        super().__init__(owner)
        self.owner = owner
        self.holder = holder


class NotHere(Exception):
    """The call was not made: the node does not hold the room, or never got the call."""


class Calls:
    """The calls this node is waiting on, by id.

    An id names the process that made the call (`incarnation`), not only its node: a node
    restarted under the same name could otherwise take an answer to a call of its previous
    process for the answer to one of its own."""

    def __init__(self, send: Callable[[str, bytes], None], node_id: str, incarnation: str) -> None:
        self._send = send
        self._node_id = node_id
        self._incarnation = incarnation
        self._ids = itertools.count(1)
        # By id: (owner, room, when sent, the answer to come).
        self._waiting: dict[str, tuple[str, str, float, asyncio.Future[dict[str, Any]]]] = {}

    async def call(self, owner: str, op: str, room_id: str, arguments: dict[str, Any]) -> Any:
        call_id = f"{self._incarnation}.{next(self._ids)}"
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._waiting[call_id] = (owner, room_id, loop.time(), answer)
        body = {"id": call_id, "from": self._node_id, "op": op, "room": room_id, **arguments}
        self._send(owner, wire.call(body))
        try:
            async with asyncio.timeout(CALL_TIMEOUT_S):
                reply = await answer
        except TimeoutError:
            raise Unreachable(owner) from None
        finally:
            self._waiting.pop(call_id, None)
        refused = reply.get("err")
        if refused is None:
            return reply.get("ok")
        code, message = refused
        if code == "not_here":
            raise NotHere(owner)
        raise RoomError(code, message)

    def answered(self, reply: dict[str, Any]) -> None:
        waiting = self._waiting.get(reply["re"])
        if waiting is not None and not waiting[3].done():
            waiting[3].set_result(reply)

    def overdue(self, now: float) -> list[tuple[str, str, str]]:
        """(call, owner, room) of the calls unanswered for OVERDUE_S (by the loop's clock)."""
        return [
            (call_id, owner, room_id)
            for call_id, (owner, room_id, sent, answer) in self._waiting.items()
            if now - sent >= OVERDUE_S and not answer.done()
        ]

    def lapsed(self, call_id: str, holder: str | None) -> None:
        """The call's owner no longer holds its room: it is given up now."""
        waiting = self._waiting.get(call_id)
        if waiting is not None and not waiting[3].done():
            waiting[3].set_exception(Lapsed(waiting[0], holder))

    def owner_gone(self, node: str) -> None:
        """`node`'s mark of being alive is gone: every call waiting on it is given up now."""
        for owner, _, _, answer in list(self._waiting.values()):
            if owner == node and not answer.done():
                answer.set_exception(Lapsed(node, None))

    def undelivered(self, messages: list[bytes]) -> None:
        """These messages reached nobody: their calls were not made."""
        for message in messages:
            if message[:1] != wire.CALL:
                continue
            waiting = self._waiting.get(orjson.loads(message[1:])["id"])
            if waiting is not None and not waiting[3].done():
                waiting[3].set_result({"err": ["not_here", "the owner is gone"]})
