"""The sending half of one WebSocket: a bounded queue drained by one writer task.

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
    def __init__(self, websocket: WebSocket, limit: int = 256) -> None:
        self.websocket = websocket
        self.queue: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self.limit = limit
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._drain())

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.limit:
            self.close(CLOSE_TOO_SLOW, "too far behind; reconnect for a fresh snapshot")
            return
        self.queue.put_nowait(text)

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait((code, reason))

    async def finish(self) -> None:
        """Stop after whatever is queued has been sent (or the socket is gone)."""
        self.close(1000, "bye")
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _drain(self) -> None:
        websocket = self.websocket
        try:
            while True:
                item = await self.queue.get()
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
