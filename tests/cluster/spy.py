"""The hidden-hand spy for rooms played on another process: every message a client got is
checked against the engine's own views, replayed from the match's log."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch

from tests.api.live import SeatClient
from tests.api.play import strings


def stream_faults(client: SeatClient, viewer: int | None, steps: list[dict[Any, Any]]) -> list[str]:
    return received_faults(client.received, viewer, steps)


def received_faults(
    received: list[tuple[int, str]], viewer: int | None, steps: list[dict[Any, Any]]
) -> list[str]:
    """Each message must bring the client to a game view the engine gave this viewer at some
    point, no earlier than the last, and name nothing the engine hid from it then."""
    faults: list[str] = []
    doc: dict[str, Any] | None = None
    at = 0
    for version, text in received:
        message = json.loads(text)
        kind = message["type"]
        if kind == "snapshot":
            doc = message["state"]
        elif kind in ("patch", "ack"):
            doc = jsonpatch.apply_patch(doc, message["patch"])
        if doc is None or doc.get("game") is None:
            continue
        found = next((j for j in range(at, len(steps)) if steps[j][viewer][0] == doc["game"]), None)
        if found is None:
            # What the stream holds against the view it had reached, so that a rare fault is
            # read from the failure alone.
            apart = jsonpatch.make_patch(steps[at][viewer][0], doc["game"]).patch
            faults.append(
                f"v{version} viewer {viewer}: a view the engine never gave: from step {at} of "
                f"{len(steps) - 1} it is {json.dumps(apart)[:800]}, after {text[:400]}"
            )
            continue
        at = found
        hidden = steps[at][viewer][1]
        leaked = [(where, name) for where, name in strings(message) if name in hidden]
        if leaked:
            faults.append(f"v{version} viewer {viewer}: {leaked} in {text[:300]}")
    return faults


async def match_faults(database_url: str, clients: list[SeatClient], players: int) -> list[str]:
    """The spy over every client of one room's match, from the match's log in the database."""
    from tests.cluster.cluster import authentic_views, stored_match

    doc = clients[0].doc
    assert doc is not None
    stored = await stored_match(database_url, doc["room"]["match_id"])
    steps = authentic_views(stored, [None, *range(players)])
    return [
        fault
        for client in clients
        for fault in stream_faults(
            client, None if client.token is None else client.doc["you"]["seat"], steps
        )
    ]


def bearer(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}
