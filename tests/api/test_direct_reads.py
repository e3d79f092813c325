"""Whole text frames read straight off the socket reach the session in order, and everything
else reaches uvicorn's stack exactly as it arrived."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from app.api.direct_reads import DirectReads, frame_bounds
from tests.api.live import SeatClient, create_room, join, live_server


def client_frames(*frames: Frame) -> bytes:
    """The bytes a client sends for these frames: masked, as websockets writes them."""
    client = ClientProtocol(parse_uri("ws://127.0.0.1/"))
    client.state = State.OPEN
    for frame in frames:
        client.send_frame(frame)
    return b"".join(client.data_to_send())


def text(value: str, fin: bool = True) -> Frame:
    return Frame(Opcode.TEXT, value.encode(), fin=fin)


class Stack:
    """Stands in for uvicorn's protocol: records what reaches its parser."""

    def __init__(self, **changes: Any) -> None:
        self.received = b""
        conn = SimpleNamespace(
            state=State.OPEN, extensions=[], max_message_size=4096, max_fragment_size=None
        )
        fields: dict[str, Any] = {
            "close_sent": False,
            "disconnected": False,
            "handshake_complete": True,
            "read_paused": False,
            "queue": asyncio.Queue(),
            "conn": conn,
        }
        fields.update(changes)
        self.__dict__.update(fields)

    def data_received(self, data: bytes) -> None:
        self.received += data


def reader(stack: Stack, accept: bool = True) -> tuple[DirectReads, list[str]]:
    taken: list[str] = []

    def deliver(message: str) -> bool:
        if accept:
            taken.append(message)
        return accept

    return DirectReads(stack, deliver), taken


MIXED = [
    text("a"),
    Frame(Opcode.PING, b"p"),
    text('{"type":"ping"}'),
    text("x" * 300),
    Frame(Opcode.PONG, b""),
    text("é♠" * 40),
]


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 64, 10_000])
def test_frames_split_anywhere_are_taken_whole_and_in_order(piece: int) -> None:
    stack = Stack()
    reads, taken = reader(stack)
    parts = [client_frames(frame) for frame in MIXED]
    data = b"".join(parts)
    for start in range(0, len(data), piece):
        reads.data_received(data[start : start + piece])
    assert taken == ["a", '{"type":"ping"}', "x" * 300, "é♠" * 40]
    # The ping and the pong reach the stack whole, each at a frame boundary.
    assert stack.received == parts[1] + parts[4]
    assert reads.held == b""


def test_a_frame_the_session_cannot_take_now_reaches_the_stack_as_it_came() -> None:
    stack = Stack()
    reads, _ = reader(stack, accept=False)
    data = client_frames(text("a"), text("b"))
    reads.data_received(data)
    assert stack.received == data


@pytest.mark.parametrize(
    "changes",
    [
        {"read_paused": True},
        {"close_sent": True},
        {"disconnected": True},
        {"handshake_complete": False},
    ],
)
def test_nothing_is_taken_while_the_stack_holds_a_message_or_the_socket_is_not_open(
    changes: dict[str, Any],
) -> None:
    stack = Stack(**changes)
    reads, taken = reader(stack)
    data = client_frames(text("a"))
    reads.data_received(data)
    assert (taken, stack.received) == ([], data)


def test_a_message_queued_by_the_stack_keeps_later_ones_behind_it() -> None:
    stack = Stack()
    stack.queue.put_nowait({"type": "websocket.receive", "text": "first"})  # type: ignore[attr-defined]
    reads, taken = reader(stack)
    reads.data_received(client_frames(text("second")))
    assert taken == []


def test_fragments_invalid_text_and_frames_past_the_limit_go_to_the_stack() -> None:
    stack = Stack()
    reads, taken = reader(stack)
    fragmented = client_frames(text("ab", fin=False), Frame(Opcode.CONT, b"c"))
    # Bytes that are not UTF-8 in a text frame: the stack closes with 1007.
    invalid = client_frames(Frame(Opcode.TEXT, b"\xff\xfe"))
    too_long = client_frames(text("y" * 5000))
    reads.data_received(fragmented + invalid + too_long)
    assert taken == []
    assert stack.received == fragmented + invalid + too_long


def test_a_frame_with_an_eight_byte_length_hands_the_socket_to_the_stack() -> None:
    stack = Stack(conn=SimpleNamespace(
        state=State.OPEN, extensions=[], max_message_size=None, max_fragment_size=None
    ))  # fmt: skip
    reads, taken = reader(stack)
    huge, after = client_frames(text("z" * 70_000)), client_frames(text("after"))
    reads.data_received(huge[:100])
    reads.data_received(huge[100:] + after)
    assert taken == []
    assert stack.received == huge + after
    assert not reads.tracking


def test_frame_bounds_reads_each_header_size() -> None:
    for size in (0, 125, 126, 65535):
        data = client_frames(text("q" * size))
        assert frame_bounds(data, 0) == (len(data) - size, len(data))
        assert frame_bounds(data[:1], 0) is None
    assert frame_bounds(client_frames(text("q" * 70_000)), 0) is None


async def test_a_live_room_socket_reads_through_it_and_answers_a_pipelined_burst_in_order(
    tmp_path: Path,
) -> None:
    # SQLite: an accepted action waits for its write, so the messages behind it must wait too.
    url = f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
    with live_server(url) as server:
        room_id = create_room(server, game="gin_rummy", players=2)["room_id"]
        tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
        event = asyncio.Event()
        clients = [
            await SeatClient(server.ws_url(room_id), token, changed=event).connect()
            for token in tokens
        ]
        for client in clients:
            await client.send({"type": "ready"})
        await clients[0].wait_for(lambda: all(c.status == "playing" for c in clients))
        mover = next(client for client in clients if client.legal)
        connections = server.server.server_state.connections
        assert any(isinstance(c.transport.get_protocol(), DirectReads) for c in connections)
        action = mover.legal[0]
        order: list[str] = []
        mover.on_message = lambda _, raw: order.append(json.loads(raw)["type"])
        # One write holding an action and pings behind it: each answered, in order.
        burst = [{"type": "action", "seq": 1, "action": action, "version": mover.version}]
        burst += [{"type": "ping"}] * 5
        mover.socket.transport.write(  # type: ignore[attr-defined]
            b"".join(client_frames(text(json.dumps(message))) for message in burst)
        )
        await mover.wait_for(lambda: order.count("pong") == 5)
        assert order == ["ack", *["pong"] * 5]
        for client in clients:
            await client.close()
