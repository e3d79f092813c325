"""Calls on rooms between nodes: the caller's waiting calls, and the owner's answers.

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
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import orjson

from app.cluster import wire
from app.games.engine import IllegalAction
from app.rooms.errors import RoomError
from app.rooms.room import Room

if TYPE_CHECKING:
    from app.cluster.node import ClusterNode

log = logging.getLogger(__name__)

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


Handler = Callable[["ClusterNode", Room, dict[str, Any]], Awaitable[Any]]


async def serve(node: ClusterNode, request: dict[str, Any]) -> None:
    """Make a call on a room held here and answer it."""
    sender, call_id = request["from"], request["id"]
    room = await node.held_room(request["room"])
    handler = HANDLERS.get(request["op"])
    if room is None or handler is None:
        node.bus.send(sender, wire.refusal(call_id, "not_here", "not held here"))
        return
    try:
        result = await handler(node, room, request)
    except (RoomError, IllegalAction) as refused:
        # A room lost meanwhile made nothing: the caller may go to its new owner.
        code = "not_here" if room.lost else refused.code
        node.bus.send(sender, wire.refusal(call_id, code, refused.message))
    except Exception:
        log.exception("call %s on room %s failed", request["op"], request["room"])
        node.bus.send(sender, wire.refusal(call_id, "internal_error", "the call failed"))
    else:
        node.bus.send(sender, wire.answer(call_id, result))


async def _describe(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    return await room.describe()


async def _read(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    version, state = await room.read(request["token_hash"])
    return {"version": version, "state": state}


async def _legal(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    version, actions = await room.legal(request["token_hash"])
    return {"version": version, "actions": actions}


async def _join(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    seat = await room.join(
        request["name"], request["wanted"], request["token_hash"], request.get("player_id")
    )
    node.lobby_changed()
    return seat


async def _leave(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.leave(request["token_hash"])
    node.lobby_changed()


async def _add_bot(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    seat = await room.add_bot(request["wanted"], request["level"])
    node.lobby_changed()
    return seat


async def _remove_bot(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.remove_bot(request["index"])
    node.lobby_changed()


async def _ready(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.ready(request["token_hash"])
    node.lobby_changed()


async def _rematch(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.rematch(request["token_hash"])


async def _hand_to_bot(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.hand_to_bot(request["token_hash"], request["index"])


async def _act(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    ack = None
    conn_id = request.get("conn")
    if conn_id is not None:
        ack = (node.remote_connection(request["from"], conn_id), request["seq"])
    return await room.act(request["token_hash"], request["action"], request["version"], ack)


async def _connect(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    return await node.connect_remote(room, request["from"], request["conn"], request["token_hash"])


async def _resync(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.resync(node.remote_connection(request["from"], request["conn"]))


async def _chat(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    return await room.chat(request["token_hash"], request["text"], request["reaction"])


async def _chat_lines(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    return await room.chat_lines(request["token_hash"])


async def _mute_chat(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.mute_chat(request["token_hash"], request["index"], request["muted"])


async def _admin_info(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    room.refuse_if_gone()
    return {**room.admin_info(time.monotonic()), "node": node.node_id}


async def _admin_close(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await node.directory.close_by_operator(room, request["reason"])
    return {**room.admin_info(time.monotonic()), "node": node.node_id}


async def _admin_seat_to_bot(node: ClusterNode, room: Room, request: dict[str, Any]) -> Any:
    await room.seat_to_bot(request["seat"], request["level"], request["revoke"])
    return {**room.admin_info(time.monotonic()), "node": node.node_id}


HANDLERS: dict[str, Handler] = {
    "describe": _describe,
    "read": _read,
    "legal": _legal,
    "join": _join,
    "leave": _leave,
    "add_bot": _add_bot,
    "remove_bot": _remove_bot,
    "ready": _ready,
    "rematch": _rematch,
    "hand_to_bot": _hand_to_bot,
    "act": _act,
    "connect": _connect,
    "resync": _resync,
    "chat": _chat,
    "chat_lines": _chat_lines,
    "mute_chat": _mute_chat,
    "admin_info": _admin_info,
    "admin_close": _admin_close,
    "admin_seat_to_bot": _admin_seat_to_bot,
}
