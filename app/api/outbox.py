"""The sending half of one WebSocket: straight to the server, or queued while a send waits.

A room queues messages while it holds its lock and never waits for a socket, so one slow
client cannot stall a room. A message goes to the ASGI server at once when nothing waits
before it; the server's send returns without waiting unless the socket's write buffer is full
(uvicorn's waits only for its transport to be writable again). Only then does a writer task
take over: it finishes that send and sends what queued meanwhile, in order. A client that
falls `limit` messages behind is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine, Generator
from typing import Any, cast

from starlette.types import Message, Send

from app.api.sansio import open_and_plain, sansio_protocol

log = logging.getLogger(__name__)

CLOSE_TOO_SLOW = 4008

# A client gone mid-send: uvicorn raises its ClientDisconnected (an OSError), a send after the
# closing handshake began is a RuntimeError.
SEND_ERRORS = (OSError, RuntimeError)

Step = Coroutine[Any, Any, None]


class SocketOutbox:
    # A list and a writer task that lives only while a send waits: the same order and bound
    # as an asyncio.Queue with a permanent writer, without a parked task, its coroutine and a
    # future per idle socket (bench/bench_server.py: memory per room), and without a task per
    # message when the socket keeps up (CPU per move). A list, not a deque: an empty deque
    # holds a 512-byte block, and this queue is nearly always empty.
    __slots__ = (
        "asgi_send",
        "close_code",
        "closed",
        "frames",
        "limit",
        "pending",
        "started",
        "task",
    )

    def __init__(self, send: Send, limit: int = 256) -> None:
        self.asgi_send = send
        self.frames = DirectFrames.of(send)
        # Texts, then at most one (code, reason) to close with; empty unless a writer task
        # runs or the outbox has not started.
        self.pending: list[str | tuple[int, str]] = []
        self.limit = limit
        self.closed = False
        # The code the server closed the socket with, if it did.
        self.close_code: int | None = None
        self.started = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin sending (messages queued before are kept and go first)."""
        self.started = True
        self._flush()

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.task is None and self.started:
            self._write(text)
        elif len(self.pending) >= self.limit:
            self.close(CLOSE_TOO_SLOW, "too far behind; reconnect for a fresh snapshot")
        else:
            self.pending.append(text)

    def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        if self.task is None and self.started:
            self._write((code, reason))
        else:
            self.pending.append((code, reason))

    async def finish(self) -> None:
        """Stop after whatever is queued has been sent (or the socket is gone)."""
        self.close(1000, "bye")
        if not self.started:
            self.start()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def _flush(self) -> None:
        pending = self.pending
        while pending and self.task is None:
            self._write(pending.pop(0))

    def _write(self, item: str | tuple[int, str]) -> None:
        """Send `item` now, or leave the rest of its send to a writer task if it must wait."""
        frames = self.frames
        if frames is not None and type(item) is str and frames.write(item):
            return
        step = cast(Step, self.asgi_send(as_message(item)))
        try:
            waiting_on = step.send(None)
        except StopIteration:
            return
        except SEND_ERRORS:
            self._lost()
            return
        except Exception:
            log.exception("send failed")
            self._lost()
            return
        self.task = asyncio.get_running_loop().create_task(self._drain(step, waiting_on))
        self.task.add_done_callback(self._drained)

    async def _drain(self, step: Step, waiting_on: Any) -> None:
        try:
            await Resumed(step, waiting_on)
            pending = self.pending
            while pending:
                await self.asgi_send(as_message(pending.pop(0)))
        except SEND_ERRORS:
            self._lost()
        except asyncio.CancelledError:
            self._lost()
            raise
        except Exception:
            log.exception("writer failed")
            self._lost()
        finally:
            # At once: a send after the queue ran dry goes straight out again.
            self.task = None

    def _drained(self, task: asyncio.Task[None]) -> None:
        # Also a callback: a writer cancelled before its first step never runs its `finally`.
        # Cancelled, what it held is lost.
        if self.task is task:
            self.task = None
            self._lost()

    def _lost(self) -> None:
        self.closed = True
        self.pending.clear()


# What DirectFrames reads of uvicorn's sans-I/O protocol.
PROTOCOL_ATTRIBUTES = (
    "close_sent",
    "disconnected",
    "handshake_complete",
    "initial_response",
    "writable",
    "conn",
    "transport",
)


class DirectFrames:
    """Text frames written straight to the socket of uvicorn's sans-I/O WebSocket stack.

    The ASGI send of that stack wraps each text in a message dict, awaits a set event, encodes
    the text, builds a frame object and serialises it: most of the server CPU a socket write
    costs (bench/bench_server.py). A server's text frame without extensions is a fixed header
    and the UTF-8 bytes, so while the socket is open, writable and uncompressed it is written
    here in one call; otherwise (`write` returns False) the ASGI send does it as before, and so
    do the other stacks, closes and compressed sockets. Frames written either way go to one
    transport in order, between the stack's own pings.
    """

    __slots__ = ("protocol",)

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol

    @classmethod
    def of(cls, send: Send) -> DirectFrames | None:
        protocol = sansio_protocol(send, PROTOCOL_ATTRIBUTES)
        return None if protocol is None else cls(protocol)

    def write(self, text: str) -> bool:
        protocol = self.protocol
        if (
            not open_and_plain(protocol)
            or protocol.initial_response is not None
            or not protocol.writable.is_set()
        ):
            return False
        data = text.encode()
        size = len(data)
        if size < 126:
            header = bytes((0x81, size))
        elif size < 65536:
            header = b"\x81\x7e" + size.to_bytes(2, "big")
        else:
            header = b"\x81\x7f" + size.to_bytes(8, "big")
        protocol.transport.write(header + data)
        return True


def as_message(item: str | tuple[int, str]) -> Message:
    if isinstance(item, str):
        return {"type": "websocket.send", "text": item}
    return {"type": "websocket.close", "code": item[0], "reason": item[1]}


class Resumed:
    """Awaited, runs to its end a coroutine that was started by hand and yielded `waiting_on`.

    What the coroutine yields goes to the task that awaits this, and what the task sends back
    (None, or an exception thrown in: a failed wait, a cancellation) goes to the coroutine, as
    if the task had run it from the start.
    """

    __slots__ = ("step", "waiting_on")

    def __init__(self, step: Step, waiting_on: Any) -> None:
        self.step = step
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, None]:
        step, yielded = self.step, self.waiting_on
        while True:
            try:
                sent = yield yielded
            except BaseException as exc:
                try:
                    yielded = step.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    yielded = step.send(sent)
                except StopIteration:
                    return
