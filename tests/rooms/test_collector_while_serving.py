"""What the server asks of Python's garbage collector while it serves, and after."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from app.main import YOUNG_COLLECTION_PERIOD_S, create_app


class Node:
    def __init__(self) -> None:
        self.other: Any = None


@contextmanager
def young_collections() -> Iterator[list[int]]:
    """Counts the collections of the young generation alone made meanwhile."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 0:
            seen.append(1)

    gc.callbacks.append(count)
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)


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
