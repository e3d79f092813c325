"""A server compiles the solver's dynamic program in the background; until it is loaded the
integer program answers, exactly as well; a failed or stuck compile leaves it unused."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys

import pytest

from app.bots.rummikub.solver import _solve, program_state, solve, warm_up_in_background
from tests.bots.test_rummikub_dp import four_colour_state
from tests.bots.test_rummikub_solver import assert_is_a_legal_play, brute_force


def score(table: list[list[str]], rack: list[str]) -> tuple[int, int, int]:
    found = solve(table, rack, initial_meld_done=True)
    assert_is_a_legal_play(found, table, rack, True)
    return found.tiles_placed, found.points, found.kept


@pytest.fixture
def program(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The module's program state, restored after the test."""
    state = {"state": "lazy"}
    monkeypatch.setattr(_solve, "_program", state)
    return state


def test_while_the_program_warms_up_the_integer_program_answers_as_well(
    program: dict[str, str],
) -> None:
    rng = random.Random(7)
    states = [four_colour_state(rng) for _ in range(40)]
    program["state"] = "warming"
    while_warming = [score(table, rack) for table, rack in states]
    assert while_warming == [brute_force(table, rack, True) for table, rack in states]


def test_the_background_warm_up_loads_the_program(program: dict[str, str]) -> None:
    asyncio.run(warm_up_in_background())
    assert program_state() == "ready"
    # R4 B4 and the joker make a group (4 + 4 + 30 points); the run stays whole.
    assert score([["R1a", "R2a", "R3a"]], ["R4a", "B4a", "J1"]) == (3, 38, 1)


def test_a_failed_compile_leaves_the_integer_program_in_charge(
    program: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", "false")
    asyncio.run(warm_up_in_background())
    assert program_state() == "unavailable"
    assert score([["R1a", "R2a", "R3a"]], ["R4a", "K9a"]) == (1, 4, 0)


def test_a_compile_past_its_time_is_stopped(program: dict[str, str]) -> None:
    asyncio.run(warm_up_in_background(timeout_s=0.001))
    assert program_state() == "unavailable"


def test_a_warm_up_stopped_by_shutdown_leaves_the_program_to_its_first_use(
    program: dict[str, str],
) -> None:
    async def stop_early() -> None:
        task = asyncio.create_task(warm_up_in_background())
        await asyncio.sleep(0.05)
        assert program_state() == "warming"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_early())
    assert program_state() == "lazy"


def test_the_warm_up_builds_the_meld_catalogue_before_the_first_solve_needs_it() -> None:
    # A fresh process: this one may have built the catalogue already.
    check = (
        "from app.bots.rummikub.solver import warm_up, _bound, _solve\n"
        "warm_up()\n"
        "assert _bound.catalogue_counts.cache_info().currsize == 1\n"
        "assert _bound.catalogue_columns.cache_info().currsize == 1\n"
        "assert _solve._catalogue.cache_info().currsize == 1\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
