"""Any node serves any room: seats on different nodes play whole matches as on one server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.bots.registry import make_bot
from tests.api.play import play_until, shared_clients
from tests.cluster.cluster import Cluster, base
from tests.cluster.conftest import running_cluster
from tests.cluster.spy import bearer, match_faults


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster for the whole module: these tests stop no node and share no room."""
    with running_cluster(tmp_path_factory.mktemp("cluster")) as shared:
        yield shared


async def play_across_nodes(
    cluster: Cluster,
    game: str,
    players: int,
    seed: int,
    names: str = "p",
    *,
    public: bool = False,
    keys: list[str] | None = None,
) -> str:
    """A match whose seats join (with a player key each, if `keys`) and play through
    different nodes; the match's id."""
    owner_node, *others = cluster.nodes
    async with base(owner_node) as http:
        created = await http.post(
            "/api/rooms",
            json={"game": game, "players": players, "public": public, "options": {"target": 60}}
            if game == "gin_rummy"
            else {"game": game, "players": players, "public": public},
        )
        assert created.status_code == 201, created.text
    room_id = created.json()["room_id"]
    assert cluster.owner(room_id) == "n0"
    # Seat i joins through node i % 3, and its socket is there too; the spectator is on n2.
    seat_nodes = [cluster.nodes[seat % len(cluster.nodes)] for seat in range(players)]
    tokens = []
    for seat, node in enumerate(seat_nodes):
        async with base(node) as http:
            joined = await http.post(
                f"/api/rooms/{room_id}/join",
                json={"name": f"{names}{seat}"},
                headers={"Authorization": f"Player {keys[seat]}"} if keys else {},
            )
            assert joined.status_code == 201, joined.text
            assert joined.json()["seat"] == seat
            tokens.append(joined.json()["token"])
    clients = shared_clients(
        [
            (cluster.ws_url(node, room_id), token)
            for node, token in zip(seat_nodes, tokens, strict=True)
        ]
        + [(cluster.ws_url(others[-1], room_id), None)]
    )
    for client in clients:
        await client.connect()
    for client in clients[:players]:
        await client.send({"type": "ready"})
    bots = {seat: make_bot(game, "normal", seed + seat) for seat in range(players)}
    await play_until(clients, bots)

    # Every patch stream ends on the document the room gives that viewer, through any node.
    for index, client in enumerate(clients):
        async with base(cluster.nodes[(index + 1) % 3]) as http:
            state = await http.get(f"/api/rooms/{room_id}/state", headers=bearer(client.token))
        assert state.status_code == 200, state.text
        assert (client.version, client.doc) == (state.json()["version"], state.json()["state"])
    # Nothing hidden from a viewer reached it, on any node.
    assert await match_faults(cluster.database_url, clients, players) == []
    for client in clients:
        await client.close()
    match_id: str = clients[0].doc["room"]["match_id"]  # type: ignore[index]
    return match_id


@pytest.mark.parametrize(
    ("game", "players", "seed"), [("gin_rummy", 2, 1), ("rummikub", 3, 2), ("rummikub", 2, 3)]
)
async def test_seats_on_different_nodes_play_a_whole_match(
    cluster: Cluster, game: str, players: int, seed: int
) -> None:
    await play_across_nodes(cluster, game, players, seed)


async def test_a_room_is_created_joined_and_listed_from_any_node(cluster: Cluster) -> None:
    n0, n1, n2 = cluster.nodes
    async with base(n1) as http:
        created = await http.post("/api/rooms", json={"game": "gin_rummy", "public": True})
        room_id = created.json()["room_id"]
        private = await http.post("/api/rooms", json={"game": "gin_rummy"})
    assert cluster.owner(room_id) == "n1"
    for node in (n0, n2, n1):
        async with base(node) as http:
            lobby = (await http.get("/api/rooms")).json()["rooms"]
            assert room_id in [room["room_id"] for room in lobby]
            assert private.json()["room_id"] not in [room["room_id"] for room in lobby]
            info = await http.get(f"/api/rooms/{room_id}")
            assert info.status_code == 200
            assert info.json()["status"] == "waiting"
    async with base(n2) as http:
        await http.post(f"/api/rooms/{room_id}/join", json={"name": "ann"})
        await http.post(f"/api/rooms/{room_id}/join", json={"name": "bob"})
        full = await http.get(f"/api/rooms/{room_id}")
        assert [seat["name"] for seat in full.json()["seats"]] == ["ann", "bob"]
        missing = await http.get("/api/rooms/NoSuchRoom123")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "room_not_found"


