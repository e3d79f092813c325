"""The socket outbox: sends at once while the server keeps up, queues in order while it waits."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.api.outbox import CLOSE_TOO_SLOW, SocketOutbox


class FakeServer:
    """An ASGI send that waits while `writable` is clear, like uvicorn's on a full buffer."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.gone = False

    async def send(self, message: dict[str, Any]) -> None:
        await self.writable.wait()
        if self.gone:
            raise OSError("client disconnected")
        self.sent.append(message)

    def texts(self) -> list[str]:
        return [m["text"] for m in self.sent if m["type"] == "websocket.send"]


async def test_a_started_outbox_sends_at_once_without_a_task() -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send)
    outbox.send("early")
    assert server.sent == []
    outbox.start()
    outbox.send("a")
    outbox.send("b")
    assert server.texts() == ["early", "a", "b"]
    assert outbox.task is None


async def test_a_send_that_waits_is_finished_by_a_writer_that_keeps_the_order() -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send)
    outbox.start()
    server.writable.clear()
    for text in ("a", "b", "c"):
        outbox.send(text)
    assert server.sent == []
    assert outbox.task is not None
    await asyncio.sleep(0)
    outbox.send("c2")
    server.writable.set()
    await outbox.task
    outbox.send("d")
    assert server.texts() == ["a", "b", "c", "c2", "d"]
    assert outbox.task is None


async def test_a_client_that_falls_behind_is_closed_with_4008_after_what_it_was_sent() -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send, limit=3)
    outbox.start()
    server.writable.clear()
    for index in range(10):
        outbox.send(str(index))
    assert outbox.closed
    server.writable.set()
    await outbox.finish()
    assert server.texts() == ["0", "1", "2", "3"]
    assert server.sent[-1] == {
        "type": "websocket.close",
        "code": CLOSE_TOO_SLOW,
        "reason": "too far behind; reconnect for a fresh snapshot",
    }


async def test_finish_closes_once_after_the_queue() -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send)
    outbox.send("snapshot")
    await outbox.finish()
    outbox.send("late")
    outbox.close(4000, "again")
    assert [m["type"] for m in server.sent] == ["websocket.send", "websocket.close"]
    assert server.sent[-1]["code"] == 1000


async def test_a_client_gone_mid_send_stops_the_outbox_quietly() -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send)
    outbox.start()
    server.gone = True
    outbox.send("a")
    assert outbox.closed
    assert outbox.pending == []
    await outbox.finish()
    assert server.sent == []


async def test_a_client_gone_while_a_send_waits_stops_the_writer() -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send)
    outbox.start()
    server.writable.clear()
    outbox.send("a")
    await asyncio.sleep(0)
    outbox.send("b")
    server.gone = True
    server.writable.set()
    await outbox.finish()
    assert outbox.closed
    assert server.sent == []
    assert outbox.task is None


@pytest.mark.parametrize("turns_first", [0, 1])
async def test_a_cancelled_writer_leaves_the_outbox_closed(turns_first: int) -> None:
    server = FakeServer()
    outbox = SocketOutbox(server.send)
    outbox.start()
    server.writable.clear()
    outbox.send("a")
    outbox.send("b")
    task = outbox.task
    assert task is not None
    for _ in range(turns_first):
        await asyncio.sleep(0)
    task.cancel()
    for _ in range(3):
        await asyncio.sleep(0)
    assert task.cancelled()
    assert outbox.task is None
    assert outbox.closed
    server.writable.set()
    outbox.send("c")
    await outbox.finish()
    assert server.sent == []
