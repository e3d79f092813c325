"""Bad input gets its stable code, changes nothing, and only abuse closes the connection."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from tests.api.live import SeatClient, call, create_room, join, live_server


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server(ws_max_message_bytes=2048, ws_hello_timeout_s=0.5) as live:
        yield live


async def seated_pair(server) -> tuple[SeatClient, SeatClient, list[str]]:  # type: ignore[no-untyped-def]
    """Two people in a started Gin Rummy match, both connected."""
    room = create_room(server, game="gin_rummy", players=2)
    room_id = room["room_id"]
    tokens = [join(server, room_id, "ann"), join(server, room_id, "bob")]
    url = server.ws_url(room_id)
    event = asyncio.Event()
    ann = await SeatClient(url, tokens[0], changed=event).connect()
    bob = await SeatClient(url, tokens[1], changed=event).connect()
    await ann.send({"type": "ready"})
    await bob.send({"type": "ready"})
    await ann.wait_for(lambda: ann.status == "playing" and bob.status == "playing")
    return (ann, bob, tokens) if ann.legal else (bob, ann, tokens[::-1])


async def reply_to(client: SeatClient, raw: str | dict) -> dict:  # type: ignore[type-arg]
    count = len(client.loose)
    await client.send(raw)
    await client.wait_for(lambda: len(client.loose) > count)
    return client.loose[-1]


async def still_answers(client: SeatClient) -> bool:
    reply = await reply_to(client, {"type": "ping"})
    return reply == {"type": "pong"}


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_message"),
        ({"type": "shout", "seq": 3}, "unknown_type"),
        ({"seq": 3}, "unknown_type"),
        ({"type": "action", "action": {"type": "draw_stock"}}, "bad_message"),
        ({"type": "action", "seq": "one", "action": {"type": "pass"}}, "bad_message"),
        ({"type": "action", "seq": 1, "action": {"type": "pass"}, "seat": 1}, "bad_message"),
        ({"type": "action", "seq": 1, "action": "pass"}, "bad_message"),
        ({"type": "action", "seq": True, "action": {"type": "pass"}}, "bad_message"),
        ({"type": "action", "seq": 1, "action": {"type": "pass"}, "version": "3"}, "bad_message"),
        ({"type": "ping", "extra": True}, "bad_message"),
        ({"type": "hello", "token": None}, "unexpected_hello"),
        ({"type": "action", "seq": 1, "action": {"type": "fly"}}, None),
        ("x" * 3000, "message_too_large"),
    ],
)
async def test_bad_messages_get_their_code_change_nothing_and_keep_the_socket(
    server,
    raw: str | dict,
    code: str | None,  # type: ignore[type-arg]
) -> None:
    mover, other, _ = await seated_pair(server)
    before, version = json.dumps(other.doc), other.version
    reply = await reply_to(mover, raw)
    assert reply["type"] == "error"
    if code is not None:
        assert reply["code"] == code, reply
    assert reply["message"]
    assert await still_answers(mover)
    assert (other.version, json.dumps(other.doc)) == (version, before)


async def test_acting_out_of_turn_is_refused_by_the_rules(server) -> None:
    mover, waiting, _ = await seated_pair(server)
    version = mover.version
    reply = await waiting.act(mover.legal[0], waiting.version)
    assert (reply["type"], reply["code"]) == ("error", "not_your_turn")
    assert reply["seq"] == waiting.seq
    assert mover.version == version


async def test_an_action_chosen_at_an_old_version_is_refused_as_stale(server) -> None:
    mover, other, _ = await seated_pair(server)
    old_version = mover.version
    ack = await mover.act(mover.legal[0], mover.version)
    assert ack["type"] == "ack"
    await other.wait_for(lambda: other.version == ack["version"])
    next_mover = mover if mover.legal else other
    reply = await next_mover.act(next_mover.legal[0], old_version)
    assert (reply["type"], reply["code"]) == ("error", "stale_version")
    assert other.version == ack["version"]


async def test_a_spectator_cannot_act_or_be_ready(server) -> None:
    mover, _, _ = await seated_pair(server)
    watcher = await SeatClient(mover.url, None).connect()
    reply = await watcher.act(mover.legal[0])
    assert reply["code"] == "spectator"
    assert (await reply_to(watcher, {"type": "ready"}))["code"] == "spectator"


async def test_a_wrong_token_or_another_rooms_token_closes_with_4401(server) -> None:
    mover, _, _ = await seated_pair(server)
    elsewhere = create_room(server, game="rummikub", players=2)
    other_room_token = join(server, elsewhere["room_id"], "eve")
    for token in ("not-a-token", other_room_token):
        client = await SeatClient(mover.url, token).connect()
        await client.wait_for(client.closed.is_set)
        assert client.close_code == 4401
        assert client.doc is None


async def test_another_seats_token_acts_only_as_that_seat(server) -> None:
    mover, _waiting, tokens = await seated_pair(server)
    answer = await call(
        server,
        "POST",
        f"/api/rooms/{mover.doc['room']['room_id']}/actions",
        tokens[1],
        json={"action": mover.legal[0]},
    )
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "not_your_turn"


async def test_a_flood_is_refused_then_closed_with_4429() -> None:
    with live_server(ws_messages_per_second=5, ws_burst=5) as server:
        room = create_room(server, game="rummikub", players=2, bots=[{"seat": 1}])
        token = join(server, room["room_id"], "ann")
        client = await SeatClient(server.ws_url(room["room_id"]), token).connect()
        for _ in range(40):
            if client.closed.is_set():
                break
            await client.send({"type": "ping"})
        await client.wait_for(client.closed.is_set)
        assert client.close_code == 4429
        assert any(m.get("code") == "rate_limited" for m in client.loose)


async def test_a_frame_far_past_the_cap_is_refused_by_the_server_with_1009(server) -> None:
    mover, _, _ = await seated_pair(server)
    await mover.send("x" * 2048 * 5)
    await mover.wait_for(mover.closed.is_set)
    assert mover.close_code == 1009


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ("hello", 4400),
        (json.dumps({"type": "ping"}), 4400),
        (json.dumps({"type": "hello", "token": 5}), 4400),
        (None, 4408),
    ],
)
async def test_a_bad_or_missing_hello_closes_the_socket(
    server, first: str | None, code: int
) -> None:
    room = create_room(server, game="gin_rummy", players=2)
    async with websockets.connect(server.ws_url(room["room_id"])) as socket:
        if first is not None:
            await socket.send(first)
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == code


async def test_an_unknown_room_closes_with_4404(server) -> None:
    async with websockets.connect(server.ws_url("no-such-room")) as socket:
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket.recv(), 5)
        assert socket.close_code == 4404


async def test_a_room_without_spectators_refuses_one_with_4403(server) -> None:
    room = create_room(server, game="gin_rummy", players=2, spectators=False)
    client = await SeatClient(server.ws_url(room["room_id"]), None).connect()
    await client.wait_for(client.closed.is_set)
    assert client.close_code == 4403


async def test_a_foreign_origin_is_refused_and_the_servers_own_is_accepted(server) -> None:
    room = create_room(server, game="gin_rummy", players=2)
    url = server.ws_url(room["room_id"])
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(url, origin="https://evil.example")
    assert refused.value.response.status_code == 403
    own = await SeatClient(url, None).connect(origin=f"http://127.0.0.1:{server.port}")
    assert own.doc is not None


async def test_a_socket_that_stops_answering_pings_is_dropped() -> None:
    with live_server(ws_ping_interval_s=0.2) as server:
        room = create_room(server, game="gin_rummy", players=2)
        tokens = [join(server, room["room_id"], name) for name in ("ann", "bob")]
        url = server.ws_url(room["room_id"])
        ann = await SeatClient(url, tokens[0]).connect()
        bob = await SeatClient(url, tokens[1]).connect()
        await ann.wait_for(lambda: ann.doc["room"]["seats"][1]["connected"])
        bob.socket.transport.pause_reading()
        await ann.wait_for(lambda: not ann.doc["room"]["seats"][1]["connected"], seconds=5)
