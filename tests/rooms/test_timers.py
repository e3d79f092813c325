"""The shared timer of a room's own steps: a failing step is tried again, with growing pauses."""

from __future__ import annotations

import asyncio

from app.rooms.timers import Backoff, OneShot
from tests.rooms.test_timed_steps import eventually


async def test_a_step_that_keeps_failing_is_tried_with_growing_pauses_until_cancelled() -> None:
    tries: list[float] = []

    async def failing_step() -> None:
        tries.append(asyncio.get_running_loop().time())
        raise RuntimeError("still down")

    timer = OneShot("test", Backoff(first_s=0.01, most_s=0.04))
    timer.arm(0, failing_step)
    await eventually(lambda: len(tries) >= 6)
    await timer.stop()
    count = len(tries)
    await asyncio.sleep(0.1)
    assert len(tries) == count
    assert not timer.armed


def test_the_backoff_grows_to_its_ceiling_with_jitter() -> None:
    backoff = Backoff(first_s=0.1, most_s=2.0)
    pauses = [backoff.pause(failures) for failures in range(1, 10)]
    assert 0.05 <= pauses[0] <= 0.1
    assert all(1.0 <= pause <= 2.0 for pause in pauses[5:])
