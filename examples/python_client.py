"""A complete meldhall client: create or join a room, then play a whole match over the WebSocket.

    python examples/python_client.py --server http://127.0.0.1:8000 --game gin_rummy
    python examples/python_client.py --server http://127.0.0.1:8000 --room q3Yd0b2xJm7A --name ann

Only the standard library and `websockets`. It keeps the state document of docs/protocol.md up
to date from the snapshot and the JSON Patches, and plays a simple strategy from `you.legal`:
Gin Rummy: go gin or knock when allowed, else draw from the stock and discard the highest card;
Rummikub: draw (or pass when the pool is empty). With `--hints` it asks the server for a hint
over the socket before each move and plays it (the simple strategy when there is none).

Pacing: the server takes 20 messages a second per connection (bursts of 40) and refuses the
rest with `rate_limited`, closing a connection that keeps on (4429). A program answers far
faster than that against bots, so every message this client sends waits its turn: at most
`--rate` (10) a second, evenly spaced. Half the server's default leaves room for a resync or a
hint beside the moves; raise it only as far as the server's MELDHALL_WS_MESSAGES_PER_SECOND.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import urllib.request
from typing import Any

import websockets

Json = dict[str, Any]


def rest(server: str, method: str, path: str, body: Json | None = None) -> Json:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"{server}{path}", data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: Json = json.loads(answer.read())
        return result


def apply_patch(doc: Any, patch: list[Json]) -> Any:
    """RFC 6902 add / remove / replace: all the server sends."""
    for op in patch:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        if not parts:
            doc = op["value"]
            continue
        parent = doc
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op["op"] == "add":
                parent.insert(index, op["value"])
            elif op["op"] == "remove":
                del parent[index]
            else:
                parent[index] = op["value"]
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = op["value"]
    return doc


class Pacer:
    """At most `per_second` sends a second, evenly spaced: each send waits for its slot."""

    def __init__(self, per_second: float) -> None:
        self.interval = 1 / per_second
        self.next_slot = 0.0

    async def wait(self) -> None:
        now = time.monotonic()
        if self.next_slot > now:
            await asyncio.sleep(self.next_slot - now)
        self.next_slot = max(now, self.next_slot) + self.interval


def rank(card: str) -> int:
    return int(card[1:])


def choose(game: str, legal: list[Json]) -> Json:
    kinds = {action["type"]: action for action in legal}
    if game == "rummikub":
        return {"type": "draw"} if "draw" in kinds else {"type": "pass"}
    for kind in ("big_gin", "gin", "knock"):
        if kind in kinds:
            return kinds[kind]
    for action in legal:
        if action["type"] == "draw" and action.get("source") == "stock":
            return action
    discards = [action for action in legal if action["type"] == "discard"]
    if discards:
        return max(discards, key=lambda action: rank(action["card"]))
    return kinds.get("pass", legal[0])


# Close codes after which reconnecting cannot help: a bad hello, a token of no seat here (or a
# seat left), spectators not allowed, no such room (docs/protocol.md, Close codes).
FATAL_CLOSE_CODES = {4400, 4401, 4403, 4404}
RECONNECTS = 30
BACKOFF_MAX_S = 5.0


async def play(
    server: str, room_id: str, token: str, *, hints: bool = False, rate: float = 10
) -> Json:
    """Play the seat until the match is finished; returns the final state document.

    With `hints`, each move is the server's hint when it gives one (`{"type": "hint"}`). At
    most `rate` messages a second go out (see Pacing above).

    When the connection drops (the server restarting, or on a cluster the room moving to
    another node: close 1012), it reconnects with the same token, a little later each time,
    and carries on from the fresh snapshot; a move whose answer was lost is chosen again from
    that state (if it was made, the state shows it).
    """
    ws_url = server.replace("http", "ws", 1) + f"/ws/rooms/{room_id}"
    pacer = Pacer(rate)
    delay = 0.5
    for attempt in range(RECONNECTS):
        try:
            return await play_connection(ws_url, token, pacer, hints=hints, first=attempt == 0)
        except websockets.ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            if code in FATAL_CLOSE_CODES:
                raise ConnectionError(f"the server refused this seat (close {code})") from closed
        except OSError:
            pass  # the server is not listening yet: it is restarting
        await asyncio.sleep(delay)
        delay = min(BACKOFF_MAX_S, delay * 2)
    raise ConnectionError(f"could not reach the room after {RECONNECTS} connections")


async def play_connection(
    ws_url: str, token: str, pacer: Pacer, *, hints: bool, first: bool
) -> Json:
    """One connection's play; the final document, or websockets.ConnectionClosed."""
    async with websockets.connect(ws_url) as socket:

        async def send(message: Json) -> None:
            await pacer.wait()
            await socket.send(json.dumps(message))

        await send({"type": "hello", "token": token})
        if first:
            await send({"type": "ready"})
        doc: Any = None
        version = -1
        seq = 0
        waiting_for: int | None = None
        # With hints: whether waiting_for is this move's hint request, then its answer (a hint,
        # or an error such as no_hint: then the simple strategy plays).
        asking = False
        answer: Json | None = None
        async for text in socket:
            message = json.loads(text)
            kind = message["type"]
            if kind == "snapshot":
                doc, version = message["state"], message["version"]
            elif kind in ("patch", "ack"):
                # An ack is the reply to our action and carries the action's patch.
                if kind == "ack" and message["seq"] == waiting_for:
                    waiting_for = None
                if message["from"] != version:
                    await send({"type": "resync"})
                    continue
                doc, version = apply_patch(doc, message["patch"]), message["version"]
            elif kind in ("hint", "error") and message["seq"] in (waiting_for, None):
                # seq null: a message refused unread (rate_limited...), maybe the one awaited.
                waiting_for = None
                if asking:
                    asking, answer = False, message
            if kind == "error":
                # A refused message changed nothing; below, the move is chosen again.
                print(f"refused: {message['code']}: {message['message']}", file=sys.stderr)
            if doc["room"]["status"] == "finished":
                return dict(doc)
            legal = doc["you"]["legal"]
            if legal and waiting_for is None:
                seq += 1
                waiting_for = seq
                if hints and answer is None:
                    asking = True
                    await send({"type": "hint", "seq": seq})
                    continue
                if answer is not None and answer["type"] == "hint":
                    # Sent with the hint's version: a hint that went stale is refused, not played.
                    action, chosen_at = answer["action"], answer["version"]
                else:
                    action, chosen_at = choose(doc["room"]["game"], legal), version
                answer = None
                await send({"type": "action", "seq": seq, "version": chosen_at, "action": action})
        # Closed by the server without an error (1000, 1001): reconnect all the same.
        raise websockets.ConnectionClosed(socket.close_rcvd, socket.close_sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--game", default="gin_rummy", choices=["gin_rummy", "rummikub"])
    parser.add_argument("--room", help="join this room instead of creating one against a bot")
    parser.add_argument("--name", default="python")
    parser.add_argument("--options", default="{}", help='variant options, e.g. {"target": 50}')
    parser.add_argument("--hints", action="store_true", help="play the server's hints")
    parser.add_argument(
        "--rate", type=float, default=10, help="messages a second at most (the server takes 20)"
    )
    args = parser.parse_args()
    room_id = args.room
    if room_id is None:
        body = {"game": args.game, "options": json.loads(args.options), "bots": [{"seat": 1}]}
        room_id = rest(args.server, "POST", "/api/rooms", body)["room_id"]
        print(f"room {room_id}: {args.server}/r/{room_id}")
    joined = rest(args.server, "POST", f"/api/rooms/{room_id}/join", {"name": args.name})
    token = joined["token"]
    final = asyncio.run(play(args.server, room_id, token, hints=args.hints, rate=args.rate))
    print(json.dumps(final["game"]["result"], indent=2))


if __name__ == "__main__":
    main()
