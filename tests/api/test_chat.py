"""Table talk on a real server: lines between seats, history, every limit and code, mutes."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.api.contract import Contract, openapi
from tests.api.live import LiveServer, SeatClient, call, create_room, join, live_server

pytestmark = pytest.mark.asyncio


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    # A pace that never refills within a test: the sixth line at once is refused, always.
    with live_server(chat_lines_per_second=0.001, chat_burst=5) as running:
        yield running


@pytest.fixture(scope="module")
def contract(server: LiveServer) -> Contract:
    return Contract(openapi(server.http))


def chat_of(client: SeatClient) -> list[dict[str, Any]]:
    """The chat lines a socket got, history and single lines alike, in order."""
    lines: list[dict[str, Any]] = []
    for _, text in client.received:
        message = json.loads(text)
        if message["type"] == "chat":
            lines.append(message)
        elif message["type"] == "chat_history":
            lines.extend({"type": "chat", **line} for line in message["messages"])
    return lines


def table(server: LiveServer, **options: Any) -> tuple[str, str, str]:
    room = create_room(server, game="gin_rummy", **options)
    room_id = room["room_id"]
    return room_id, join(server, room_id, "Ann"), join(server, room_id, "Bea")


async def seated(server: LiveServer, room_id: str, *tokens: str | None) -> list[SeatClient]:
    return [await SeatClient(server.ws_url(room_id), token).connect() for token in tokens]


async def say(client: SeatClient, seq: int, **line: Any) -> dict[str, Any] | None:
    """Send a line; the error it got, or None once it came back as a chat line."""
    before = len(chat_of(client))
    errors = len(client.loose)
    await client.send({"type": "chat", "seq": seq, **line})
    await client.wait_for(
        lambda: (
            len(chat_of(client)) > before or any(m.get("seq") == seq for m in client.loose[errors:])
        )
    )
    for message in client.loose[errors:]:
        if message.get("seq") == seq:
            return message
    return None


async def test_a_line_reaches_both_seats_and_the_spectator_as_the_contract_says(
    server: LiveServer, contract: Contract
) -> None:
    room_id, ann_token, bea_token = table(server)
    ann, bea, watcher = await seated(server, room_id, ann_token, bea_token, None)
    assert await say(ann, 1, text="  hello\u202e <b>there</b>\x00 ") is None
    assert await say(bea, 2, reaction="nice") is None
    for client in (ann, bea, watcher):
        await client.wait_for(lambda c=client: len(chat_of(c)) == 2)  # type: ignore[misc]
        first, second = chat_of(client)
        assert first["from"] == {"seat": 0, "name": "Ann"}
        assert first["text"] == "hello <b>there</b>"
        assert first["reaction"] is None
        assert second["from"] == {"seat": 1, "name": "Bea"}
        assert (second["text"], second["reaction"]) == (None, "nice")
        assert first["id"] < second["id"]
        for line in (first, second):
            contract.check("ServerMessage", line)
    listed = (await call(server, "GET", f"/api/rooms/{room_id}/chat")).json()["messages"]
    assert [line["id"] for line in listed] == [first["id"], second["id"]]
    contract.check("ChatLines", {"messages": listed})
    for client in (ann, bea, watcher):
        await client.close()


async def test_a_late_joiner_and_a_reloaded_page_get_the_last_50_lines_after_the_snapshot(
    contract: Contract,
) -> None:
    with live_server(chat_lines_per_second=1000, chat_burst=1000) as server:
        room_id, ann_token, bea_token = table(server)
        for n in range(55):
            response = await call(
                server,
                "POST",
                f"/api/rooms/{room_id}/chat",
                ann_token if n % 2 else bea_token,
                json={"text": f"line {n}"},
            )
            assert response.status_code == 201, response.text
            contract.check("ChatLine", response.json())
        (late,) = await seated(server, room_id, bea_token)
        await late.wait_for(lambda: len(late.received) >= 2)
        kinds = [json.loads(text)["type"] for _, text in late.received]
        assert kinds[:2] == ["snapshot", "chat_history"]
        history = json.loads(late.received[1][1])
        contract.check("ServerMessage", history)
        assert [line["text"] for line in history["messages"]] == [f"line {n}" for n in range(5, 55)]
        (watcher,) = await seated(server, room_id, None)
        await watcher.wait_for(lambda: len(chat_of(watcher)) == 50)
        assert [line["text"] for line in chat_of(watcher)][-1] == "line 54"
        listed = await call(server, "GET", f"/api/rooms/{room_id}/chat", ann_token)
        assert listed.json()["messages"][0]["text"] == "line 5"
        await late.close()
        await watcher.close()


async def test_a_room_without_talk_sends_no_history(server: LiveServer) -> None:
    room_id, ann_token, _ = table(server)
    (ann,) = await seated(server, room_id, ann_token)
    # The pong comes after whatever the server sent before it.
    await ann.send({"type": "ping"})
    await ann.wait_for(lambda: any(m["type"] == "pong" for m in ann.loose))
    assert [json.loads(text)["type"] for _, text in ann.received] == ["snapshot", "pong"]
    await ann.close()


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ({"text": ""}, "chat_empty"),
        ({"text": " \u202e\u200b\x00\t "}, "chat_empty"),
        ({"text": "x" * 301}, "chat_too_long"),
        ({"text": "word " * 2_000}, "chat_too_long"),
        ({"text": 7}, "bad_message"),
        ({"text": ["hi"]}, "bad_message"),
        ({"text": "hi", "reaction": "nice"}, "bad_message"),
        ({}, "bad_message"),
        ({"reaction": "rofl"}, "bad_reaction"),
        ({"reaction": 1}, "bad_message"),
    ],
)
async def test_a_bad_line_gets_its_own_code_and_nobody_hears_it(
    server: LiveServer, line: dict[str, Any], code: str
) -> None:
    room_id, ann_token, bea_token = table(server)
    ann, bea = await seated(server, room_id, ann_token, bea_token)
    refused = await say(ann, 9, **line)
    assert refused is not None
    assert refused["code"] == code, refused
    # A good line after it is the first anyone hears.
    assert await say(ann, 10, text="ok") is None
    await bea.wait_for(lambda: len(chat_of(bea)) == 1)
    assert [m["text"] for m in chat_of(bea)] == ["ok"]
    assert [m["text"] for m in chat_of(ann)] == ["ok"]
    await ann.close()
    await bea.close()


async def test_exactly_300_characters_after_cleaning_are_kept(server: LiveServer) -> None:
    room_id, ann_token, _ = table(server)
    (ann,) = await seated(server, room_id, ann_token)
    # Removed characters do not count: 300 letters with a bidi override in the middle.
    assert await say(ann, 1, text="a" * 150 + "\u202e" + "b" * 150) is None
    assert chat_of(ann)[0]["text"] == "a" * 150 + "b" * 150
    await ann.close()


async def test_a_sixth_line_at_once_is_rate_limited_and_not_sent(server: LiveServer) -> None:
    room_id, ann_token, bea_token = table(server)
    ann, bea = await seated(server, room_id, ann_token, bea_token)
    for n in range(5):
        assert await say(ann, n, text=f"line {n}") is None
    refused = await say(ann, 5, text="one too many")
    assert refused is not None
    assert refused["code"] == "rate_limited"
    # Bea's own pace is her own.
    assert await say(bea, 6, reaction="wow") is None
    await ann.wait_for(lambda: len(chat_of(ann)) == 6)
    assert "one too many" not in [m["text"] for m in chat_of(bea)]
    response = await call(
        server, "POST", f"/api/rooms/{room_id}/chat", ann_token, json={"text": "rest"}
    )
    assert (response.status_code, response.json()["error"]["code"]) == (429, "rate_limited")
    await ann.close()
    await bea.close()


async def test_flooding_the_chat_closes_the_socket_as_flooding_actions_does() -> None:
    with live_server(chat_lines_per_second=0.001, chat_burst=1, ws_burst=3) as server:
        room_id, ann_token, _ = table(server)
        (ann,) = await seated(server, room_id, ann_token)
        for n in range(20):
            if ann.closed.is_set():
                break
            with contextlib.suppress(websockets.ConnectionClosed):
                await ann.send({"type": "chat", "seq": n, "text": f"spam {n}"})
        await ann.wait_for(ann.closed.is_set)
        assert ann.close_code == 4429


async def test_a_spectator_reads_but_cannot_post(server: LiveServer) -> None:
    room_id, ann_token, _ = table(server)
    ann, watcher = await seated(server, room_id, ann_token, None)
    refused = await say(watcher, 1, text="hi from the rail")
    assert refused is not None
    assert refused["code"] == "spectator"
    assert await say(ann, 2, text="hi") is None
    await watcher.wait_for(lambda: len(chat_of(watcher)) == 1)
    assert [m["text"] for m in chat_of(ann)] == ["hi"]
    await ann.close()
    await watcher.close()


async def test_a_room_without_spectators_keeps_its_talk_from_strangers(server: LiveServer) -> None:
    room_id, ann_token, _ = table(server, spectators=False)
    response = await call(server, "GET", f"/api/rooms/{room_id}/chat")
    assert response.json()["error"]["code"] == "spectators_not_allowed"
    response = await call(server, "GET", f"/api/rooms/{room_id}/chat", "nope")
    assert response.json()["error"]["code"] == "bad_token"
    response = await call(server, "GET", f"/api/rooms/{room_id}/chat", ann_token)
    assert response.json() == {"messages": []}


async def test_a_room_with_chat_off_refuses_every_line(server: LiveServer) -> None:
    room_id, ann_token, bea_token = table(server, chat=False)
    ann, bea = await seated(server, room_id, ann_token, bea_token)
    assert ann.doc is not None
    assert ann.doc["room"]["chat"] is False
    refused = await say(ann, 1, reaction="hello")
    assert refused is not None
    assert refused["code"] == "chat_disabled"
    response = await call(
        server, "POST", f"/api/rooms/{room_id}/chat", bea_token, json={"text": "hi"}
    )
    assert (response.status_code, response.json()["error"]["code"]) == (403, "chat_disabled")
    assert chat_of(bea) == []
    await ann.close()
    await bea.close()


async def test_the_host_mutes_a_seat_for_everyone_and_only_the_host_may(
    server: LiveServer,
) -> None:
    room_id, ann_token, bea_token = table(server)
    ann, bea = await seated(server, room_id, ann_token, bea_token)
    assert ann.doc is not None
    assert ann.doc["room"]["chat_host"] == 0
    # Bea is not the host: her mute is refused, and Ann still talks.
    await bea.send({"type": "chat_mute", "seq": 1, "seat": 0, "muted": True})
    await bea.wait_for(lambda: any(m.get("seq") == 1 for m in bea.loose))
    assert [m["code"] for m in bea.loose if m.get("seq") == 1] == ["not_chat_host"]
    assert await say(ann, 2, text="still here") is None
    await ann.send({"type": "chat_mute", "seq": 3, "seat": 1, "muted": True})
    await bea.wait_for(lambda: bea.doc is not None and bea.doc["room"]["chat_muted"] == [1])
    refused = await say(bea, 4, text="let me talk")
    assert refused is not None
    assert refused["code"] == "chat_muted"
    response = await call(
        server, "POST", f"/api/rooms/{room_id}/chat", bea_token, json={"text": "hi"}
    )
    assert (response.status_code, response.json()["error"]["code"]) == (403, "chat_muted")
    assert [m["text"] for m in chat_of(ann)] == ["still here"]
    response = await call(
        server,
        "POST",
        f"/api/rooms/{room_id}/chat/mute",
        ann_token,
        json={"seat": 1, "muted": False},
    )
    assert response.status_code == 200
    assert response.json()["chat_muted"] == []
    assert await say(bea, 5, text="thanks") is None
    response = await call(
        server,
        "POST",
        f"/api/rooms/{room_id}/chat/mute",
        ann_token,
        json={"seat": 9, "muted": True},
    )
    assert response.json()["error"]["code"] == "bad_seat"
    await ann.close()
    await bea.close()


async def test_the_host_part_passes_on_when_the_host_leaves_before_the_match(
    server: LiveServer,
) -> None:
    room_id, ann_token, bea_token = table(server)
    response = await call(server, "POST", f"/api/rooms/{room_id}/leave", ann_token)
    assert response.json()["chat_host"] == 1
    response = await call(
        server,
        "POST",
        f"/api/rooms/{room_id}/chat/mute",
        bea_token,
        json={"seat": 0, "muted": True},
    )
    assert response.status_code == 200
    assert response.json()["chat_muted"] == [0]


async def test_rest_refuses_a_line_without_a_token_or_with_a_body_of_the_wrong_type(
    server: LiveServer,
) -> None:
    room_id, ann_token, _ = table(server)
    path = f"/api/rooms/{room_id}/chat"
    assert (await call(server, "POST", path, json={"text": "hi"})).json()["error"][
        "code"
    ] == "missing_token"
    response = await call(server, "POST", path, ann_token, json={"text": 5})
    assert response.json()["error"]["code"] == "bad_request"
    # A NUL never reaches a route (the request guard's bad_request); other controls are cleaned.
    response = await call(server, "POST", path, ann_token, json={"text": "\x00"})
    assert response.json()["error"]["code"] == "bad_request"
    response = await call(server, "POST", path, ann_token, json={"text": "\u202e\x07"})
    assert (response.status_code, response.json()["error"]["code"]) == (422, "chat_empty")
    assert (await call(server, "GET", path)).json() == {"messages": []}


async def test_a_restart_keeps_the_talk_the_mutes_and_the_order_of_lines(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
    with live_server(url) as server:
        room_id, ann_token, bea_token = table(server)
        for token, text in ((ann_token, "first"), (bea_token, "second")):
            response = await call(
                server, "POST", f"/api/rooms/{room_id}/chat", token, json={"text": text}
            )
            assert response.status_code == 201
        mute = {"seat": 1, "muted": True}
        response = await call(
            server, "POST", f"/api/rooms/{room_id}/chat/mute", ann_token, json=mute
        )
        assert response.status_code == 200
        before = response.json()
    with live_server(url) as server:
        (ann,) = await seated(server, room_id, ann_token)
        await ann.wait_for(lambda: len(chat_of(ann)) >= 2)
        assert [line["text"] for line in chat_of(ann)] == ["first", "second"]
        assert ann.doc is not None
        assert ann.doc["room"]["chat_muted"] == [1]
        assert ann.doc["room"]["chat_host"] == before["chat_host"] == 0
        response = await call(
            server, "POST", f"/api/rooms/{room_id}/chat", bea_token, json={"text": "x"}
        )
        assert response.json()["error"]["code"] == "chat_muted"
        assert await say(ann, 1, text="third") is None
        ids = [line["id"] for line in chat_of(ann)]
        assert ids == sorted(ids)
        assert len(set(ids)) == 3
        await ann.close()


async def test_the_replay_holds_the_talk_of_its_match_for_those_who_may_read_it(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'meldhall.db'}"
    with live_server(url) as server:
        room = create_room(server, game="gin_rummy", bots=[{"seat": 1, "level": "easy"}])
        room_id = room["room_id"]
        ann_token = join(server, room_id, "Ann", seat=0)
        path = f"/api/rooms/{room_id}/chat"
        assert (await call(server, "POST", path, ann_token, json={"text": "before"})).is_success
        started = await call(server, "POST", f"/api/rooms/{room_id}/ready", ann_token)
        match_id = started.json()["match_id"]
        assert match_id is not None
        assert (
            await call(server, "POST", path, ann_token, json={"reaction": "good_game"})
        ).is_success
        assert (
            await call(server, "POST", path, ann_token, json={"text": "<i>during</i>"})
        ).is_success
        replay = await call(server, "GET", f"/api/matches/{match_id}/replay", ann_token)
        assert replay.status_code == 200, replay.text
        chat = replay.json()["chat"]
        assert [(line["text"], line["reaction"]) for line in chat] == [
            (None, "good_game"),
            ("<i>during</i>", None),
        ]
        assert chat[0]["from"] == {"seat": 0, "name": "Ann"}
        # A private room's replay, talk included, is not a stranger's to read.
        stranger = await call(server, "GET", f"/api/matches/{match_id}/replay")
        assert stranger.json()["error"]["code"] == "match_not_found"
