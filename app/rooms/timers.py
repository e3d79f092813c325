"""One-shot timers a room arms and re-arms: the turn clock and the pause between hands."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class OneShot:
    """Runs `callback` once after a delay unless cancelled or re-armed first."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._task: asyncio.Task[None] | None = None
        self.deadline_ms: int | None = None

    @property
    def armed(self) -> bool:
        return self._task is not None and not self._task.done()

    def arm(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        self.cancel()
        self.deadline_ms = int((time.time() + delay_s) * 1000)
        self._task = asyncio.get_running_loop().create_task(self._run(delay_s, callback))

    def cancel(self) -> None:
        task, self._task, self.deadline_ms = self._task, None, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _run(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        await asyncio.sleep(delay_s)
        try:
            await callback()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("timer %s failed", self.name)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
