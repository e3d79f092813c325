"""The sending half of one WebSocket: a bounded queue, drained by a writer while it holds any.

A room queues messages while it holds its lock and never waits for a socket, so one slow
client cannot stall a room. A client that falls `limit` messages behind is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

log = logging.getLogger(__name__)

CLOSE_TOO_SLOW = 4008


class SocketOutbox:
    # A list and a writer task that lives only while messages are waiting: the same order and
    # bound as an asyncio.Queue with a permanent writer, without a parked task, its coroutine
    # and a future per idle socket (bench/bench_server.py: memory per room). A list, not a
    # deque: an empty deque holds a 512-byte block, and this queue is nearly always empty or
    # holds a message or two, so taking from its front costs nothing.
    __slots__ = ("closed", "limit", "pending", "started", "task", "websocket")

    def __init__(self, websocket: WebSocket, limit: int = 256) -> None:
        self.websocket = websocket
        self.pending: list[str | tuple[int, str]] = []
        self.limit = limit
        self.closed = False
        self.started = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin sending (messages queued before are kept and go first)."""
        self.started = True
        self._wake()

    def send(self, text: str) -> None:
        if self.closed:
            return
        if len(self.pending) >= self.limit:
            self.close(CLOSE_TOO_SLOW, "too far behind; reconnect for a fresh snapshot")
            return
        self.pending.append(text)
        self._wake()

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.pending.append((code, reason))
            self._wake()

    def _wake(self) -> None:
        if self.task is None and self.started and self.pending:
            self.task = asyncio.get_running_loop().create_task(self._drain())

    async def finish(self) -> None:
        """Stop after whatever is queued has been sent (or the socket is gone)."""
        self.close(1000, "bye")
        self.started = True
        self._wake()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _drain(self) -> None:
        websocket, pending = self.websocket, self.pending
        try:
            while pending:
                item = pending.pop(0)
                if isinstance(item, tuple):
                    code, reason = item
                    pending.clear()
                    with contextlib.suppress(Exception):
                        await websocket.close(code, reason)
                    return
                await websocket.send_text(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True
            pending.clear()
        except Exception:
            self.closed = True
            pending.clear()
            log.exception("writer failed")
        finally:
            self.task = None
