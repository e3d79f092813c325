"""A minimal WebSocket client for load generation: text frames in and out, nothing else.

The bench's clients share the machine with the server they measure, so every microsecond
they spend per message is taken from the server. This client parses the few frames a server
sends (text, ping, close; never fragmented here) straight off the transport and calls back
synchronously, with no per-message futures or tasks. Frames it sends carry the all-zero
masking key, which RFC 6455 allows and which leaves the payload as it is. With `deflate` it
offers permessage-deflate (RFC 7692) so that a server with compression on uses it: it inflates
what it receives and sends its own frames uncompressed, which the extension allows.
"""

from __future__ import annotations

import asyncio
import base64
import os
import zlib
from collections.abc import Callable

TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA
ZERO_MASK = b"\0\0\0\0"
RSV1 = 0x40
# What RFC 7692 strips from the end of every compressed message.
DEFLATE_TAIL = b"\x00\x00\xff\xff"


def frame(opcode: int, payload: bytes) -> bytes:
    """One final, masked client frame."""
    size = len(payload)
    if size < 126:
        header = bytes((0x80 | opcode, 0x80 | size))
    elif size < 1 << 16:
        header = bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x80 | opcode, 0x80 | 127)) + size.to_bytes(8, "big")
    return header + ZERO_MASK + payload


class LightSocket(asyncio.Protocol):
    def __init__(self, on_text: Callable[[str], None]) -> None:
        self.on_text = on_text
        self.inflater: zlib._Decompress | None = None
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    @classmethod
    async def connect(
        cls, port: int, path: str, on_text: Callable[[str], None], deflate: bool = False
    ) -> LightSocket:
        loop = asyncio.get_running_loop()
        transport, sock = await loop.create_connection(lambda: cls(on_text), "127.0.0.1", port)
        sock.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        offer = "Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else ""
        transport.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n{offer}"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        await asyncio.wait_for(sock.opened, 30)
        return sock

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.opened.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end])
            status = head[: head.find(b"\r\n")]
            del self.buffer[: end + 4]
            if b" 101 " not in status:
                self.opened.set_exception(ConnectionError(status.decode(errors="replace")))
                return
            if b"permessage-deflate" in head.lower():
                # Without no_context_takeover the server's window carries over between
                # messages, so one inflater lives as long as the socket.
                self.inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            self.opened.set_result(None)
        self._frames()

    def _frames(self) -> None:
        buffer, start, end = self.buffer, 0, len(self.buffer)
        while end - start >= 2:
            first, size, head = buffer[start], buffer[start + 1] & 0x7F, 2
            opcode = first & 0x0F
            if size == 126:
                if end - start < 4:
                    break
                size, head = int.from_bytes(buffer[start + 2 : start + 4], "big"), 4
            elif size == 127:
                if end - start < 10:
                    break
                size, head = int.from_bytes(buffer[start + 2 : start + 10], "big"), 10
            if end - start < head + size:
                break
            payload = bytes(buffer[start + head : start + head + size])
            start += head + size
            if opcode == TEXT:
                if first & RSV1 and self.inflater is not None:
                    payload = self.inflater.decompress(payload + DEFLATE_TAIL)
                self.on_text(payload.decode())
            elif opcode == PING:
                self._write(frame(PONG, payload))
            elif opcode == CLOSE:
                self.close()
        del buffer[:start]

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def send(self, text: str) -> None:
        self._write(frame(TEXT, text.encode()))

    def close(self) -> None:
        self._write(frame(CLOSE, (1000).to_bytes(2, "big")))
        if self.transport is not None:
            self.transport.close()
