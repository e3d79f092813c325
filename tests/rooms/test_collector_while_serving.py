"""What the server asks of Python's garbage collector while it serves, and after."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from app.main import YOUNG_COLLECTION_PERIOD_S, collect_young_generation, create_app


class Node:
    def __init__(self) -> None:
        self.other: Any = None


@contextmanager
def collections() -> Iterator[list[int]]:
    """The generation of every collection made meanwhile, in order."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)


@contextmanager
def young_collections() -> Iterator[list[int]]:
    """Counts the collections of the young generation alone made meanwhile."""
    with collections() as seen:
        young: list[int] = []
        yield young
        young.extend(generation for generation in seen if generation == 0)


@contextmanager
def thresholds(*values: int) -> Iterator[None]:
    before = gc.get_threshold()
    gc.collect()
    gc.set_threshold(*values)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def test_the_young_generation_is_collected_on_a_clock_while_serving_and_not_after() -> None:
    with TestClient(create_app(store_url="memory://")) as client:
        assert client.get("/healthz").status_code == 200
        # Nothing allocates meanwhile, so the collector's own trigger would not fire.
        with young_collections() as serving:
            time.sleep(20 * YOUNG_COLLECTION_PERIOD_S)
    with young_collections() as after:
        time.sleep(20 * YOUNG_COLLECTION_PERIOD_S)
    assert len(serving) >= 5
    assert len(after) == 0


def test_reference_cycles_are_still_collected_while_serving() -> None:
    with TestClient(create_app(store_url="memory://")) as client:
        assert client.get("/healthz").status_code == 200
        first, second = Node(), Node()
        first.other, second.other = second, first
        gone = weakref.ref(first)
        del first, second
        deadline = time.monotonic() + 2.0
        while gone() is not None and time.monotonic() < deadline:
            time.sleep(YOUNG_COLLECTION_PERIOD_S)
        assert gone() is None


def test_older_generations_are_collected_once_their_thresholds_are_passed() -> None:
    # A threshold n is passed by the (n + 1)th collection of the generation below.
    with thresholds(1_000_000, 2, 1), collections() as seen:
        for _ in range(9):
            collect_young_generation()
    assert seen == [0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, 1]


def test_nothing_is_collected_on_the_clock_while_the_collector_is_turned_off() -> None:
    gc.disable()
    try:
        with collections() as seen:
            collect_young_generation()
    finally:
        gc.enable()
    assert seen == []
