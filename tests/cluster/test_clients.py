"""The cluster's Redis clients pass on every cancel that lands on a command."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio.connection import Connection, SSLConnection, UnixDomainSocketConnection

from app.cluster.clients import redis_client
from tests.cluster.cluster import REDIS_URL, check_redis


async def test_a_cancel_landing_anywhere_in_a_command_ends_it() -> None:
    """Each command is cancelled after 0, 1, 2, ... steps of the loop, until one completes
    first; every cancel that lands while it runs must end it with CancelledError. A client
    made by `Redis.from_url` with a socket timeout, on Python 3.11, returned normally from
    one cancel in ten to fifteen here (its write awaited in `asyncio.wait_for`)."""
    check_redis()
    client = redis_client(REDIS_URL, socket_timeout=5, socket_connect_timeout=3)
    landed = 0
    lost: list[int] = []
    try:
        for steps in range(200):
            for _ in range(4):

                async def command() -> None:
                    pipe = client.pipeline(transaction=True)
                    pipe.set("meldhall-test:cancel", 1, px=2000)
                    pipe.get("meldhall-test:cancel")
                    await pipe.execute()

                task = asyncio.ensure_future(command())
                for _ in range(steps):
                    await asyncio.sleep(0)
                if task.done():
                    break
                landed += 1
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    continue
                lost.append(steps)
            else:
                continue
            break
        # The client still works after all those cut-short commands.
        assert await client.get("meldhall-test:cancel") in (b"1", None)
    finally:
        await client.aclose()
    assert landed >= 40, f"only {landed} cancels landed inside a command"
    assert not lost, f"{len(lost)} of {landed} cancels were lost, after steps {lost}"


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("redis://127.0.0.1:6379/0", Connection),
        ("rediss://127.0.0.1:6380/0", SSLConnection),
        ("unix:///run/redis.sock", UnixDomainSocketConnection),
    ],
)
def test_every_kind_of_url_keeps_its_connection_kind(
    url: str, kind: type[Connection | UnixDomainSocketConnection]
) -> None:
    client = redis_client(url)
    made = client.connection_pool.connection_class
    assert issubclass(made, kind)
    assert made is not kind
