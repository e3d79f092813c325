"""Table talk on a cluster: seats on different nodes hear each other, and a takeover keeps it."""

from __future__ import annotations

import json
from typing import Any

from tests.api.live import SeatClient
from tests.cluster.cluster import Cluster, base, wait_until


def chat_of(client: SeatClient) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for _, text in client.received:
        message = json.loads(text)
        if message["type"] == "chat":
            lines.append(message)
        elif message["type"] == "chat_history":
            lines.extend(message["messages"])
    return lines


def texts(client: SeatClient) -> list[str | None]:
    return [line["text"] or line["reaction"] for line in chat_of(client)]


async def test_seats_on_three_nodes_talk_and_a_takeover_keeps_the_talk(cluster: Cluster) -> None:
    n0, n1, n2 = cluster.nodes
    async with base(n0) as http:
        room_id = (await http.post("/api/rooms", json={"game": "gin_rummy"})).json()["room_id"]
    assert cluster.owner(room_id) == "n0"
    tokens = []
    for node, name in ((n1, "Ann"), (n2, "Bea")):
        async with base(node) as http:
            joined = await http.post(f"/api/rooms/{room_id}/join", json={"name": name})
            tokens.append(joined.json()["token"])
    # Ann's socket on n1, Bea's on n2, a spectator on n0 (the owner itself).
    ann = await SeatClient(cluster.ws_url(n1, room_id), tokens[0]).connect()
    bea = await SeatClient(cluster.ws_url(n2, room_id), tokens[1]).connect()
    watcher = await SeatClient(cluster.ws_url(n0, room_id), None).connect()

    await ann.send({"type": "chat", "text": "hello from n1 <script>"})
    async with base(n2) as http:
        said = await http.post(
            f"/api/rooms/{room_id}/chat",
            json={"reaction": "hello"},
            headers={"Authorization": f"Bearer {tokens[1]}"},
        )
    assert said.status_code == 201, said.text
    heard = ["hello from n1 <script>", "hello"]
    for client in (ann, bea, watcher):
        await client.wait_for(lambda c=client: len(chat_of(c)) == 2)  # type: ignore[misc]
        assert texts(client) == heard
    # A refused line from a relayed socket gets its code there and reaches nobody.
    await bea.send({"type": "chat", "seq": 5, "text": "\u202e"})
    await bea.wait_for(lambda: any(m.get("seq") == 5 for m in bea.loose))
    assert [m["code"] for m in bea.loose if m.get("seq") == 5] == ["chat_empty"]
    # The host (Ann, the first to join) mutes Bea from n1; Bea's next line is refused on n2.
    await ann.send({"type": "chat_mute", "seat": 1, "muted": True})
    await bea.wait_for(lambda: bea.doc is not None and bea.doc["room"]["chat_muted"] == [1])
    await bea.send({"type": "chat", "seq": 6, "text": "hey"})
    await bea.wait_for(lambda: any(m.get("seq") == 6 for m in bea.loose))
    assert [m["code"] for m in bea.loose if m.get("seq") == 6] == ["chat_muted"]
    first_ids = [line["id"] for line in chat_of(ann)]
    for client in (ann, bea, watcher):
        await client.close()

    cluster.nodes[0].kill()

    async def taken() -> bool:
        return cluster.owner(room_id) in ("n1", "n2")

    await wait_until(taken, 4 * cluster.lease_s + 5, "the room taken over")
    # A reloaded page on the other node gets the talk the new owner read from the database.
    again = await SeatClient(cluster.ws_url(n2, room_id), tokens[1]).connect()
    await again.wait_for(lambda: len(chat_of(again)) >= 2)
    assert texts(again) == heard
    assert again.doc is not None
    assert again.doc["room"]["chat_muted"] == [1]
    ann = await SeatClient(cluster.ws_url(n1, room_id), tokens[0]).connect()
    await ann.send({"type": "chat", "text": "still here"})
    await again.wait_for(lambda: len(chat_of(again)) == 3)
    assert texts(again) == [*heard, "still here"]
    assert chat_of(again)[-1]["id"] > max(first_ids)
    await again.close()
    await ann.close()
