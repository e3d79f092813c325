"""A stop that takes too long logs what it still waits on."""

from __future__ import annotations

import asyncio
import logging

import pytest

from app.slow_stop import awaiting, reported_if_slow


async def held_up(gate: asyncio.Event) -> None:
    await waiting_for(gate)


async def waiting_for(gate: asyncio.Event) -> None:
    await gate.wait()


async def test_a_slow_stop_names_the_coroutines_each_task_waits_in(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate = asyncio.Event()
    stuck = asyncio.create_task(held_up(gate), name="stuck-room")
    await asyncio.sleep(0)
    assert [step.split(" ")[0] for step in awaiting(stuck)][:2] == ["held_up", "waiting_for"]
    with caplog.at_level(logging.WARNING, logger="meldhall"):
        async with reported_if_slow(0.05):
            await asyncio.sleep(0.3)
    gate.set()
    await stuck
    (report,) = [r.getMessage() for r in caplog.records if "stopping has taken" in r.getMessage()]
    assert "stuck-room: held_up (test_slow_stop.py:" in report
    assert "-> waiting_for (test_slow_stop.py:" in report


async def test_a_quick_stop_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="meldhall"):
        async with reported_if_slow(0.2):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
    assert not [r for r in caplog.records if "stopping has taken" in r.getMessage()]
