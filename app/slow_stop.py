"""A stop that takes too long says what it still waits on.

A server that does not exit after SIGTERM is stopped by force sooner or later (Docker after
10 s), and whatever it was waiting on is lost with it. So while the application shuts down, a
watchdog waits; past its time it logs, for every task still running, the chain of coroutines
it is suspended in, innermost last, which names the wait that holds the stop up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger("meldhall")

# A stop this slow is reported: the application's own shutdown takes well under a second.
SLOW_STOP_S = 10.0


def awaiting(task: asyncio.Task[Any]) -> list[str]:
    """Where a task is suspended: each coroutine of its chain, outermost first."""
    where = []
    step: Any = task.get_coro()
    while step is not None:
        frame = _frame(step)
        if frame is not None:
            code = frame.f_code
            where.append(f"{code.co_qualname} ({Path(code.co_filename).name}:{frame.f_lineno})")
        inner = next((getattr(step, name) for name in _AWAITS if getattr(step, name, None)), None)
        if inner is not None and _frame(inner) is None and frame is not None:
            # An async context manager's exit awaits its generator through an object with no
            # frame of its own: go on in the generator (the lifespan is one).
            generator = getattr(frame.f_locals.get("self"), "gen", None)
            inner = generator if _frame(generator) is not None else inner
        step = inner
    return where


_AWAITS = ("cr_await", "gi_yieldfrom", "ag_await")


def _frame(step: Any) -> Any:
    return next((getattr(step, name) for name in _FRAMES if getattr(step, name, None)), None)


_FRAMES = ("cr_frame", "gi_frame", "ag_frame")


@asynccontextmanager
async def reported_if_slow(seconds: float = SLOW_STOP_S) -> AsyncIterator[None]:
    """Around a stop: past `seconds`, log what every other task is waiting on."""
    watchdog = asyncio.create_task(_report_after(seconds), name="slow-stop-watchdog")
    try:
        yield
    finally:
        watchdog.cancel()


async def _report_after(seconds: float) -> None:
    await asyncio.sleep(seconds)
    this = asyncio.current_task()
    lines = [
        f"  {task.get_name()}: {' -> '.join(awaiting(task)) or 'not started'}"
        for task in asyncio.all_tasks()
        if task is not this and not task.done()
    ]
    log.warning("stopping has taken more than %g s; still waiting:\n%s", seconds, "\n".join(lines))
