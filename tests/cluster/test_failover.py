"""Owners die, pause, stop and restart; their rooms go on elsewhere and nothing is lost.

Each test plays tables of both games (people on every node, bots, 2-4 seats, a spectator per
room) while a node fails, then counts: acknowledged actions lost, actions applied twice, rooms
that did not finish, versions that went back, gaps in patch streams, hidden cards or tiles that
reached a viewer, refusals other than those of a room changing hands. Every count must be 0.
"""

from __future__ import annotations

import asyncio
import signal
import time

import httpx

from tests.api.play import shared_clients
from tests.cluster.cluster import Cluster, RedisServer, base, wait_until
from tests.cluster.tables import faults, open_tables, play_all, playing
from tests.processes import ServerProcess

PLAY_S = 240.0


def no_faults(found: dict[str, list[str]]) -> None:
    assert {what: items for what, items in found.items() if items} == {}


def stopped_cleanly(node: ServerProcess) -> None:
    """SIGTERM: the node shuts down (handing its rooms over), then exits with the signal's
    status, as uvicorn reports a stop by signal."""
    assert node.stop() in (0, -signal.SIGTERM)
    assert "Application shutdown complete" in node.output()


async def owners_of(cluster: Cluster, room_ids: list[str]) -> dict[str, str | None]:
    return {room_id: cluster.owner(room_id) for room_id in room_ids}


async def test_a_killed_owners_rooms_are_taken_over_and_finish(cluster: Cluster) -> None:
    tables = await open_tables(cluster, 6, seed=1)
    rooms = [table.room_id for table in tables]
    assert set((await owners_of(cluster, rooms)).values()) == {"n0"}
    matches = asyncio.create_task(play_all(tables, PLAY_S))
    await asyncio.sleep(1.5)
    assert playing(tables) >= len(tables) // 2
    cluster.nodes[0].kill()
    killed = time.monotonic()

    async def all_taken() -> bool:
        owners = await owners_of(cluster, rooms)
        return all(owner in ("n1", "n2") for owner in owners.values())

    # A lease, a tick and a half to call them orphans, and a scan: well inside two leases.
    await wait_until(all_taken, 4 * cluster.lease_s + 5, "the rooms taken over")
    assert time.monotonic() - killed < 4 * cluster.lease_s + 5
    await matches
    no_faults(await faults(cluster, tables))


async def test_a_paused_owner_finds_itself_fenced_and_acknowledges_nothing(
    cluster: Cluster,
) -> None:
    n0, n1, _ = cluster.nodes
    async with base(n0) as http:
        room_id = (
            await http.post("/api/rooms", json={"game": "gin_rummy", "options": {"target": 40}})
        ).json()["room_id"]
        tokens = [
            (await http.post(f"/api/rooms/{room_id}/join", json={"name": n})).json()["token"]
            for n in ("ann", "bob")
        ]
        for token in tokens:
            await http.post(
                f"/api/rooms/{room_id}/ready", headers={"Authorization": f"Bearer {token}"}
            )
    # Whoever moves first sends a move straight to the owner, which is paused meanwhile.
    async with base(n0) as http:
        states = [
            (
                await http.get(
                    f"/api/rooms/{room_id}/state", headers={"Authorization": f"Bearer {t}"}
                )
            ).json()
            for t in tokens
        ]
    mover = next(i for i, state in enumerate(states) if state["state"]["you"]["legal"])
    state = states[mover]
    action = state["state"]["you"]["legal"][0]
    n0.signal(signal.SIGSTOP)
    try:

        async def moved() -> bool:
            return cluster.owner(room_id) in ("n1", "n2")

        await wait_until(moved, 4 * cluster.lease_s + 5, "the paused owner's room taken over")
        # The paused node gets the move now, and answers it only once it runs again.
        sent = asyncio.create_task(
            asyncio.to_thread(
                httpx.post,
                f"{n0.url}/api/rooms/{room_id}/actions",
                json={"action": action, "version": state["version"]},
                headers={"Authorization": f"Bearer {tokens[mover]}"},
                timeout=60,
            )
        )
        await asyncio.sleep(0.5)
    finally:
        n0.signal(signal.SIGCONT)
    answer = await sent
    # Whatever it answers, it is not an acknowledgement: nothing it does is written any more.
    assert answer.status_code >= 400, answer.text
    assert answer.json()["error"]["code"] in {"room_moved", "room_unavailable", "stale_version"}
    async with base(n1) as http:
        replay = (
            # The room is private: its invite link (the room id) opens its history.
            await http.get(
                f"/api/matches/{state['state']['room']['match_id']}/replay",
                params={"room": room_id},
            )
        ).json()
    assert [step for step in replay["steps"] if step["seat"] is not None] == []

    # The resumed node lets the room go, and serves it again as any node does: through its owner.
    async def let_go() -> bool:
        async with base(n0) as http:
            read = await http.get(f"/api/rooms/{room_id}", timeout=30)
            return read.status_code == 200 and cluster.owner(room_id) != "n0"

    await wait_until(let_go, 4 * cluster.lease_s + 5, "the resumed node to let the room go")
    assert "claimed past epoch" in n0.output() or "held by another node" in n0.output()


