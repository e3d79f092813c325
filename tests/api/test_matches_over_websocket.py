"""Whole matches over real sockets: people, bots, a spectator, rematch, reconnecting."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.api.live import SeatClient, call, create_room, join, live_server
from tests.api.play import play_until, seat_bots, shared_clients

SHORT_GIN = {"target": 30}


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server() as live:
        yield live


async def test_two_people_and_a_spectator_play_gin_rummy_to_the_end_and_rematch(server) -> None:
    room = create_room(server, game="gin_rummy", players=2, options=SHORT_GIN)
    room_id = room["room_id"]
    tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
    url = server.ws_url(room_id)
    ann, bob, watcher = shared_clients([(url, tokens[0]), (url, tokens[1]), (url, None)])
    for client in (ann, bob, watcher):
        await client.connect()
    await ann.send({"type": "ready"})
    await bob.send({"type": "ready"})
    await ann.wait_for(lambda: ann.status == "playing")

    await play_until([ann, bob, watcher], seat_bots("gin_rummy", [0, 1]))
    assert watcher.doc["game"]["result"] is not None
    assert watcher.doc == {**watcher.doc, "you": {"seat": None, "legal": []}}
    first_match = watcher.doc["room"]["match_id"]

    answer = await call(server, "POST", f"/api/rooms/{room_id}/rematch", tokens[1])
    assert answer.status_code == 200, answer.text
    await watcher.wait_for(lambda: watcher.status == "playing")
    assert watcher.doc["room"]["match_id"] != first_match
    assert [seat["name"] for seat in watcher.doc["room"]["seats"]] == ["ann", "bob"]
    await play_until([ann, bob, watcher], seat_bots("gin_rummy", [0, 1], seed=7))


async def test_three_people_and_a_spectator_play_rummikub_to_the_end_and_rematch(server) -> None:
    room = create_room(server, game="rummikub", players=3)
    room_id = room["room_id"]
    tokens = [join(server, room_id, name) for name in ("ann", "bob", "cy")]
    url = server.ws_url(room_id)
    clients = shared_clients([(url, token) for token in tokens] + [(url, None)])
    for client in clients:
        await client.connect()
    for client in clients[:3]:
        await client.send({"type": "ready"})
    await clients[0].wait_for(lambda: clients[0].status == "playing")

    await play_until(clients, seat_bots("rummikub", [0, 1, 2]))
    watcher = clients[3]
    assert watcher.doc["game"]["result"] is not None

    await clients[2].send({"type": "action", "seq": 99, "action": {"type": "draw"}})
    await clients[2].wait_for(lambda: clients[2].loose)
    assert clients[2].loose[-1]["code"] == "match_over"

    answer = await call(server, "POST", f"/api/rooms/{room_id}/rematch", tokens[0])
    assert answer.status_code == 200, answer.text
    await play_until(clients, seat_bots("rummikub", [0, 1, 2], seed=5))


@pytest.mark.parametrize(("game", "players"), [("gin_rummy", 2), ("gin_rummy", 3), ("rummikub", 4)])
async def test_bots_fill_every_seat_and_a_spectator_sees_the_match_end(
    server, game: str, players: int
) -> None:
    bots = [{"seat": seat, "level": "normal"} for seat in range(players)]
    options = SHORT_GIN if game == "gin_rummy" else {}
    room = create_room(server, game=game, players=players, bots=bots, options=options)
    watcher = await SeatClient(server.ws_url(room["room_id"]), None).connect()
    await watcher.wait_for(lambda: watcher.status == "finished", seconds=30)
    assert watcher.doc["game"]["result"] is not None
    await watcher.close()


async def test_a_bot_takes_the_other_seat_and_the_person_plays_against_it(server) -> None:
    room = create_room(server, game="gin_rummy", players=2, bots=[{"seat": 1}], options=SHORT_GIN)
    token = join(server, room["room_id"], "ann")
    ann = await SeatClient(server.ws_url(room["room_id"]), token).connect()
    await ann.send({"type": "ready"})
    await play_until([ann], seat_bots("gin_rummy", [0]))
    assert ann.doc["room"]["seats"][1]["kind"] == "bot"


async def test_reconnecting_with_the_token_resumes_the_seat_with_a_fresh_snapshot(server) -> None:
    room = create_room(server, game="rummikub", players=2)
    room_id = room["room_id"]
    tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
    url = server.ws_url(room_id)
    ann, bob = shared_clients([(url, tokens[0]), (url, tokens[1])])
    await ann.connect()
    await bob.connect()
    for client in (ann, bob):
        await client.send({"type": "ready"})
    for client in (ann, bob):
        await client.wait_for(lambda c=client: c.status == "playing" and c.doc["game"] is not None)
    mover = ann if ann.legal else bob
    rack_before = mover.doc["game"]["rack"]
    await mover.close()
    other = bob if mover is ann else ann
    await other.wait_for(lambda: not other.doc["room"]["seats"][mover_seat(mover)]["connected"])
    # What a client needs for "offline, N s left": since when, and the room's grace.
    away_since = other.doc["room"]["seats"][mover_seat(mover)]["away_since"]
    assert abs(away_since - time.time() * 1000) < 60_000
    assert other.doc["room"]["reconnect_grace_s"] == server.settings.reconnect_grace_s

    again = await SeatClient(url, mover.token).connect()
    assert again.doc["you"]["seat"] == mover_seat(mover)
    assert again.doc["game"]["rack"] == rack_before
    assert again.legal, "the seat to act can act again after reconnecting"
    reply = await again.act({"type": "draw"}, again.version)
    assert reply["type"] == "ack"
    await other.wait_for(lambda: other.doc["room"]["seats"][mover_seat(mover)]["connected"])
    assert other.doc["room"]["seats"][mover_seat(mover)]["away_since"] is None


def mover_seat(client: SeatClient) -> int:
    assert client.doc is not None
    seat: int = client.doc["you"]["seat"]
    return seat


async def test_two_tabs_of_one_seat_both_follow_the_game(server) -> None:
    room = create_room(server, game="gin_rummy", players=2, bots=[{"seat": 1}])
    token = join(server, room["room_id"], "ann")
    url = server.ws_url(room["room_id"])
    tab1, tab2 = shared_clients([(url, token), (url, token)])
    await tab1.connect()
    await tab2.connect()
    await tab1.send({"type": "ready"})
    await tab1.wait_for(lambda: bool(tab1.legal))
    reply = await tab1.act(tab1.legal[0], tab1.version)
    assert reply["type"] == "ack"
    await tab2.wait_for(lambda: tab2.version >= reply["version"])
    assert tab2.doc == tab1.doc if tab2.version == tab1.version else True
    await asyncio.gather(tab1.close(), tab2.close())


async def test_the_next_hand_waits_until_every_person_is_ready() -> None:
    with live_server(between_hands_s=3600) as server:
        room = create_room(server, game="gin_rummy", players=2, options={"target": 10_000})
        room_id = room["room_id"]
        tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
        url = server.ws_url(room_id)
        ann, bob = shared_clients([(url, tokens[0]), (url, tokens[1])])
        await ann.connect()
        await bob.connect()
        await ann.send({"type": "ready"})
        await bob.send({"type": "ready"})
        await ann.wait_for(lambda: ann.status == "playing")
        await play_until([ann, bob], seat_bots("gin_rummy", [0, 1]), status="between_hands")
        first_hand = ann.doc["game"]["hand_number"]
        # The countdown a client shows: the pause's end, an hour from now.
        next_hand_at = ann.doc["room"]["next_hand_at"]
        assert next_hand_at - time.time() * 1000 > 3_000_000
        await ann.send({"type": "ready"})
        await ann.wait_for(lambda: ann.doc["room"]["seats"][0]["ready"])
        assert ann.status == "between_hands"
        await bob.send({"type": "ready"})
        await ann.wait_for(lambda: ann.status == "playing")
        assert ann.doc["game"]["hand_number"] == first_hand + 1
        assert ann.doc["room"]["next_hand_at"] is None


async def test_leaving_closes_the_seats_sockets_and_frees_the_seat(server) -> None:
    room = create_room(server, game="gin_rummy", players=2)
    room_id = room["room_id"]
    token = join(server, room_id, "ann")
    url = server.ws_url(room_id)
    ann, watcher = shared_clients([(url, token), (url, None)])
    await ann.connect()
    await watcher.connect()
    await watcher.wait_for(lambda: watcher.doc["room"]["seats"][0]["connected"])
    answer = await call(server, "POST", f"/api/rooms/{room_id}/leave", token)
    assert answer.status_code == 200
    await ann.wait_for(ann.closed.is_set)
    assert ann.close_code == 4401
    await watcher.wait_for(lambda: watcher.doc["room"]["seats"][0]["kind"] == "empty")
    join(server, room_id, "bob", seat=0)
    await watcher.wait_for(lambda: watcher.doc["room"]["seats"][0]["name"] == "bob")
    assert not watcher.doc["room"]["seats"][0]["connected"]


async def test_an_accepted_action_is_answered_by_one_ack_carrying_the_actors_patch(server) -> None:
    room = create_room(server, game="gin_rummy", players=2)
    tokens = [join(server, room["room_id"], name) for name in ("ann", "bob")]
    url = server.ws_url(room["room_id"])
    ann, bob = shared_clients([(url, tokens[0]), (url, tokens[1])])
    for client in (ann, bob):
        await client.connect()
        await client.send({"type": "ready"})
    await ann.wait_for(lambda: ann.status == "playing" and bob.status == "playing")
    mover, other = (ann, bob) if ann.legal else (bob, ann)
    before, legal_before = mover.version, mover.legal
    reply = await mover.act(mover.legal[0], mover.version)
    await other.wait_for(lambda: other.version == reply["version"])

    assert (reply["type"], reply["seq"], reply["from"]) == ("ack", mover.seq, before)
    assert reply["patch"], "the move changed the mover's document"
    assert mover.version == reply["version"]
    assert mover.legal != legal_before, "the patch in the ack moved the mover on (draw, discard)"
    assert [json.loads(text)["type"] for version, text in mover.received if version > before] == [
        "ack"
    ]
    assert [json.loads(text)["type"] for version, text in other.received if version > before] == [
        "patch"
    ]
    public = [{**table, "players": None} for table in mover.doc["game"]["tables"]]
    assert [{**table, "players": None} for table in other.doc["game"]["tables"]] == public
    await asyncio.gather(ann.close(), bob.close())
