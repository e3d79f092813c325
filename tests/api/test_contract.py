"""Whole matches of both games, over real sockets, checked against the published schemas: a
field, an action or a message the schemas do not describe fails the test."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from app.api.error_codes import ERROR_CODES
from tests.api.contract import Contract, openapi
from tests.api.live import LiveServer, SeatClient, call, create_room, live_server
from tests.api.play import play_until, seat_bots

SHORT_GIN = {"target": 30}


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server() as live:
        yield live


@pytest.fixture(scope="module")
def contract(server: LiveServer) -> Contract:
    return Contract(openapi(server.http))


class RecordingClient(SeatClient):
    """A seat client that also keeps every message it sent and every document it held."""

    sent: list[dict[str, Any]]
    documents: list[dict[str, Any]]

    async def send(self, message: dict[str, Any] | str) -> None:
        self.sent.append(json.loads(message) if isinstance(message, str) else message)
        await super().send(message)

    def _handle(self, text: str) -> None:
        super()._handle(text)
        if json.loads(text)["type"] in ("snapshot", "patch", "ack"):
            assert self.doc is not None
            self.documents.append(json.loads(json.dumps(self.doc)))


def recording(url: str, token: str | None, event: asyncio.Event) -> RecordingClient:
    client = RecordingClient(url, token, changed=event)
    client.sent, client.documents = [], []
    return client


def refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return found + [ref for item in value.values() for ref in refs(item)]
    if isinstance(value, list):
        return [ref for item in value for ref in refs(item)]
    return []


def test_every_reference_in_the_document_resolves(contract: Contract) -> None:
    schemas = contract.document["components"]["schemas"]
    missing = {ref for ref in refs(contract.document) if ref.split("/")[-1] not in schemas}
    assert missing == set()
    for name in ("Action", "StateDocument", "GameView", "ServerMessage", "ClientMessage"):
        assert name in schemas


def test_every_published_object_is_closed_to_undocumented_fields(contract: Contract) -> None:
    open_objects = [
        name
        for name, schema in contract.document["components"]["schemas"].items()
        if "properties" in schema and schema.get("additionalProperties") is not False
    ]
    assert open_objects == []


def test_every_error_code_is_in_the_published_enumeration(contract: Contract) -> None:
    schemas = contract.document["components"]["schemas"]
    assert schemas["ErrorDetail"]["properties"]["code"]["enum"] == sorted(ERROR_CODES)
    assert schemas["Error"]["properties"]["code"]["enum"] == sorted(ERROR_CODES)


def test_the_action_example_is_a_real_action(contract: Contract) -> None:
    field = contract.document["components"]["schemas"]["ActionRequest"]["properties"]["action"]
    for example in field["examples"]:
        contract.check("GinRummyAction", example)
    contract.check("Action", {"type": "draw", "source": "stock"})
    assert contract.problems("Action", {"type": "draw_stock"})
    assert contract.problems("Action", {"type": "pass", "extra": 1})


def test_the_spectators_state_read_needs_no_token(server: LiveServer, contract: Contract) -> None:
    operation = contract.document["paths"]["/api/rooms/{room_id}/state"]["get"]
    assert {} in operation["security"]
    room = create_room(server, game="gin_rummy")
    answer = httpx.get(f"{server.http}/api/rooms/{room['room_id']}/state")
    assert answer.status_code == 200
    contract.check("StateAnswer", answer.json())


def test_history_documents_its_errors(server: LiveServer, contract: Contract) -> None:
    paths = contract.document["paths"]
    assert "400" in paths["/api/matches"]["get"]["responses"]
    assert "404" in paths["/api/matches/{match_id}"]["get"]["responses"]
    unknown = httpx.get(f"{server.http}/api/matches", params={"game": "chess"})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "unknown_game")
    contract.check("ErrorBody", unknown.json())
    missing = httpx.get(f"{server.http}/api/matches/nope")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "match_not_found")
    contract.check("ErrorBody", missing.json())


async def step_through_a_rummikub_turn(client: RecordingClient) -> None:
    """Every step of a turn in progress, accepted one by one, then a draw."""
    assert client.doc is not None
    rack = client.doc["game"]["rack"]
    version = client.version

    async def step(action: dict[str, Any]) -> None:
        reply = await client.act(action, client.version)
        assert reply["type"] == "ack", reply

    await step({"type": "move", "tile": rack[0], "to": "new"})
    tentative = client.doc["game"]["tentative"]
    assert tentative is not None
    assert tentative["laid"] == [rack[0]]
    new = len(tentative["table"]) - 1
    await step({"type": "move", "tile": rack[1], "to": new, "pos": 1})
    await step({"type": "split", "meld": new, "at": 1})
    await step({"type": "merge", "meld": new + 1, "into": new})
    await step({"type": "return", "tile": rack[1]})
    await step({"type": "reset"})
    stale = await client.act({"type": "draw"}, version)
    assert (stale["type"], stale["code"]) == ("error", "stale_version")
    await step({"type": "draw"})


def sides_of(game: str, players: int) -> tuple[list[int], list[int]]:
    """(people, bots): people in every seat but the last, which a bot takes."""
    return list(range(players - 1)), [players - 1]


@pytest.mark.parametrize(
    ("game", "players"),
    [
        ("gin_rummy", 2),
        ("gin_rummy", 3),
        ("gin_rummy", 4),
        ("rummikub", 2),
        ("rummikub", 3),
        ("rummikub", 4),
    ],
)
async def test_a_whole_match_sends_and_accepts_only_what_the_schemas_describe(
    server: LiveServer, contract: Contract, game: str, players: int
) -> None:
    people, bots = sides_of(game, players)
    options = SHORT_GIN if game == "gin_rummy" else {}
    room = create_room(
        server,
        game=game,
        players=players,
        options=options,
        bots=[{"seat": seat, "level": "normal"} for seat in bots],
    )
    contract.check("RoomInfo", room)
    room_id = room["room_id"]
    answers = [
        await call(server, "POST", f"/api/rooms/{room_id}/join", json={"name": f"p{seat}"})
        for seat in people
    ]
    for answer in answers:
        contract.check("Joined", answer.json())
    tokens = [answer.json()["token"] for answer in answers]
    event = asyncio.Event()
    url = server.ws_url(room_id)
    clients = [recording(url, token, event) for token in tokens] + [recording(url, None, event)]
    for client in clients:
        await client.connect()
    await clients[0].send({"type": "ping"})
    await clients[-1].send({"type": "action", "seq": 1, "action": {"type": "pass"}})
    for client in clients[:-1]:
        await client.send({"type": "ready"})
    await clients[0].wait_for(lambda: clients[0].status == "playing")

    seated = clients[:-1]
    await clients[0].wait_for(lambda: any(c.legal for c in seated))
    if game == "rummikub":
        await step_through_a_rummikub_turn(next(c for c in seated if c.legal))
        await clients[0].wait_for(lambda: any(c.legal for c in seated))
    actor = next(c for c in seated if c.legal)
    assert actor.token is not None
    for path in ("state", "legal", "hint"):
        answer = await call(server, "GET", f"/api/rooms/{room_id}/{path}", actor.token)
        contract.check(
            {"state": "StateAnswer", "legal": "LegalAnswer", "hint": "HintAnswer"}[path],
            answer.json(),
        )
    await clients[-1].send({"type": "resync"})
    await actor.send({"type": "hint", "seq": 500})
    await actor.wait_for(
        lambda: any(json.loads(text).get("seq") == 500 for _, text in actor.received), 30
    )

    await play_until(clients, seat_bots(game, people))
    answer = await call(server, "GET", f"/api/rooms/{room_id}/state")
    contract.check("StateAnswer", answer.json())

    problems: list[str] = []
    kinds: set[str] = set()
    for client in clients:
        for _, text in client.received:
            message = json.loads(text)
            kinds.add(message["type"])
            problems += contract.problems("ServerMessage", message)
        for document in client.documents:
            problems += contract.problems("StateDocument", document)
        for message in client.sent:
            problems += contract.problems("ClientMessage", message)
    assert problems[:5] == []
    views = [doc["game"] for client in clients for doc in client.documents if doc["game"]]
    if game == "rummikub":
        # The checks covered a turn in progress and a round laid open.
        assert any(view["tentative"] for view in views)
        assert any(view["last_round"] for view in views)
    else:
        assert any(table["outcome"] for view in views for table in view["tables"])
        assert any(view["me"] for view in views)
    assert {"snapshot", "patch", "ack", "error", "hint", "pong"} <= kinds

    match_id = clients[-1].doc["room"]["match_id"]  # type: ignore[index]
    # The room is private: a seat token of the match opens its history.
    seated = next(client.token for client in clients if client.token)
    replay = await call(server, "GET", f"/api/matches/{match_id}/replay", seated, timeout=60)
    assert replay.status_code == 200
    contract.check("Replay", replay.json())
    detail = await call(server, "GET", f"/api/matches/{match_id}", seated)
    contract.check("MatchDetailOut", detail.json())
    for client in clients:
        await client.close()


def test_a_field_the_schemas_do_not_describe_is_caught(
    server: LiveServer, contract: Contract
) -> None:
    room = create_room(server, game="rummikub", bots=[{"seat": 0}, {"seat": 1}])
    state = httpx.get(f"{server.http}/api/rooms/{room['room_id']}/state").json()["state"]
    contract.check("StateDocument", state)
    for change in (
        lambda doc: doc["game"].update(secret=1),
        lambda doc: doc["room"]["seats"][0].update(token="x"),
        lambda doc: doc["game"]["seats"][0].pop("rack_size"),
        lambda doc: doc["you"]["legal"].append({"type": "shuffle"}),
        lambda doc: doc["game"].update(pool_size="many"),
    ):
        changed = json.loads(json.dumps(state))
        change(changed)
        assert contract.problems("StateDocument", changed), change
