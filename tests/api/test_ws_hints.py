"""Hints over the room WebSocket: the REST hint as one message, answered without holding up
the socket, with the same codes, and computed from the asking seat's own document only."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

import app.api.routes.hints as hint_route
import app.rooms.match as room_match
from app.api.routes.hints import HINT_SLOTS
from app.bots.hints import hint as real_hint
from app.rooms.tokens import hash_token
from examples.python_client import play
from tests.api.live import LiveServer, SeatClient, create_room, join, live_server
from tests.api.play import shared_clients, strings

STEPS = 14
# A Gin card or a Rummikub tile, as the wire writes them.
PIECE = re.compile(r"[HSDC]\d{1,2}|[RBKY]\d{1,2}[ab]|J[12]")


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with live_server() as live:
        yield live


async def started(
    server: LiveServer, game: str, *, watcher: bool = False, **body: Any
) -> list[SeatClient]:
    """Two people (and a spectator if asked) on sockets in a room whose match has begun."""
    room_id = create_room(server, game=game, players=2, **body)["room_id"]
    tokens: list[str | None] = [join(server, room_id, name) for name in ("ann", "bo")]
    url = server.ws_url(room_id)
    clients = shared_clients([(url, token) for token in [*tokens, *([None] if watcher else [])]])
    for client in clients:
        await client.connect()
    for client in clients[:2]:
        await client.send({"type": "ready"})
    await clients[0].wait_for(lambda: all(c.status == "playing" for c in clients))
    await clients[0].wait_for(lambda: any(c.legal for c in clients[:2]))
    return clients


def actor_and_other(clients: list[SeatClient]) -> tuple[SeatClient, SeatClient]:
    first, second = clients[:2]
    assert bool(first.legal) != bool(second.legal), (first.legal, second.legal)
    return (first, second) if first.legal else (second, first)


def first_reply(
    client: SeatClient, since: int, kinds: tuple[str, ...] = ("hint", "error")
) -> dict[str, Any] | None:
    """The first message of one of `kinds` the client received after its first `since`."""
    for _, text in client.received[since:]:
        reply: dict[str, Any] = json.loads(text)
        if reply["type"] in kinds:
            return reply
    return None


async def answer_to(client: SeatClient, message: dict[str, Any] | str) -> dict[str, Any]:
    """Sends `message`; the first hint or error the socket receives after it."""
    since = len(client.received)
    await client.send(message)
    await client.wait_for(lambda: first_reply(client, since) is not None)
    reply = first_reply(client, since)
    assert reply is not None
    return reply


async def still_answers(client: SeatClient) -> bool:
    count = len(client.loose)
    await client.send({"type": "ping"})
    await client.wait_for(lambda: len(client.loose) > count)
    return client.loose[-1] == {"type": "pong"}


def pieces(value: Any) -> set[str]:
    return {name for _, name in strings(value) if PIECE.fullmatch(name)}


def hidden_from(server: LiveServer, client: SeatClient) -> set[str]:
    """What the engine hides from the client's seat right now."""
    assert client.token is not None
    assert client.doc is not None
    room = server.directory.get(client.doc["room"]["room_id"])
    assert room.match is not None
    return room.match.engine.hidden_from(room.seat_for(hash_token(client.token)).index)


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
async def test_a_hint_for_the_seat_to_act_is_legal_names_only_its_own_view_and_is_accepted(
    server: LiveServer, game: str
) -> None:
    clients = await started(server, game)
    for step in range(STEPS):
        if clients[0].status != "playing":
            break
        actor, _ = actor_and_other(clients)
        assert actor.doc is not None
        hidden, own_view = hidden_from(server, actor), pieces(actor.doc)
        reply = await answer_to(actor, {"type": "hint", "seq": 100 + step})
        assert reply["type"] == "hint", reply
        assert set(reply) == {"type", "seq", "version", "action"}
        assert (reply["seq"], reply["version"]) == (100 + step, actor.version)
        action = reply["action"]
        assert pieces(action) <= own_view, pieces(action) - own_view
        assert pieces(action).isdisjoint(hidden)
        if game == "gin_rummy":
            assert action in actor.legal
        else:
            # Rummikub's legal list holds one template per kind of move: a play is built.
            assert action["type"] in {template["type"] for template in actor.legal}
        ack = await actor.act(action, reply["version"])
        assert ack["type"] == "ack", ack
        await actor.wait_for(
            lambda: clients[0].status != "playing" or any(c.legal for c in clients[:2])
        )


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
async def test_a_seat_whose_turn_it_is_not_gets_no_hint_and_keeps_its_socket(
    server: LiveServer, game: str
) -> None:
    clients = await started(server, game)
    _, waiting = actor_and_other(clients)
    reply = await answer_to(waiting, {"type": "hint", "seq": 7})
    assert (reply["type"], reply["code"], reply["seq"]) == ("error", "no_hint", 7)
    assert reply["message"]
    assert await still_answers(waiting)


