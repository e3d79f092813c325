"""The reading half of a room socket: whole text frames handed to the session as they arrive.

uvicorn's sans-I/O stack parses every frame with websockets' parser, queues the message, pauses
the socket, and wakes the task reading the queue, which resumes the socket: most of the server
CPU a read costs, for the one kind of frame a room socket gets on every move (a small, whole,
masked text frame). `DirectReads` stands between the transport and that stack: it hands such
frames to the session at once, and gives the stack everything else (pings, pongs, closes,
fragments, frames too large or not valid UTF-8, bytes after a refusal), each at a frame
boundary, so its parser's state is what it would have been. A frame goes to the stack, in
order, whenever the session cannot take it at once (a message of its own still being handled,
one queued by the stack first): the session then reads it from the stack's queue as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.types import Send

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the C speedups are built for every common platform
    from websockets.utils import apply_mask

from app.api.sansio import open_and_plain, sansio_protocol

# A whole text frame from a client: FIN, no extension bits, opcode 1; then the mask bit.
TEXT_FIN = 0x81
MASKED = 0x80
# Frames longer than this, or than the stack's own limit, go to the stack, which refuses
# those past its limit.
LONGEST = 65535
# A client frame's header is at most 14 bytes (2, an 8-byte length, a 4-byte mask).
LONGEST_HEADER = 14
# What DirectReads reads of uvicorn's sans-I/O protocol.
PROTOCOL_ATTRIBUTES = (
    "close_sent",
    "conn",
    "data_received",
    "disconnected",
    "handshake_complete",
    "queue",
    "read_paused",
    "transport",
)

# And what it reads of websockets' protocol.
CONN_ATTRIBUTES = ("extensions", "max_fragment_size", "max_message_size", "state")
# Takes a message's text and answers whether it took it (False: not now, read it later).
Deliver = Callable[[str], bool]


class DirectReads(asyncio.Protocol):
    """The transport's protocol for one room socket: forwards every event to uvicorn's, but
    hands whole text frames to `deliver` directly (see the module docstring)."""

    __slots__ = ("deliver", "held", "longest", "protocol", "tracking")

    def __init__(self, protocol: Any, deliver: Deliver) -> None:
        self.protocol = protocol
        self.deliver = deliver
        conn = protocol.conn
        limits = [conn.max_message_size, conn.max_fragment_size, LONGEST]
        self.longest = min(limit for limit in limits if limit is not None)
        # The start of a frame whose end has not arrived yet.
        self.held = b""
        # False once bytes that may end mid-frame went to the stack: from then on it reads all.
        self.tracking = True

    @classmethod
    def install(cls, send: Send, deliver: Deliver) -> DirectReads | None:
        """Put a DirectReads between the transport of `send`'s socket and uvicorn's protocol;
        None (and nothing changed) for another stack or one whose attributes were renamed."""
        protocol = sansio_protocol(send, PROTOCOL_ATTRIBUTES)
        if protocol is None or not all(hasattr(protocol.conn, name) for name in CONN_ATTRIBUTES):
            return None
        transport = protocol.transport
        if transport.get_protocol() is not protocol or transport.is_closing():
            return None
        reads = cls(protocol, deliver)
        transport.set_protocol(reads)
        return reads

    # -- the transport's callbacks ---------------------------------------------------------

    def connection_made(self, transport: Any) -> None:  # pragma: no cover - made before
        self.protocol.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.connection_lost(exc)

    def eof_received(self) -> bool | None:
        result: bool | None = self.protocol.eof_received()
        return result

    def pause_writing(self) -> None:
        self.protocol.pause_writing()

    def resume_writing(self) -> None:
        self.protocol.resume_writing()

    def data_received(self, data: bytes) -> None:
        if not self.tracking:
            self.protocol.data_received(data)
            return
        if self.held:
            data, self.held = self.held + data, b""
        size = len(data)
        start = 0
        while start < size:
            bounds = frame_bounds(data, start)
            if bounds is None or bounds[1] > size:
                if bounds is None and size - start < LONGEST_HEADER:
                    # Too little to know the frame's length yet: keep it for the next read.
                    self.held = data[start:]
                    return
                if bounds is not None and bounds[1] - start <= LONGEST_HEADER + self.longest:
                    self.held = data[start:]
                    return
                # A frame too long to hold, or a header this side does not read: the stack
                # takes the rest of the socket's bytes.
                self.tracking = False
                self.protocol.data_received(data[start:])
                return
            payload, end = bounds
            if not self.took(data, start, payload, end):
                self.protocol.data_received(data[start:end])
            start = end

    def took(self, data: bytes, start: int, payload: int, end: int) -> bool:
        """Whether the frame at data[start:end] (its payload from `payload`) was a text
        message handed to the session."""
        if data[start] != TEXT_FIN or not data[start + 1] & MASKED or not self.open():
            return False
        if end - payload > self.longest:
            return False
        try:
            text = apply_mask(data[payload:end], data[payload - 4 : payload]).decode()
        except UnicodeDecodeError:
            return False
        return self.deliver(text)

    def open(self) -> bool:
        """Whether a message read now comes next: the socket is open and uncompressed, and
        nothing the stack read waits in its queue (reading is paused while anything does)."""
        protocol = self.protocol
        return open_and_plain(protocol) and not protocol.read_paused and protocol.queue.empty()


def frame_bounds(data: bytes, start: int) -> tuple[int, int] | None:
    """Where the payload of the frame starting at data[start] begins and where the frame ends
    (maybe past the data), or None if its header is not all there or gives an 8-byte length
    (frames this side never reads)."""
    if len(data) - start < 2:
        return None
    second = data[start + 1]
    length = second & 0x7F
    head = 2
    if length == 126:
        if len(data) - start < 4:
            return None
        length = int.from_bytes(data[start + 2 : start + 4], "big")
        head = 4
    elif length == 127:
        return None
    if second & MASKED:
        head += 4
    return start + head, start + head + length
