"""The room WebSocket: hello, snapshot, then patches out and actions (and hint requests) in."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Coroutine
from typing import Any
from urllib.parse import urlsplit

from fastapi import WebSocket
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocketState

from app.api.direct_reads import DirectReads
from app.api.errors import ApiError
from app.api.messages import (
    ActionMessage,
    BadMessage,
    ChatMessage,
    ChatMuteMessage,
    Hello,
    HintMessage,
    Ping,
    Ready,
    Resync,
    parse,
)
from app.api.outbox import Resumed, SocketOutbox
from app.api.rate_limit import TokenBucket
from app.api.routes.hints import hint_slots_of, seat_hint
from app.games.engine import IllegalAction
from app.metrics.meters import OFF, Meters
from app.rooms.access import RoomAccess, Rooms
from app.rooms.errors import RoomError
from app.rooms.fanout import Connection, dumps
from app.rooms.room import Room
from app.rooms.tokens import hash_token
from app.settings import Settings
from app.storage.failures import is_storage_failure

log = logging.getLogger(__name__)

# The same segment Starlette's `{room_id}` would match.
ROOM_SOCKET_PATH = re.compile(r"/ws/rooms/(?P<room_id>[^/]+)")

CLOSE_BAD_HELLO = 4400
CLOSE_BAD_TOKEN = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NO_ROOM = 4404
CLOSE_HELLO_TIMEOUT = 4408
CLOSE_FLOOD = 4429
FLOOD_WINDOW_S = 10.0


def origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    origin = websocket.headers.get("origin")
    if origin is None:
        # Programs, not browsers: no page can borrow a visitor's credentials without an Origin.
        return True
    allowed = settings.allowed_origins
    if "*" in allowed or origin in allowed:
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


async def receive_text(websocket: WebSocket) -> str | None:
    """The next message as text, or None once the client has gone."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("text") is not None:
        return str(message["text"])
    data = message.get("bytes") or b""
    return data.decode("utf-8", errors="replace")


async def receive_hello(websocket: WebSocket, seconds: float) -> Hello | int:
    """The hello message, or the close code to use instead."""
    try:
        async with asyncio.timeout(seconds):
            text = await receive_text(websocket)
    except TimeoutError:
        return CLOSE_HELLO_TIMEOUT
    if text is None:
        return 1000
    try:
        message = parse(text)
    except BadMessage:
        return CLOSE_BAD_HELLO
    return message if isinstance(message, Hello) else CLOSE_BAD_HELLO


async def room_socket(scope: Scope, receive: Receive, send: Send) -> None:
    joined = await join(scope, receive, send)
    if joined is None:
        return
    room, connection, outbox = joined
    state = scope["app"].state
    meters: Meters = state.meters
    session = Session(room, connection, outbox, state.settings, hint_slots_of(state), meters)
    outbox.start()
    if isinstance(room, Room):
        # A room held here (see Session.take); one on another node is read through the queue.
        DirectReads.install(send, session.take)
    try:
        await session.run(receive)
    finally:
        # The server's close code if it closed the socket, else the client's.
        code = outbox.close_code or session.client_code
        await session.stop_hint()
        await session.finish_taken()
        await room.disconnect(connection)
        await outbox.finish()
        meters.socket_closes[str(code or outbox.close_code)].inc()


async def join(
    scope: Scope, receive: Receive, send: Send
) -> tuple[RoomAccess, Connection, SocketOutbox] | None:
    """The handshake and the hello, through Starlette's WebSocket; None once refused.

    After them the session and its outbox talk to the server's receive and send themselves,
    without that wrapper's checks around every message (bench/bench_server.py: CPU per move),
    and without holding it while the socket is open (memory per room).
    """
    websocket = WebSocket(scope, receive=receive, send=send)
    settings: Settings = websocket.app.state.settings
    rooms: Rooms = websocket.app.state.rooms
    meters: Meters = websocket.app.state.meters
    if not origin_allowed(websocket, settings):
        await websocket.close(CLOSE_FORBIDDEN, "origin not allowed")
        return None
    await websocket.accept()
    meters.socket_opens.inc()
    try:
        room = await rooms.find(websocket.path_params["room_id"])
    except RoomError:
        await websocket.close(CLOSE_NO_ROOM, "no such room")
        meters.socket_closes[str(CLOSE_NO_ROOM)].inc()
        return None
    hello = await receive_hello(websocket, settings.ws_hello_timeout_s)
    if isinstance(hello, int):
        await close_quietly(websocket, hello, "expected {'type': 'hello', 'token': ...}")
        meters.socket_closes[str(hello)].inc()
        return None
    token_hash = None if hello.token is None else hash_token(hello.token)
    outbox = SocketOutbox(send)
    try:
        connection = await room.connect(outbox, token_hash)
    except RoomError as exc:
        code = CLOSE_BAD_TOKEN if exc.code == "bad_token" else CLOSE_FORBIDDEN
        await close_quietly(websocket, code, exc.message)
        meters.socket_closes[str(code)].inc()
        return None
    return room, connection, outbox