async def test_refusals_from_the_owner_reach_a_client_on_another_node(cluster: Cluster) -> None:
    n0, n1, _ = cluster.nodes
    async with base(n0) as http:
        room_id = (await http.post("/api/rooms", json={"game": "gin_rummy"})).json()["room_id"]
    async with base(n1) as http:
        token = (await http.post(f"/api/rooms/{room_id}/join", json={"name": "ann"})).json()[
            "token"
        ]
        early = await http.post(
            f"/api/rooms/{room_id}/actions",
            json={"action": {"type": "pass"}},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert early.status_code == 409
        assert early.json()["error"]["code"] == "not_started"
        wrong = await http.get(
            f"/api/rooms/{room_id}/state", headers={"Authorization": "Bearer nope"}
        )
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "bad_token"


async def test_the_history_of_a_match_reads_alike_on_every_node(cluster: Cluster) -> None:
    await play_across_nodes(cluster, "gin_rummy", 2, 7, names="historian", public=True)
    answers = []
    for node in cluster.nodes:
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            listed = (await http.get("/api/matches", params={"player": "historian0"})).json()
            answers.append(listed)
    assert answers[0]["total"] == 1
    assert answers[0] == answers[1] == answers[2]
    match_id = answers[0]["items"][0]["match_id"]
    replays, stats = [], []
    for node in cluster.nodes:
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            replays.append((await http.get(f"/api/matches/{match_id}/replay")).json())
            stats.append((await http.get("/api/players/historian0/stats")).json())
    assert replays[0]["steps"]
    assert replays[0] == replays[1] == replays[2]
    assert stats[0]["matches_played"] == 1
    assert stats[0] == stats[1] == stats[2]


async def test_hints_come_from_any_node_over_rest_and_the_socket(cluster: Cluster) -> None:
    n0, n1, n2 = cluster.nodes
    async with base(n0) as http:
        room_id = (
            await http.post(
                "/api/rooms", json={"game": "gin_rummy", "bots": [{"seat": 1, "level": "easy"}]}
            )
        ).json()["room_id"]
    async with base(n1) as http:
        token = (await http.post(f"/api/rooms/{room_id}/join", json={"name": "ann"})).json()[
            "token"
        ]
    (client,) = shared_clients([(cluster.ws_url(n1, room_id), token)])
    await client.connect()
    await client.send({"type": "ready"})
    await client.wait_for(lambda: client.doc is not None and bool(client.legal), 30)
    async with base(n2) as http:
        hint = await http.get(
            f"/api/rooms/{room_id}/hint", headers={"Authorization": f"Bearer {token}"}
        )
    assert hint.status_code == 200, hint.text
    assert hint.json()["action"] in client.legal
    await client.send({"type": "hint", "seq": 7})
    await client.wait_for(lambda: any(m.get("type") == "hint" for m in hints(client)), 30)
    (answer,) = [m for m in hints(client) if m["type"] == "hint"]
    assert answer["seq"] == 7
    assert answer["action"] in client.legal
    await client.close()


def hints(client: Any) -> list[dict[str, Any]]:
    return [json.loads(text) for _, text in client.received if '"hint"' in text]


async def test_players_joined_through_different_nodes_are_rated_and_private_alike(
    cluster: Cluster,
) -> None:
    made = []
    for index, node in enumerate(cluster.nodes[:2]):
        async with base(node) as http:
            answer = await http.post("/api/players", json={"name": f"Rated {index}"})
            assert answer.status_code == 201, answer.text
            made.append(answer.json())
    keys = [player["key"] for player in made]
    match_id = await play_across_nodes(cluster, "rummikub", 2, 5, keys=keys)
    details, profiles = [], []
    for node in cluster.nodes:
        async with httpx.AsyncClient(base_url=node.url, timeout=30) as http:
            # The room was private: a stranger finds nothing, a player of it everything.
            stranger = await http.get(f"/api/matches/{match_id}")
            assert stranger.status_code == 404
            mine = await http.get(
                f"/api/matches/{match_id}", headers={"Authorization": f"Player {keys[0]}"}
            )
            assert mine.status_code == 200, mine.text
            details.append(mine.json())
            profiles.append((await http.get(f"/api/players/{made[1]['id']}")).json())
    assert details[0] == details[1] == details[2]
    changes = {change["player_id"]: change for change in details[0]["rating_changes"]}
    assert set(changes) == {made[0]["id"], made[1]["id"]}
    assert all(change["before"] == 1500 for change in changes.values())
    assert [seat["player_id"] for seat in details[0]["seats"]] == [made[0]["id"], made[1]["id"]]
    assert profiles[0] == profiles[1] == profiles[2]
    (rating,) = profiles[0]["ratings"]
    assert (rating["mode"], rating["matches"]) == ("rummikub:2", 1)
    # Another player's private match is not in the profile a stranger reads.
    assert profiles[0]["recent_matches"] == []