async def test_a_hint_before_the_match_is_no_hint(server: LiveServer) -> None:
    room_id = create_room(server, game="gin_rummy")["room_id"]
    client = await SeatClient(server.ws_url(room_id), join(server, room_id, "ann")).connect()
    reply = await answer_to(client, {"type": "hint", "seq": 1})
    assert (reply["code"], reply["seq"]) == ("no_hint", 1)
    assert await still_answers(client)


async def test_a_room_without_hints_refuses_them_with_hints_disabled(server: LiveServer) -> None:
    clients = await started(server, "gin_rummy", hints=False)
    actor, _ = actor_and_other(clients)
    reply = await answer_to(actor, {"type": "hint", "seq": 3})
    assert (reply["type"], reply["code"], reply["seq"]) == ("error", "hints_disabled", 3)
    assert await still_answers(actor)


async def test_a_spectator_has_no_seat_to_hint_for(server: LiveServer) -> None:
    clients = await started(server, "rummikub", watcher=True)
    watcher = clients[2]
    reply = await answer_to(watcher, {"type": "hint", "seq": 5})
    assert (reply["type"], reply["code"], reply["seq"]) == ("error", "spectator", 5)
    assert await still_answers(watcher)


async def test_the_seq_is_echoed_and_null_without_one(server: LiveServer) -> None:
    clients = await started(server, "gin_rummy")
    actor, _ = actor_and_other(clients)
    with_seq = await answer_to(actor, {"type": "hint", "seq": -12})
    without = await answer_to(actor, {"type": "hint"})
    assert (with_seq["type"], with_seq["seq"]) == ("hint", -12)
    assert (without["type"], without["seq"]) == ("hint", None)
    assert without["action"] == with_seq["action"]


@pytest.mark.parametrize(
    ("raw", "seq"),
    [
        ({"type": "hint", "seq": "one"}, None),
        ({"type": "hint", "seq": True}, None),
        ({"type": "hint", "seq": 1.5}, None),
        ({"type": "hint", "seq": 4, "seat": 1}, 4),
    ],
)
async def test_a_malformed_hint_is_a_bad_message_like_any_other(
    server: LiveServer, raw: dict[str, Any], seq: int | None
) -> None:
    clients = await started(server, "gin_rummy")
    actor, other = actor_and_other(clients)
    version = other.version
    reply = await answer_to(actor, raw)
    assert (reply["type"], reply["code"], reply["seq"]) == ("error", "bad_message", seq)
    assert reply["message"].startswith("hint: ")
    assert await still_answers(actor)
    assert other.version == version


