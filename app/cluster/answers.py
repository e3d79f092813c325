"""The owner's side of calls on rooms (app.cluster.calls): each call made on a room held here,
and its answer sent back to the caller."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from app.cluster import wire
from app.cluster.bus import Bus
from app.games.engine import IllegalAction
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.fanout import Connection
from app.rooms.room import Room

log = logging.getLogger("app.cluster.calls")


class Owner(Protocol):
    """What answering a call needs of the node (app.cluster.node)."""

    node_id: str
    bus: Bus
    directory: RoomDirectory

    def lobby_changed(self) -> None: ...

    async def held_room(self, room_id: str) -> Room | None: ...

    def remote_connection(self, node: str, conn_id: str) -> Connection: ...

    async def connect_remote(
        self, room: Room, node: str, conn_id: str, token_hash: str | None
    ) -> int | None: ...


Handler = Callable[[Owner, Room, dict[str, Any]], Awaitable[Any]]


async def serve(node: Owner, request: dict[str, Any]) -> None:
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


async def _describe(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    return await room.describe()


async def _read(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    version, state = await room.read(request["token_hash"])
    return {"version": version, "state": state}


async def _legal(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    version, actions = await room.legal(request["token_hash"])
    return {"version": version, "actions": actions}


async def _join(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    seat = await room.join(
        request["name"], request["wanted"], request["token_hash"], request.get("player_id")
    )
    node.lobby_changed()
    return seat


async def _leave(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.leave(request["token_hash"])
    node.lobby_changed()


async def _add_bot(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    seat = await room.add_bot(request["wanted"], request["level"])
    node.lobby_changed()
    return seat


async def _remove_bot(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.remove_bot(request["index"])
    node.lobby_changed()


async def _ready(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.ready(request["token_hash"])
    node.lobby_changed()


async def _rematch(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.rematch(request["token_hash"])


async def _hand_to_bot(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.hand_to_bot(request["token_hash"], request["index"])


async def _act(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    ack = None
    conn_id = request.get("conn")
    if conn_id is not None:
        ack = (node.remote_connection(request["from"], conn_id), request["seq"])
    return await room.act(request["token_hash"], request["action"], request["version"], ack)


async def _connect(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    return await node.connect_remote(room, request["from"], request["conn"], request["token_hash"])


async def _resync(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.resync(node.remote_connection(request["from"], request["conn"]))


async def _chat(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    return await room.chat(request["token_hash"], request["text"], request["reaction"])


async def _chat_lines(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    return await room.chat_lines(request["token_hash"])


async def _mute_chat(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await room.mute_chat(request["token_hash"], request["index"], request["muted"])


async def _admin_info(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    room.refuse_if_gone()
    return {**room.admin_info(time.monotonic()), "node": node.node_id}


async def _admin_close(node: Owner, room: Room, request: dict[str, Any]) -> Any:
    await node.directory.close_by_operator(room, request["reason"])
    return {**room.admin_info(time.monotonic()), "node": node.node_id}


async def _admin_seat_to_bot(node: Owner, room: Room, request: dict[str, Any]) -> Any:
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
