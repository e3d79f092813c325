"""Text frames written straight to the transport are the frames websockets would write."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

from app.api import outbox
from app.api.outbox import PROTOCOL_ATTRIBUTES, DirectFrames


class Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def open_protocol(**changes: Any) -> SimpleNamespace:
    writable = asyncio.Event()
    writable.set()
    conn = SimpleNamespace(state=State.OPEN, extensions=[])
    fields: dict[str, Any] = {
        "close_sent": False,
        "disconnected": False,
        "handshake_complete": True,
        "initial_response": None,
        "writable": writable,
        "conn": conn,
        "transport": Transport(),
    }
    fields.update(changes)
    return SimpleNamespace(**fields)


def parsed(data: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise AssertionError("an incomplete frame")


# Lengths in bytes at each header size's edges, and text that is not ASCII.
TEXTS = ["x" * size for size in (0, 1, 125, 126, 127, 65535, 65536, 70000)] + ["é♠" * 30000]


@pytest.mark.parametrize("text", TEXTS, ids=lambda text: str(len(text.encode())))
def test_a_text_frame_of_any_length_is_one_final_unmasked_frame(text: str) -> None:
    protocol = open_protocol()
    assert DirectFrames(protocol).write(text)
    [data] = protocol.transport.written
    frame = parsed(data)
    assert (frame.opcode, frame.fin, frame.data) == (Opcode.TEXT, True, text.encode())
    # Byte for byte what the websockets library writes for the same text.
    server = ServerProtocol()
    server.state = State.OPEN
    server.send_text(text.encode())
    assert data == b"".join(server.data_to_send())


@pytest.mark.parametrize(
    "changes",
    [
        {"close_sent": True},
        {"disconnected": True},
        {"handshake_complete": False},
        {"initial_response": (403, [], b"")},
        {"conn": SimpleNamespace(state=State.CLOSING, extensions=[])},
        {"conn": SimpleNamespace(state=State.OPEN, extensions=["permessage-deflate"])},
    ],
)
def test_anything_but_an_open_plain_socket_is_left_to_the_asgi_send(
    changes: dict[str, Any],
) -> None:
    protocol = open_protocol(**changes)
    assert not DirectFrames(protocol).write("{}")
    assert protocol.transport.written == []


def test_a_socket_that_must_wait_to_write_is_left_to_the_asgi_send() -> None:
    protocol = open_protocol()
    protocol.writable.clear()
    assert not DirectFrames(protocol).write("{}")


def test_only_uvicorns_sans_io_stack_is_written_to_directly() -> None:
    async def send(message: Any) -> None:
        return None

    assert DirectFrames.of(send) is None
    assert DirectFrames.of(SimpleNamespace(send=send).send) is None


def sans_io_protocol() -> Any:
    """uvicorn's own sans-I/O protocol, just connected (no handshake yet)."""
    config = Config(app=lambda scope, receive, send: None, ws="websockets-sansio")
    config.load()
    protocol = WebSocketsSansIOProtocol(config=config, server_state=ServerState(), app_state={})

    class Socket:
        def get_extra_info(self, name: str) -> Any:
            return ("127.0.0.1", 8000) if name in ("sockname", "peername") else None

        def is_closing(self) -> bool:
            return False

    protocol.connection_made(Socket())  # type: ignore[arg-type]
    return protocol


async def test_the_installed_uvicorns_sans_io_protocol_is_written_to_directly() -> None:
    protocol = sans_io_protocol()
    assert isinstance(DirectFrames.of(protocol.send), DirectFrames)
    # Before the handshake, the ASGI send does it.
    assert not DirectFrames(protocol).write("{}")


async def test_a_uvicorn_without_an_attribute_read_here_gets_the_asgi_send(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(outbox, "PROTOCOL_ATTRIBUTES", (*PROTOCOL_ATTRIBUTES, "renamed_later"))
    assert DirectFrames.of(sans_io_protocol().send) is None