class Gate:
    """Holds every hint's thread until opened, counting how many think at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.open = threading.Event()
        self.lock = threading.Lock()
        self.entered = 0
        self.thinking = 0
        self.most = 0
        # The counts change in the server's worker threads; the test's loop hears of each.
        self.loop = loop
        self.changed = asyncio.Event()

    def hint(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        with self.lock:
            self.entered += 1
            self.thinking += 1
            self.most = max(self.most, self.thinking)
        self.loop.call_soon_threadsafe(self.changed.set)
        try:
            assert self.open.wait(30)
            return real_hint(*args, **kwargs)
        finally:
            with self.lock:
                self.thinking -= 1

    async def wait_for(self, done: Callable[[], bool], seconds: float = 10) -> None:
        async with asyncio.timeout(seconds):
            while not done():
                self.changed.clear()
                await self.changed.wait()


@pytest.fixture
async def gate(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Gate]:
    """Every hint of the test server waits in its thread for `gate.open`."""
    gate = Gate(asyncio.get_running_loop())
    monkeypatch.setattr(hint_route, "hint", gate.hint)
    yield gate
    gate.open.set()


async def test_the_socket_keeps_playing_while_its_hint_is_worked_out(
    server: LiveServer, gate: Gate
) -> None:
    clients = await started(server, "gin_rummy")
    actor, _ = actor_and_other(clients)
    since, version = len(actor.received), actor.version
    await actor.send({"type": "hint", "seq": 101})
    await gate.wait_for(lambda: gate.entered == 1)
    assert await still_answers(actor)
    second = await answer_to(actor, {"type": "hint", "seq": 102})
    assert (second["code"], second["seq"]) == ("hint_pending", 102)
    ack = await actor.act(actor.legal[0], version)
    assert ack["type"] == "ack", ack
    assert first_reply(actor, since, ("hint",)) is None

    gate.open.set()
    await actor.wait_for(lambda: first_reply(actor, since, ("hint",)) is not None)
    hint = first_reply(actor, since, ("hint",))
    assert hint is not None
    assert (hint["seq"], hint["version"]) == (101, version)
    # Worked out before the move, it is refused as stale rather than played.
    answer = await actor.act(hint["action"], hint["version"])
    assert (answer["type"], answer["code"]) == ("error", "stale_version")


async def test_a_socket_closed_mid_hint_is_let_go_but_its_thread_keeps_its_slot(
    server: LiveServer, gate: Gate
) -> None:
    clients = await started(server, "rummikub")
    actor, _ = actor_and_other(clients)
    assert actor.doc is not None
    url, token = server.ws_url(actor.doc["room"]["room_id"]), actor.token
    # Tabs of the same seat, each asking once: enough to take every slot, and one that waits.
    tabs = [await SeatClient(url, token).connect() for _ in range(HINT_SLOTS + 1)]
    for tab in tabs:
        await tab.send({"type": "hint", "seq": 1})
    await gate.wait_for(lambda: gate.entered == HINT_SLOTS)
    for tab in tabs:
        await tab.close()

    # The closed sockets' threads still think: the next hint waits for one of them to end.
    since = len(actor.received)
    await actor.send({"type": "hint", "seq": 2})
    await asyncio.sleep(0.5)
    assert gate.entered == HINT_SLOTS
    assert first_reply(actor, since) is None
    gate.open.set()
    await actor.wait_for(lambda: first_reply(actor, since) is not None)
    reply = first_reply(actor, since)
    assert reply is not None
    assert (reply["type"], reply["seq"]) == ("hint", 2)
    # The tab that was still waiting for a slot when it closed never thought at all.
    assert (gate.entered, gate.most) == (HINT_SLOTS + 1, HINT_SLOTS)
    assert await still_answers(actor)


async def test_a_hint_counts_against_the_socket_rate_limit() -> None:
    # A burst of two: the ready message and one hint; the next hint is over the limit.
    with live_server(ws_messages_per_second=0.01, ws_burst=2) as server:
        clients = await started(server, "gin_rummy")
        actor, _ = actor_and_other(clients)
        first = await answer_to(actor, {"type": "hint", "seq": 1})
        second = await answer_to(actor, {"type": "hint", "seq": 2})
        assert (first["type"], first["seq"]) == ("hint", 1)
        assert (second["type"], second["code"]) == ("error", "rate_limited")


MATCH_SEED = 7


@pytest.mark.parametrize(("game", "options"), [("gin_rummy", {"target": 30}), ("rummikub", {})])
async def test_the_example_client_plays_a_match_to_the_end_on_hints(
    server: LiveServer, game: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[str] = []

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        action = real_hint(*args, **kwargs)
        given.append(action["type"])
        return action

    monkeypatch.setattr(hint_route, "hint", counted)
    # One deal for every run: with a random one, the bot now and then knocks on its first turn
    # for enough points to end the match before this seat's first discard.
    monkeypatch.setattr(room_match, "new_seed", lambda: MATCH_SEED)
    room = create_room(server, game=game, options=options, bots=[{"seat": 1}])
    token = join(server, room["room_id"], "py")
    final = await play(server.http, room["room_id"], token, hints=True)
    assert final["room"]["status"] == "finished"
    assert final["game"]["result"] is not None
    assert ("discard" if game == "gin_rummy" else "play") in given
