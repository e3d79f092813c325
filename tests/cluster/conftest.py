"""Clusters of real nodes on PostgreSQL and Redis; every test here needs both."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from sqlalchemy.engine import make_url

from tests.cluster.balancer import Balancer
from tests.cluster.cluster import REDIS_URL, Cluster, RedisServer, check_redis
from tests.processes import free_port
from tests.proxies import FreezingProxy
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

pytestmark = pytest.mark.postgres


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    report = yield
    item.stash.setdefault(FAILED, False)
    if report.failed:
        item.stash[FAILED] = True
    return report


FAILED = pytest.StashKey[bool]()
# Test clients play at machine speed, far past a person's rate limit.
TEST_SETTINGS = {
    "MELDHALL_LOG_LEVEL": "info",
    "MELDHALL_WS_MESSAGES_PER_SECOND": "10000",
    "MELDHALL_WS_BURST": "10000",
}
# People and bots at a pace that keeps most matches going past a fault of a few leases (a
# kill, a pause, Redis or the database away), even on a quiet machine where the server answers
# at once.
FAULT_PACE_S = 0.4
FAULT_SETTINGS = {**TEST_SETTINGS, "MELDHALL_BOT_DELAY_MS": "400"}


@pytest.fixture
def database_url() -> Iterator[str]:
    url = asyncio.run(fresh_postgres_database())
    try:
        yield url
    finally:
        asyncio.run(drop_postgres_database(url))


@contextmanager
def running_cluster(folder: Path) -> Iterator[Cluster]:
    """Three nodes on a database of their own, for as long as the block runs."""
    check_redis()
    url = asyncio.run(fresh_postgres_database())
    running = Cluster(folder, url, REDIS_URL, settings=TEST_SETTINGS)
    try:
        yield running.start(3)
    except BaseException:
        print(running.logs())
        raise
    finally:
        running.stop()
        asyncio.run(drop_postgres_database(url))


@pytest.fixture
def cluster(request: pytest.FixtureRequest, tmp_path: Path, database_url: str) -> Iterator[Cluster]:
    """Three nodes with a two-second lease, started; their logs are shown if the test fails."""
    check_redis()
    running = Cluster(tmp_path, database_url, REDIS_URL, settings=TEST_SETTINGS)
    try:
        yield running.start(3)
    finally:
        running.stop()
        if request.node.stash.get(FAILED, False):
            print(running.logs())


@pytest.fixture
def cluster_on_own_redis(
    request: pytest.FixtureRequest, tmp_path: Path, database_url: str
) -> Iterator[tuple[Cluster, RedisServer]]:
    """Three nodes on a Redis server of the test's own, which the test may restart."""
    redis_server = RedisServer(free_port()).start()
    running = Cluster(tmp_path, database_url, redis_server.url, settings=TEST_SETTINGS)
    try:
        yield running.start(3), redis_server
    finally:
        running.stop()
        redis_server.stop()
        if request.node.stash.get(FAILED, False):
            print(running.logs())


@pytest.fixture
def balancer(tmp_path: Path, cluster: Cluster) -> Iterator[Balancer]:
    """HAProxy, configured by deploy/haproxy.cfg, in front of the cluster's three nodes."""
    running = Balancer(tmp_path, cluster.nodes).start()
    try:
        yield running
    finally:
        running.stop()


@asynccontextmanager
async def behind_a_database_proxy(
    tmp_path: Path, database_url: str, count: int, *, every_node: bool
) -> AsyncIterator[tuple[Cluster, FreezingProxy, Redis]]:
    """A cluster of `count` nodes on a Redis of its own, whose first node (or, `every_node`,
    each node) reaches PostgreSQL through a FreezingProxy; with a client of that Redis. The
    nodes' logs are shown if the block fails."""
    redis_server = RedisServer(free_port()).start()
    url = make_url(database_url)
    proxy = FreezingProxy(url.host or "127.0.0.1", url.port or 5432).start()
    through = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    if every_node:
        cluster = Cluster(tmp_path, through, redis_server.url, settings=FAULT_SETTINGS)
        cluster.start(count)
    else:
        cluster = Cluster(tmp_path, database_url, redis_server.url, settings=FAULT_SETTINGS)
        cluster.start(count, first={"DATABASE_URL": through})
    redis = Redis.from_url(redis_server.url)
    try:
        yield cluster, proxy, redis
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        await redis.aclose()
        proxy.thaw()
        cluster.stop()
        proxy.stop()
        redis_server.stop()
