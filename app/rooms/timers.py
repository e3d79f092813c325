"""One-shot timers a room arms and re-arms: the turn clock, the pause between hands, bot turns.

A timed step is the room's own move: nobody asked for it, so nobody would ask again if it
failed. A step that raises (the database away, most often) is therefore tried again, after a
growing pause, until it succeeds, the timer is re-armed or cancelled, or the room is closed or
lost to another owner (`end`, which also stops a step failing as it runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Backoff:
    """Pauses between tries: doubling from `first_s` up to `most_s`, each with random jitter.

    The jitter spreads the rooms that failed together over the pause, so a database coming
    back is not met by every room at the same instant.
    """

    first_s: float = 0.1
    most_s: float = 2.0
    factor: float = 2.0

    def pause(self, failures: int) -> float:
        ceiling = min(self.most_s, self.first_s * self.factor ** max(0, failures - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


RETRY = Backoff()


class OneShot:
    """Runs `callback` once after a delay unless cancelled or re-armed first; retries failures."""

    def __init__(self, name: str, backoff: Backoff = RETRY) -> None:
        self.name = name
        self.backoff = backoff
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
        """Forget the pending step. From inside the step itself only the deadline goes: the
        running step still has to succeed (or it is tried again)."""
        self.deadline_ms = None
        task = self._task
        if task is None or task is asyncio.current_task():
            return
        self._task = None
        if not task.done():
            task.cancel()

    def end(self) -> None:
        """Stop for good, from inside the step too (the room it runs for is gone): a step
        running now is not tried again."""
        self.deadline_ms = None
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task() and not task.done():
            task.cancel()

    async def _run(self, delay_s: float, callback: Callable[[], Awaitable[None]]) -> None:
        await asyncio.sleep(delay_s)
        failures = 0
        while True:
            try:
                await callback()
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._task is not asyncio.current_task():
                    # Ended or re-armed by the step that failed: not this task's to try again.
                    return
                failures += 1
                pause = self.backoff.pause(failures)
                # The first failure with its traceback; later ones in one line, not a flood.
                log.warning(
                    "timer %s failed (try %d); trying again in %.2f s",
                    self.name,
                    failures,
                    pause,
                    exc_info=failures == 1,
                )
            await asyncio.sleep(pause)
            if self._task is not asyncio.current_task():
                # Re-armed while it waited (by the step itself or by the room): that one owns it.
                return

    async def stop(self) -> None:
        task, self._task = self._task, None
        self.deadline_ms = None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
