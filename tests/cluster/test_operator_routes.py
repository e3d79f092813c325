"""On a cluster, the operator's routes on any node act on a room another node owns, and each
node's /metrics counts what it relays."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.cluster import bus, wire
from tests.api.live import SeatClient
from tests.cluster.cluster import Cluster, RedisServer, base, wait_until
from tests.cluster.conftest import FAILED, TEST_SETTINGS
from tests.processes import ServerProcess, free_port

ADMIN_TOKEN = "the-cluster-operator-token-0123456789"
METRICS_TOKEN = "the-cluster-metrics-token"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture
def cluster(request: pytest.FixtureRequest, tmp_path: Path, database_url: str) -> Iterator[Cluster]:
    """Three nodes with both doors open, on a Redis server of the test's own."""
    redis_server = RedisServer(free_port()).start()
    settings = {
        **TEST_SETTINGS,
        "MELDHALL_ADMIN_TOKEN": ADMIN_TOKEN,
        "MELDHALL_METRICS_TOKEN": METRICS_TOKEN,
    }
    running = Cluster(tmp_path, database_url, redis_server.url, settings=settings)
    try:
        yield running.start(3)
    finally:
        running.stop()
        redis_server.stop()
        if request.node.stash.get(FAILED, False):
            print(running.logs())


async def admin(node: ServerProcess, method: str, path: str, **kwargs: Any) -> httpx.Response:
    async with base(node) as http:
        return await http.request(method, f"/api/admin{path}", headers=ADMIN, **kwargs)


async def metric(server: ServerProcess, name: str, **labels: str) -> float:
    """The sum of `name`'s samples on `server` whose labels include `labels`."""
    async with base(server) as http:
        text = (
            await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        ).text
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        head, _, value = line.rpartition(" ")
        if all(f'{key}="{wanted}"' in head for key, wanted in labels.items()):
            total += float(value)
    return total


async def test_any_node_lists_hands_over_notifies_and_closes_another_nodes_room(
    cluster: Cluster,
) -> None:
    n0, n1, n2 = cluster.nodes
    async with base(n0) as http:
        created = await http.post(
            "/api/rooms",
            json={"game": "gin_rummy", "players": 2, "public": False, "bots": [{"seat": 1}]},
        )
        assert created.status_code == 201, created.text
        room_id = created.json()["room_id"]
        joined = await http.post(f"/api/rooms/{room_id}/join", json={"name": "ann", "seat": 0})
        token = joined.json()["token"]
    assert cluster.owner(room_id) == "n0"
    # ann's socket on n2 is relayed from n0; a spectator sits on n0 itself.
    ann = await SeatClient(cluster.ws_url(n2, room_id), token).connect()
    watcher = await SeatClient(cluster.ws_url(n0, room_id), None).connect()
    await ann.send({"type": "ready"})
    await ann.wait_for(lambda: ann.status == "playing")

    listed = await admin(n1, "GET", "/rooms")
    assert listed.status_code == 200, listed.text
    room = next(r for r in listed.json()["rooms"] if r["room_id"] == room_id)
    assert (room["node"], room["status"], room["public"]) == ("n0", "playing", False)
    assert room["connections"] == 2
    assert room["seats"][0]["connections"] == 1
    assert await metric(n2, "meldhall_sockets", node="n2", kind="relayed") == 1
    assert await metric(n2, "meldhall_messages_relayed_total", node="n2") > 0
    assert await metric(n0, "meldhall_rooms", node="n0", game="gin_rummy", status="playing") == 1

    noticed = await admin(n1, "POST", "/notice", json={"text": "restarting in 5 minutes"})
    assert noticed.status_code == 202, noticed.text
    for client in (ann, watcher):
        await client.wait_for(
            lambda c=client: any('"type":"notice"' in m for _, m in c.received)  # type: ignore[misc]
        )

    handed = await admin(n2, "POST", f"/rooms/{room_id}/seats/0/bot", json={"level": "easy"})
    assert handed.status_code == 200, handed.text
    assert (handed.json()["node"], handed.json()["seats"][0]["kind"]) == ("n0", "bot")

    closed = await admin(n1, "POST", f"/rooms/{room_id}/close", json={"reason": "maintenance"})
    assert closed.status_code == 200, closed.text
    for client in (ann, watcher):
        await client.wait_for(lambda c=client: c.closed.is_set())  # type: ignore[misc]
        assert client.close_code == 4410
        assert any('"type":"room_closed"' in m for _, m in client.received)
    async with base(n2) as http:
        gone = await http.get(f"/api/rooms/{room_id}")
    assert gone.json()["error"]["code"] == "room_not_found"
    missing = await admin(n2, "POST", f"/rooms/{room_id}/close", json={})
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "room_not_found")

    async def lease_gone() -> bool:
        return cluster.owner(room_id) is None

    await wait_until(lease_gone, 5, "the closed room's lease to go")
    assert await metric(n0, "meldhall_matches_finished_total", outcome="abandoned") == 1
    listed = await admin(n2, "GET", "/rooms")
    assert room_id not in {r["room_id"] for r in listed.json()["rooms"]}
    await asyncio.gather(ann.close(), watcher.close())


async def test_every_node_keeps_its_admin_door_shut_to_a_wrong_token(cluster: Cluster) -> None:
    for node in cluster.nodes:
        async with base(node) as http:
            refused = await http.get("/api/admin/rooms", headers={"Authorization": "Bearer no"})
            hidden = await http.get("/metrics")
        assert refused.status_code == 404
        assert hidden.status_code == 404


def test_no_message_kind_is_taken_for_one_of_the_bus_own_markers() -> None:
    kinds = [wire.CALL, wire.ANSWER, wire.FRAME, wire.CLOSE, wire.GONE, wire.MOVED, wire.NOTICE]
    assert len(set(kinds)) == len(kinds)
    assert not set(kinds) & {bus.BUNDLE, bus.NUMBERED}
