"""A node joining the cluster and leaving it: its Redis clients opened and closed."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.cluster.clients import redis_client
from app.cluster.node import ClusterNode
from app.rooms.directory import RoomDirectory


async def start_node(
    *,
    redis_url: str,
    directory: RoomDirectory,
    node_id: str,
    cluster_name: str,
    lease_s: float,
) -> ClusterNode:
    """Connect to Redis and join the cluster; ClusterUnreachable if Redis does not answer."""
    options: dict[str, Any] = {"socket_connect_timeout": 3, "socket_keepalive": True}
    redis = redis_client(redis_url, socket_timeout=lease_s, **options)
    subscriber = redis_client(redis_url, **options)
    node = ClusterNode(
        redis=redis,
        subscriber=subscriber,
        directory=directory,
        node_id=node_id,
        cluster_name=cluster_name,
        lease_s=lease_s,
    )
    try:
        async with asyncio.timeout(10):
            await node.start()
    except (RedisError, OSError, TimeoutError) as error:
        await close_clients(redis, subscriber)
        raise unreachable(redis_url, error) from error
    return node


async def reach_redis(redis_url: str) -> None:
    """Check that Redis answers; ClusterUnreachable with what to do if it does not."""
    client = redis_client(redis_url, socket_connect_timeout=3, socket_timeout=3)
    try:
        await client.ping()
    except (RedisError, OSError) as error:
        raise unreachable(redis_url, error) from error
    finally:
        await close_clients(client)


def unreachable(redis_url: str, error: BaseException) -> ClusterUnreachable:
    return ClusterUnreachable(
        f"cannot reach Redis at {redact(redis_url)} ({error}): start it, or fix MELDHALL_REDIS_URL"
    )


async def stop_node(node: ClusterNode) -> None:
    try:
        await node.stop()
    finally:
        await close_clients(node.redis, node.bus.subscriber)


async def close_clients(*clients: Redis) -> None:
    for client in clients:
        with contextlib.suppress(RedisError, OSError):
            await client.aclose()


class ClusterUnreachable(Exception):
    """Redis, which a cluster node needs, cannot be reached at start."""


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    scheme, sep, rest = url.partition("://")
    if "@" not in rest:
        return url
    return f"{scheme}{sep}***@{rest.rsplit('@', 1)[1]}"
