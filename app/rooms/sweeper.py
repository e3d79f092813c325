"""The idle-room sweeper: a background task that closes rooms nobody has used for a while."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from app.rooms.directory import RoomDirectory

log = logging.getLogger(__name__)

# Sweeping twice per idle period closes a room at most 1.5 idle periods after its last use;
# five minutes is often enough for hours, and the floor keeps a tiny test setting cheap.
MAX_SWEEP_EVERY_S = 300.0
MIN_SWEEP_EVERY_S = 0.05


class IdleRoomSweeper:
    def __init__(self, directory: RoomDirectory, idle_close_s: float) -> None:
        self.directory = directory
        self.idle_close_s = idle_close_s
        self.every_s = min(MAX_SWEEP_EVERY_S, max(MIN_SWEEP_EVERY_S, idle_close_s / 2))
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="room-sweeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                await self.directory.close_idle(self.idle_close_s)
            except Exception:
                log.exception("the idle-room sweep failed")
