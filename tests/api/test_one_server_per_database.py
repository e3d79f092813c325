"""A server alone on its database: no second one beside it, and versions that never go back."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.test_crash_recovery import Table, auth
from tests.cluster.cluster import REDIS_URL, check_redis
from tests.processes import ServerProcess, server_env
from tests.storage.databases import drop_postgres_database, fresh_postgres_database


@pytest.fixture
def postgres_url() -> Iterator[str]:
    url = asyncio.run(fresh_postgres_database())
    try:
        yield url
    finally:
        asyncio.run(drop_postgres_database(url))


def refused_line(second: ServerProcess, reason: str = "another meldhall server") -> str:
    """The second server's exit: non-zero, with the reason in one line of its output."""
    try:
        assert second.wait_exit(60) != 0
    finally:
        second.kill()
    lines = [line for line in second.output().splitlines() if reason in line]
    assert lines, second.output()[-3000:]
    return lines[0]


def test_a_second_server_on_the_same_sqlite_file_refuses_to_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = ServerProcess(server_env(data), tmp_path / "first.log").start()
    try:
        second = ServerProcess(server_env(data), tmp_path / "second.log").start(wait=False)
        line = refused_line(second)
        assert str(data / "meldhall.db") in line
        assert f"pid {first.process.pid if first.process else ''}" in line
        # The first goes on serving, untouched.
        assert httpx.get(f"{first.url}/api/rooms", timeout=5).status_code == 200
    finally:
        first.stop()
    # Once the first has stopped, the same folder serves again.
    again = ServerProcess(server_env(data), tmp_path / "again.log").start()
    again.stop()


@pytest.mark.postgres
def test_a_second_lone_server_on_the_same_postgres_database_refuses_to_start(
    tmp_path: Path, postgres_url: str
) -> None:
    first = ServerProcess(
        server_env(tmp_path / "a", DATABASE_URL=postgres_url), tmp_path / "first.log"
    ).start()
    try:
        second = ServerProcess(
            server_env(tmp_path / "b", DATABASE_URL=postgres_url), tmp_path / "second.log"
        ).start(wait=False)
        refused_line(second)
        assert httpx.get(f"{first.url}/api/rooms", timeout=5).status_code == 200
    finally:
        first.stop()


def test_a_version_read_before_a_killed_server_is_stale_after_it(
    database_env: dict[str, str], tmp_path: Path
) -> None:
    """An old tab's action, made against a version from before the crash, must not be taken for
    a newer one once the game has moved on after the restart."""
    log = tmp_path / "server.log"
    first = ServerProcess(database_env, log).start()
    with httpx.Client(base_url=first.url, timeout=10) as http:
        gin = Table.open(http, "gin_rummy", {"target": 500}, seed=11)
        gin.play(48)
        seat = next(
            seat
            for seat, token in enumerate(gin.tokens)
            if http.get(f"/api/rooms/{gin.room_id}/legal", headers=auth(token)).json()["actions"]
        )
        old_version = http.get(
            f"/api/rooms/{gin.room_id}/state", headers=auth(gin.tokens[seat])
        ).json()["version"]
    first.kill()

    second = ServerProcess(database_env, log).start()
    try:
        with httpx.Client(base_url=second.url, timeout=10) as http:
            gin.http = http
            # Two moves after the restart: the table the old tab saw is gone.
            gin.play(2)
            for token in gin.tokens:
                answer = http.get(f"/api/rooms/{gin.room_id}/state", headers=auth(token)).json()
                assert answer["version"] > old_version
                legal = answer["state"]["you"]["legal"]
                if not legal:
                    continue
                stale = http.post(
                    f"/api/rooms/{gin.room_id}/actions",
                    json={"action": legal[0], "version": old_version},
                    headers=auth(token),
                )
                assert stale.status_code == 409, stale.text
                assert stale.json()["error"]["code"] == "stale_version"
                # The same action at the current version is taken.
                fresh = http.post(
                    f"/api/rooms/{gin.room_id}/actions",
                    json={"action": legal[0], "version": answer["version"]},
                    headers=auth(token),
                )
                assert fresh.status_code == 200, fresh.text
                break
            else:
                pytest.fail("nobody could act after the restart")
    finally:
        second.stop()


@pytest.mark.postgres
def test_a_server_alone_and_cluster_nodes_refuse_to_share_a_database(
    tmp_path: Path, postgres_url: str
) -> None:
    check_redis()
    cluster = {
        "DATABASE_URL": postgres_url,
        "MELDHALL_REDIS_URL": REDIS_URL,
        "MELDHALL_CLUSTER_NAME": f"test-{uuid.uuid4().hex[:8]}",
    }
    alone = ServerProcess(
        server_env(tmp_path / "a", DATABASE_URL=postgres_url), tmp_path / "alone.log"
    ).start()
    try:
        node = ServerProcess(server_env(tmp_path / "b", **cluster), tmp_path / "node.log")
        line = refused_line(node.start(wait=False), "runs alone")
        assert "stop it before starting cluster nodes" in line
    finally:
        alone.stop()
    node = ServerProcess(server_env(tmp_path / "c", **cluster), tmp_path / "node2.log").start()
    try:
        second = ServerProcess(
            server_env(tmp_path / "d", DATABASE_URL=postgres_url), tmp_path / "second.log"
        )
        line = refused_line(second.start(wait=False), "or cluster is serving")
        assert "MELDHALL_REDIS_URL" in line
    finally:
        node.stop()
