"""The messages nodes send each other on the bus: one byte saying the kind, then its body.

- `Q` a call on a room, to the room's owner: JSON {"id", "from", "op", "room", ...arguments};
- `R` the answer to a call: JSON {"re": id, "ok": result} or {"re": id, "err": [code, message]};
- `F` a message for a socket another node holds: "<owner> <connection>\\n" then the text, as
  the owner made it (no second encoding: it goes to the socket as it arrives);
- `C` close that socket: "<owner> <connection>\\n" then JSON [code, reason];
- `G` the socket is gone (to its room's owner): "<node> <connection>";
- `M` a room changed hands, to every node: JSON {"room", "node"} (node None: handed over,
  up for the taking);
- `O` the operator's notice, to every node: JSON {"from": node, "notice": message}, which each
  node sends to the sockets of its rooms.

The bus itself starts a bundle with `B` and a numbered bundle with `N` (app.cluster.bus): no
kind may take either.
"""

from __future__ import annotations

from typing import Any

import orjson

CALL, ANSWER, FRAME, CLOSE, GONE, MOVED, NOTICE = b"Q", b"R", b"F", b"C", b"G", b"M", b"O"


def call(body: dict[str, Any]) -> bytes:
    return CALL + orjson.dumps(body)


def answer(call_id: str, result: Any) -> bytes:
    return ANSWER + orjson.dumps({"re": call_id, "ok": result})


def refusal(call_id: str, code: str, message: str) -> bytes:
    return ANSWER + orjson.dumps({"re": call_id, "err": [code, message]})


def frame(owner: str, connection: str, text: str) -> bytes:
    return b"%s%s %s\n%s" % (FRAME, owner.encode(), connection.encode(), text.encode())


def close(owner: str, connection: str, code: int, reason: str) -> bytes:
    head = b"%s%s %s\n" % (CLOSE, owner.encode(), connection.encode())
    return head + orjson.dumps([code, reason])


def gone(node: str, connection: str) -> bytes:
    return b"%s%s %s" % (GONE, node.encode(), connection.encode())


def moved(room_id: str, node: str | None) -> bytes:
    return MOVED + orjson.dumps({"room": room_id, "node": node})


def notice(node: str, message: dict[str, Any]) -> bytes:
    return NOTICE + orjson.dumps({"from": node, "notice": message})


def addressed(body: bytes) -> tuple[str, str, bytes]:
    """(owner or node, connection, rest) of an F, C or G message's body (its kind cut off)."""
    head, _, rest = body.partition(b"\n")
    node, _, connection = head.partition(b" ")
    return node.decode(), connection.decode(), rest