async def close_quietly(websocket: WebSocket, code: int, reason: str) -> None:
    if websocket.client_state is WebSocketState.CONNECTED:
        with contextlib.suppress(Exception):
            await websocket.close(code, reason[:120])


class Session:
    """Reads one connection's messages in order and answers each."""

    __slots__ = (
        "bucket",
        "client_code",
        "connection",
        "handling",
        "hint_slots",
        "hinting",
        "max_bytes",
        "meters",
        "outbox",
        "room",
        "strikes",
        "strikes_allowed",
        "strikes_since",
        "taken",
    )

    def __init__(
        self,
        room: RoomAccess,
        connection: Connection,
        outbox: SocketOutbox,
        settings: Settings,
        hint_slots: asyncio.Semaphore,
        meters: Meters = OFF,
    ) -> None:
        self.room = room
        self.meters = meters
        # The client's close code, once it has gone.
        self.client_code: int | None = None
        self.connection = connection
        self.outbox = outbox
        self.hint_slots = hint_slots
        # The hint being worked out for this connection, if any: one at a time.
        self.hinting: asyncio.Task[None] | None = None
        self.max_bytes = settings.ws_max_message_bytes
        self.bucket = TokenBucket(settings.ws_messages_per_second, settings.ws_burst)
        self.strikes_allowed = settings.ws_burst
        self.strikes = 0
        self.strikes_since = time.monotonic()
        # Messages being handled (at most one read off the socket and one from the queue, the
        # second waiting for the first): a message taken straight off the socket must come
        # after every one before it, so it is taken only while this is 0.
        self.handling = 0
        # The rest of a message taken off the socket whose handling had to wait.
        self.taken: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.outbox.send(dumps(message))

    def error(self, code: str, message: str, seq: int | None = None) -> None:
        self.send({"type": "error", "seq": seq, "code": code, "message": message})

    async def run(self, receive: Receive) -> None:
        """Read the messages the server queued (those not taken off the socket directly)."""
        while not self.outbox.closed:
            # receive_text inlined: one coroutine less per message, and per waiting socket.
            message = await receive()
            if message["type"] == "websocket.disconnect":
                self.client_code = message.get("code", 1005)
                return
            text = message.get("text")
            if text is None:
                text = (message.get("bytes") or b"").decode("utf-8", errors="replace")
            self.handling += 1
            try:
                # Queued after a message taken off the socket: that one goes first.
                await self.finish_taken()
                if self.admit(text):
                    await self.handle(text)
            finally:
                self.handling -= 1

    def take(self, text: str) -> bool:
        """A message read straight off the socket (DirectReads): handled now, as far as it
        goes without waiting (the rest in a task), unless another is being handled; False
        leaves it to the server's queue, read in order by `run`.

        Handled now means within the socket's read, outside any task: no wake-up of a task
        per message (docs/performance.md). That suits a room held here, which waits only on
        its lock and on futures of its store's writers; code that needs a task of its own
        (asyncio.timeout, as in the Redis client a room on another node is reached with) would
        fail there, so such rooms are read through the queue."""
        if self.handling or self.outbox.closed:
            return False
        if not self.admit(text):
            return True
        step = self.handle(text)
        try:
            waiting_on = step.send(None)
        except StopIteration:
            return True
        except Exception:
            # `handle` answers every failure itself; this is a bug in the answering.
            log.exception("socket message failed")
            return True
        self.handling += 1
        self.taken = asyncio.get_running_loop().create_task(self.finish_step(step, waiting_on))
        return True

    async def finish_step(self, step: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        try:
            await Resumed(step, waiting_on)
        except Exception:
            log.exception("socket message failed")
        finally:
            self.handling -= 1
            self.taken = None

    async def finish_taken(self) -> None:
        """Wait for a message taken off the socket to be handled (its move is the room's)."""
        taken = self.taken
        if taken is not None:
            await asyncio.wait((taken,))

    def admit(self, text: str) -> bool:
        """Whether a message may be handled: refused (and answered) when over the rate or the
        size limit; a flood closes the socket."""
        if not self.bucket.take():
            if self.flooding():
                self.outbox.close(CLOSE_FLOOD, "too many messages")
            else:
                self.error("rate_limited", "too many messages; this one was ignored")
            return False
        if len(text) > self.max_bytes:
            self.error("message_too_large", f"messages are capped at {self.max_bytes} bytes")
            return False
        return True

    def flooding(self) -> bool:
        """A refused message is a strike; a burst's worth of strikes in the window is a flood."""
        now = time.monotonic()
        if now - self.strikes_since > FLOOD_WINDOW_S:
            self.strikes, self.strikes_since = 0, now
        self.strikes += 1
        return self.strikes > self.strikes_allowed

    async def handle(self, text: str) -> None:
        try:
            message = parse(text)
        except BadMessage as exc:
            self.error(exc.code, exc.message, exc.seq)
            return
        try:
            if isinstance(message, ActionMessage):
                await self.act(message)
            elif isinstance(message, Ping):
                self.send({"type": "pong"})
            elif isinstance(message, Resync):
                await self.room.resync(self.connection)
            elif isinstance(message, Ready):
                await self.guarded(None, self.ready())
            elif isinstance(message, HintMessage):
                self.ask_hint(message.seq)
            elif isinstance(message, ChatMessage):
                await self.chat(message)
            elif isinstance(message, ChatMuteMessage):
                await self.mute_chat(message)
            else:
                self.error("unexpected_hello", "hello is the first message only")
        except Exception as exc:
            # Whatever failed, the message gets its one answer and the socket goes on.
            seq = getattr(message, "seq", None)
            if is_storage_failure(exc):
                log.error("socket message failed on the database: %r", exc)
                self.error("storage_unavailable", "the database cannot be reached", seq)
            else:
                log.exception("socket message failed")
                self.error("internal_error", "the server failed on this message", seq)

    async def ready(self) -> None:
        if self.connection.token_hash is None:
            raise RoomError("spectator", "spectators have no seat to be ready in")
        await self.room.ready(self.connection.token_hash)

    async def act(self, message: ActionMessage) -> None:
        token_hash = self.connection.token_hash
        if token_hash is None:
            self.error("spectator", "spectators cannot act", message.seq)
            return
        meters = self.meters
        started = time.perf_counter()
        try:
            # Accepted, the action's ack goes out with this connection's patch, from the room.
            # A session's connection stays in its room until the session ends (a seat left
            # closes the socket), so every accepted action gets its ack.
            await self.room.act(
                token_hash, message.action, message.version, (self.connection, message.seq)
            )
        except (RoomError, IllegalAction) as exc:
            meters.actions_refused[exc.code].inc()
            self.error(exc.code, exc.message, message.seq)
            return
        meters.actions_accepted.inc()
        meters.action_seconds.observe(time.perf_counter() - started)

    async def chat(self, message: ChatMessage) -> None:
        """Say a line through the room's owner, which sends it to everyone, this socket too."""
        token_hash = self.connection.token_hash
        if token_hash is None:
            self.error(
                "spectator", "spectators read the table's talk; only seats post", message.seq
            )
            return
        try:
            await self.room.chat(token_hash, message.text, message.reaction)
        except RoomError as exc:
            if exc.code == "rate_limited" and self.flooding():
                # Talk floods count as the socket's other floods do.
                self.outbox.close(CLOSE_FLOOD, "too many messages")
                return
            self.error(exc.code, exc.message, message.seq)

    async def mute_chat(self, message: ChatMuteMessage) -> None:
        token_hash = self.connection.token_hash
        if token_hash is None:
            self.error("spectator", "spectators have no seat to mute others from", message.seq)
            return
        try:
            await self.room.mute_chat(token_hash, message.seat, message.muted)
        except RoomError as exc:
            self.error(exc.code, exc.message, message.seq)

    def ask_hint(self, seq: int | None) -> None:
        """Start working out a hint; its answer goes out when ready, while messages go on."""
        token_hash = self.connection.token_hash
        if token_hash is None:
            self.error("spectator", "spectators have no seat to give a hint for", seq)
        elif self.hinting is not None:
            # One at a time: a queue of them would hold slots that other seats wait for.
            self.error("hint_pending", "the previous hint is still being worked out", seq)
        else:
            self.hinting = asyncio.get_running_loop().create_task(self.hint(token_hash, seq))

    async def hint(self, token_hash: str, seq: int | None) -> None:
        try:
            answer = await seat_hint(self.room, token_hash, self.hint_slots, self.meters)
        except (ApiError, RoomError) as exc:
            self.error(exc.code, exc.message, seq)
        except Exception:
            # A bot's bug: this ask still gets its one answer, and the socket goes on.
            log.exception("hint failed")
            self.error("internal_error", "the hint could not be worked out", seq)
        else:
            message = {"type": "hint", "seq": seq, "version": answer.version}
            self.send({**message, "action": answer.action})
        finally:
            self.hinting = None

    async def stop_hint(self) -> None:
        """Drop the hint being worked out, so that nothing is sent once the socket is gone."""
        hinting = self.hinting
        if hinting is not None:
            hinting.cancel()
            # Waits for the cancellation to land without taking it for this task's own.
            await asyncio.wait((hinting,))

    async def guarded(self, seq: int | None, work: Any) -> None:
        try:
            await work
        except (RoomError, IllegalAction) as exc:
            self.error(exc.code, exc.message, seq)


def route_path(scope: Scope) -> str:
    """The path below the app's mount point, as Starlette's router sees it."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(f"{root}/") else path


def room_socket_id(scope: Scope) -> str | None:
    """The room of a room socket's scope; None for any other socket or request."""
    if scope["type"] != "websocket":
        return None
    found = ROOM_SOCKET_PATH.fullmatch(route_path(scope))
    return None if found is None else found["room_id"]
