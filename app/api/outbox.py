"""The sending half of one WebSocket: a bounded queue drained by one writer task.

A room queues messages while it holds its lock and never waits for a socket, so one slow
client cannot stall a room. A client that falls `limit` messages behind is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque

from starlette.websockets import WebSocket, WebSocketDisconnect

log = logging.getLogger(__name__)

CLOSE_TOO_SLOW = 4008


class SocketOutbox:
    # A deque and one waiter instead of an asyncio.Queue: the same order and bound, with less
    # memory per socket and less work per message (bench/bench_server.py).
    __slots__ = ("closed", "limit", "pending", "task", "waiter", "websocket")

    def __init__(self, websocket: WebSocket, limit: int = 256) -> None:
        self.websocket = websocket
        self.pending: deque[str | tuple[int, str]] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.limit = limit
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._drain())

    def send(self, text: str) -> None:
        if self.closed:
            return
        if len(self.pending) >= self.limit:
            self.close(CLOSE_TOO_SLOW, "too far behind; reconnect for a fresh snapshot")
            return
        self._push(text)

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self._push((code, reason))

    def _push(self, item: str | tuple[int, str]) -> None:
        self.pending.append(item)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def finish(self) -> None:
        """Stop after whatever is queued has been sent (or the socket is gone)."""
        self.close(1000, "bye")
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _drain(self) -> None:
        websocket, pending = self.websocket, self.pending
        try:
            while True:
                if not pending:
                    self.waiter = asyncio.get_running_loop().create_future()
                    await self.waiter
                    self.waiter = None
                    continue
                item = pending.popleft()
                if isinstance(item, tuple):
                    code, reason = item
                    with contextlib.suppress(Exception):
                        await websocket.close(code, reason)
                    return
                await websocket.send_text(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True
        except Exception:
            self.closed = True
            log.exception("writer failed")
