"""Tables of both games played on a cluster while something goes wrong, and what is counted
after: acknowledged actions lost, actions applied twice, rooms that did not finish, versions
that went back, and hidden cards or tiles that reached a viewer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from tests.cluster.cluster import Cluster, authentic_views, base, stored_match
from tests.cluster.players import EXPECTED_REFUSALS, Player, log_faults, players_for
from tests.cluster.spy import received_faults

# (game, seats, bots, options): people in most seats, bots in some, a room of bots alone.
TABLES: list[tuple[str, int, int, dict[str, Any]]] = [
    ("gin_rummy", 2, 0, {"target": 40}),
    ("gin_rummy", 2, 1, {"target": 40}),
    ("rummikub", 3, 0, {}),
    ("rummikub", 4, 2, {}),
    ("rummikub", 2, 2, {}),
    ("gin_rummy", 4, 2, {"target": 40}),
]


@dataclass
class Table:
    room_id: str
    game: str
    players: list[Player]
    match_id: str = ""
    notes: list[str] = field(default_factory=list)


async def open_tables(
    cluster: Cluster, count: int, *, seed: int = 1, owner: int = 0, through: str | None = None
) -> list[Table]:
    """`count` rooms from TABLES (cycling), created on node `owner`, joined on every node; the
    players' sockets start on every node in turn, or all go `through` a load balancer's
    WebSocket URL (with "{room}" for the room)."""
    tables = []
    urls = [cluster.ws_url(node, "{room}") for node in cluster.nodes]
    if through is not None:
        urls = [through]
    for index in range(count):
        game, seats, bots, options = TABLES[index % len(TABLES)]
        body = {
            "game": game,
            "players": seats,
            "options": options,
            "bots": [{"seat": seats - 1 - b, "level": "normal"} for b in range(bots)],
        }
        async with base(cluster.nodes[owner]) as http:
            created = await http.post("/api/rooms", json=body)
            assert created.status_code == 201, created.text
        room_id = created.json()["room_id"]
        tokens = []
        for seat in range(seats - bots):
            async with base(cluster.nodes[seat % len(cluster.nodes)]) as http:
                joined = await http.post(f"/api/rooms/{room_id}/join", json={"name": f"p{seat}"})
                assert joined.status_code == 201, joined.text
                tokens.append(joined.json()["token"])
        room_urls = [url.replace("{room}", room_id) for url in urls]
        players = players_for(room_urls, tokens, game, seed + 10 * index)
        if not tokens:
            # A room of bots starts by itself; a spectator follows it.
            players = players[-1:]
        tables.append(Table(room_id, game, players))
        for seat, token in enumerate(tokens):
            async with base(cluster.nodes[seat % len(cluster.nodes)]) as http:
                ready = await http.post(
                    f"/api/rooms/{room_id}/ready", headers={"Authorization": f"Bearer {token}"}
                )
                assert ready.status_code == 200, ready.text
    return tables


# People think before they move: the matches last through the faults a test makes.
PACE_S = 0.1


async def play_all(tables: list[Table], seconds: float, pace_s: float = PACE_S) -> None:
    for table in tables:
        for player in table.players:
            player.pace_s = pace_s
    await asyncio.gather(*(player.play(seconds) for table in tables for player in table.players))


def playing(tables: list[Table]) -> int:
    """How many tables have not finished yet (a fault made now falls on their matches)."""
    return sum(not any(player.finished for player in table.players) for table in tables)


async def faults(
    cluster: Cluster, tables: list[Table], expected: frozenset[str] = EXPECTED_REFUSALS
) -> dict[str, list[str]]:
    """Everything a fault test asserts is empty, by what it counts; refusals with `expected`
    codes are answers the fault calls for."""
    found: dict[str, list[str]] = {
        "lost or doubled": [],
        "unfinished": [],
        "versions back": [],
        "gaps": [],
        "leaks": [],
        "unexpected refusals": [],
    }
    for table in tables:
        doc = next((p.doc for p in table.players if p.doc is not None), None)
        if doc is None or doc["room"]["status"] != "finished":
            found["unfinished"].append(table.room_id)
            continue
        stored = await stored_match(cluster.database_url, doc["room"]["match_id"])
        if stored.status != "finished":
            found["unfinished"].append(f"{table.room_id}: match {stored.status}")
        steps = authentic_views(stored, [None, *range(stored.players)])
        for player in table.players:
            found["versions back"] += player.versions_back
            found["gaps"] += player.gaps
            found["unexpected refusals"] += [
                f"{player.name}: {r}" for r in player.refusals if r["code"] not in expected
            ]
            found["leaks"] += received_faults(player.received, player.seat, steps)
            if player.token is not None:
                found["lost or doubled"] += log_faults(stored, player)
    return found
