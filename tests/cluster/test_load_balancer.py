"""A real load balancer (HAProxy, as deploy/haproxy.cfg configures it) in front of three nodes:
no sticky sessions, and players never need to know which node holds their room."""

from __future__ import annotations

import asyncio
import re

import httpx

from app.bots.registry import make_bot
from tests.api.play import play_until, shared_clients
from tests.cluster.balancer import Balancer
from tests.cluster.cluster import Cluster
from tests.cluster.spy import bearer, match_faults
from tests.cluster.tables import faults, open_tables, play_all, playing
from tests.cluster.test_failover import PLAY_S, no_faults


def sockets_per_node(cluster: Cluster, room_id: str) -> list[int]:
    return [
        len(re.findall(rf"WebSocket /ws/rooms/{room_id}\" \[accepted\]", node.output()))
        for node in cluster.nodes
    ]


async def test_whole_matches_through_the_balancer_with_seats_on_several_nodes(
    cluster: Cluster, balancer: Balancer
) -> None:
    for game, players, seed in (("gin_rummy", 2, 11), ("rummikub", 3, 12)):
        async with httpx.AsyncClient(base_url=balancer.url, timeout=30) as http:
            room_id = (
                await http.post("/api/rooms", json={"game": game, "players": players})
            ).json()["room_id"]
            tokens = [
                (await http.post(f"/api/rooms/{room_id}/join", json={"name": f"p{s}"})).json()[
                    "token"
                ]
                for s in range(players)
            ]
        clients = shared_clients(
            [(balancer.ws_url(room_id), token) for token in tokens]
            + [(balancer.ws_url(room_id), None)]
        )
        for client in clients:
            await client.connect()
        for client in clients[:players]:
            await client.send({"type": "ready"})
        bots = {seat: make_bot(game, "normal", seed + seat) for seat in range(players)}
        await play_until(clients, bots)
        # The balancer spread the room's sockets: it is played from more than one node.
        assert sum(1 for count in sockets_per_node(cluster, room_id) if count) >= 2
        async with httpx.AsyncClient(base_url=balancer.url, timeout=30) as http:
            for client in clients:
                read = await http.get(f"/api/rooms/{room_id}/state", headers=bearer(client.token))
                state = read.json()
                assert (client.version, client.doc) == (state["version"], state["state"])
        assert await match_faults(cluster.database_url, clients, players) == []
        for client in clients:
            await client.close()


async def test_a_node_that_holds_sockets_but_owns_nothing_dies_and_its_clients_carry_on(
    cluster: Cluster, balancer: Balancer
) -> None:
    tables = await open_tables(cluster, 6, seed=21, owner=0, through=balancer.ws_url("{room}"))
    matches = asyncio.create_task(play_all(tables, PLAY_S))
    await asyncio.sleep(2)
    # n2 owns no room but holds some of the sockets the balancer spread.
    assert all(cluster.owner(table.room_id) == "n0" for table in tables)
    assert any(sockets_per_node(cluster, table.room_id)[2] for table in tables)
    assert playing(tables) >= len(tables) // 2
    cluster.nodes[2].kill()
    await matches
    no_faults(await faults(cluster, tables))
    # Their players reconnected: some sockets more than the seats and spectators there are.
    players = [player for table in tables for player in table.players]
    assert sum(player.connections for player in players) > len(players)


async def test_owners_killed_under_players_spread_by_the_balancer(
    cluster: Cluster, balancer: Balancer
) -> None:
    tables = await open_tables(cluster, 6, seed=31, owner=1, through=balancer.ws_url("{room}"))
    matches = asyncio.create_task(play_all(tables, PLAY_S))
    await asyncio.sleep(2)
    assert playing(tables) >= len(tables) // 2
    cluster.nodes[1].kill()
    await asyncio.sleep(6)
    cluster.nodes[1].start()
    await asyncio.sleep(2)
    cluster.nodes[0].kill()
    await matches
    no_faults(await faults(cluster, tables))
