"""A TCP proxy that a test can freeze, between a server and a service it uses."""

from __future__ import annotations

import asyncio
import threading


class FreezingProxy:
    """A TCP proxy on a loop of its own, which holds all traffic while frozen: every
    connection stays open and what either side sends is delivered once thawed, as a hung
    server or a network dropping packets would do."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.loop = asyncio.new_event_loop()
        self.thawed = asyncio.Event()
        self.thawed.set()
        self.port = 0
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> FreezingProxy:
        self._thread.start()
        server = asyncio.run_coroutine_threadsafe(self._serve(), self.loop).result(10)
        self.port = server.sockets[0].getsockname()[1]
        return self

    def freeze(self) -> None:
        self.loop.call_soon_threadsafe(self.thawed.clear)

    def thaw(self) -> None:
        self.loop.call_soon_threadsafe(self.thawed.set)

    def stop(self) -> None:
        self.thaw()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    async def _serve(self) -> asyncio.Server:
        return await asyncio.start_server(self._connect, "127.0.0.1", 0)

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self.thawed.wait()
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self.thawed.wait()
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()
