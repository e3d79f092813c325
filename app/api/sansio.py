"""uvicorn's sans-I/O WebSocket protocol, as the room socket's own reads and writes use it.

Its attributes are its own, not an API: a uvicorn that renamed any attribute read here gets
uvicorn's own path for every frame rather than a failing socket.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from starlette.types import Send
from websockets.protocol import State

# Read on every frame; Python 3.11 reads an Enum class's attributes through a slow path.
OPEN: Final = State.OPEN

try:
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
except ImportError:  # pragma: no cover - the stack is part of uvicorn[standard]
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]


def sansio_protocol(send: Send, attributes: Iterable[str]) -> Any | None:
    """The sans-I/O protocol whose ASGI send `send` is, if it has every one of `attributes`;
    None for another stack (or another server)."""
    protocol = getattr(send, "__self__", None)
    if WebSocketsSansIOProtocol is None or type(protocol) is not WebSocketsSansIOProtocol:
        return None
    if not all(hasattr(protocol, name) for name in attributes):
        return None
    return protocol


def open_and_plain(protocol: Any) -> bool:
    """Whether the socket is open (its handshake done, no close sent, not lost) and without
    extensions, so that its frames are plain text frames."""
    return bool(
        protocol.handshake_complete
        and not protocol.close_sent
        and not protocol.disconnected
        and protocol.conn.state is OPEN
        and not protocol.conn.extensions
    )
