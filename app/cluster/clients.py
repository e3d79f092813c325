"""Redis clients whose commands end when their task is cancelled, on every Python.

redis-py bounds a command's write with `asyncio.wait_for` when the client has a socket
timeout. On Python 3.11 `wait_for` returns normally in place of raising a cancel that reaches
it in the step its write completes (CPython gh-86296, fixed in 3.12), and writes to Redis
complete at once: about one cancel in ten that lands on a command was lost, so a loop stopped
by its cancel could run on for ever. The connections made here bound the write with
`asyncio.timeout`, which passes the cancel on (SQLAlchemy and asyncpg work around the same
bug); reads keep redis-py's own timeout, which already uses `asyncio.timeout`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    ConnectionPool,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

CANCEL_SAFE_WRITES = sys.version_info < (3, 12)


class _CancelSafeWrites(AbstractConnection):
    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        timeout = self.socket_timeout
        if not CANCEL_SAFE_WRITES or not timeout:
            # Without a timeout redis-py awaits the write itself; from 3.12 on, wait_for is
            # built on asyncio.timeout.
            await super().send_packed_command(command, check_health)
            return
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()  # type: ignore[no-untyped-call]
        if isinstance(command, str):
            command = command.encode()
        if isinstance(command, bytes):
            command = [command]
        try:
            async with asyncio.timeout(timeout):
                await self._send_packed_command(command)
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as error:
            await self.disconnect(nowait=True)
            raise RedisConnectionError(f"Error while writing to socket: {error}") from error
        except BaseException:
            # A write cut short leaves the connection's stream unknown (as redis-py's does).
            await self.disconnect(nowait=True)
            raise


class _Tcp(_CancelSafeWrites, Connection):
    pass


class _Tls(_CancelSafeWrites, SSLConnection):
    pass


class _Unix(_CancelSafeWrites, UnixDomainSocketConnection):
    pass


_SAFE: dict[type[AbstractConnection], type[AbstractConnection]] = {
    Connection: _Tcp,
    SSLConnection: _Tls,
    UnixDomainSocketConnection: _Unix,
}


def redis_client(url: str, **options: Any) -> Redis:
    """A client for a redis://, rediss:// or unix:// URL whose writes honour a cancel."""
    pool = ConnectionPool.from_url(url, **options)
    pool.connection_class = _SAFE.get(pool.connection_class, pool.connection_class)
    return Redis.from_pool(pool)