async def test_a_stopped_node_hands_its_rooms_over_at_once(cluster: Cluster) -> None:
    tables = await open_tables(cluster, 4, seed=3)
    rooms = [table.room_id for table in tables]
    matches = asyncio.create_task(play_all(tables, PLAY_S))
    await asyncio.sleep(1.5)
    assert playing(tables) >= len(tables) // 2
    stopping = time.monotonic()
    stopped_cleanly(cluster.nodes[0])
    owners = await owners_of(cluster, rooms)

    async def all_taken() -> bool:
        nonlocal owners
        owners = await owners_of(cluster, rooms)
        return all(owner in ("n1", "n2") for owner in owners.values())

    # Handed over, not waited out: no lease has to run out first.
    await wait_until(all_taken, cluster.lease_s, "the rooms handed over")
    assert time.monotonic() - stopping < 30
    await matches
    no_faults(await faults(cluster, tables))


async def test_a_rolling_restart_of_every_node_loses_nothing(cluster: Cluster) -> None:
    tables = await open_tables(cluster, 6, seed=5)
    # Slower people: the matches last through three restarts, on a quick machine too (at a
    # move every 0.3 s, four of the six tables had finished before the third restart).
    matches = asyncio.create_task(play_all(tables, PLAY_S, pace_s=0.6))
    for node in cluster.nodes:
        await asyncio.sleep(2)
        assert playing(tables) >= len(tables) // 2
        stopped_cleanly(node)
        node.start()
    await matches
    no_faults(await faults(cluster, tables))


async def test_a_cluster_plays_on_through_a_restart_of_redis(
    cluster_on_own_redis: tuple[Cluster, RedisServer],
) -> None:
    cluster, redis_server = cluster_on_own_redis
    tables = await open_tables(cluster, 6, seed=7)
    matches = asyncio.create_task(play_all(tables, PLAY_S))
    await asyncio.sleep(2)
    assert playing(tables) >= len(tables) // 2
    redis_server.stop()
    await asyncio.sleep(1)
    redis_server.start()
    await matches
    no_faults(await faults(cluster, tables))


async def test_a_turn_clock_runs_on_after_its_owner_dies(cluster: Cluster) -> None:
    n0, n1, _ = cluster.nodes
    async with base(n0) as http:
        created = await http.post(
            "/api/rooms", json={"game": "rummikub", "options": {"turn_timer_s": 10}}
        )
        room_id = created.json()["room_id"]
        tokens = [
            (await http.post(f"/api/rooms/{room_id}/join", json={"name": n})).json()["token"]
            for n in ("ann", "bob")
        ]
        for token in tokens:
            await http.post(
                f"/api/rooms/{room_id}/ready", headers={"Authorization": f"Bearer {token}"}
            )
        first = (await http.get(f"/api/rooms/{room_id}/state")).json()
    # Nobody moves; the owner dies; the turn must still run out, on the room's new owner.
    n0.kill()

    async def turn_passed() -> bool:
        async with base(n1) as http:
            read = await http.get(f"/api/rooms/{room_id}/state")
        if read.status_code != 200:
            return False
        state = read.json()
        return bool(state["state"]["game"]["to_act"] != first["state"]["game"]["to_act"])

    await wait_until(turn_passed, 4 * cluster.lease_s + 5 + 10 + 10, "the turn timed out")
    async with base(n1) as http:
        state = (await http.get(f"/api/rooms/{room_id}/state")).json()
    assert state["version"] > first["version"]
    assert state["state"]["deadline"] is not None


async def test_a_seat_held_by_a_dead_node_shows_as_away_on_the_owner(cluster: Cluster) -> None:
    n0, n1, _ = cluster.nodes
    async with base(n0) as http:
        room_id = (await http.post("/api/rooms", json={"game": "gin_rummy"})).json()["room_id"]
        token = (await http.post(f"/api/rooms/{room_id}/join", json={"name": "ann"})).json()[
            "token"
        ]
    (client,) = shared_clients([(cluster.ws_url(n1, room_id), token)])
    await client.connect()
    async with base(n0) as http:
        seat = (await http.get(f"/api/rooms/{room_id}")).json()["seats"][0]
    assert seat["connected"] is True
    n1.kill()

    async def away() -> bool:
        async with base(n0) as http:
            info = (await http.get(f"/api/rooms/{room_id}")).json()
        return info["seats"][0]["connected"] is False

    # Nothing is sent to the dead node's socket (nobody moves): the owner notices by itself.
    await wait_until(away, 4 * cluster.lease_s + 5, "the seat shown away")
