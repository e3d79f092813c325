"""/metrics: off unless its token is set, then only for that token; its figures move as a
match is played."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.main import create_app
from app.settings import Settings
from tests.api.live import LiveServer, SeatClient, bearer, call, create_room, join, live_server
from tests.api.play import play_until, seat_bots

TOKEN = "metrics-token-for-the-tests"
SHORT_GIN = {"target": 30}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(server: LiveServer) -> Samples:
    answer = httpx.get(f"{server.http}/metrics", headers=bearer(TOKEN))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples of `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, have), v in samples.items() if n == name and wanted <= have)


def names(samples: Samples) -> set[str]:
    return {name for name, _ in samples}


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with live_server(metrics_token=TOKEN) as live:
        yield live


def test_metrics_do_not_exist_without_their_token_set() -> None:
    with live_server() as server:
        for headers in ({}, bearer(TOKEN), {"Authorization": "Bearer"}):
            answer = httpx.get(f"{server.http}/metrics", headers=headers)
            assert answer.status_code == 404
            assert answer.json() == httpx.get(f"{server.http}/no-such-path").json()


def test_metrics_answer_only_their_bearer_token(server: LiveServer) -> None:
    unknown = httpx.get(f"{server.http}/no-such-path").json()
    refused = [
        {},
        bearer("wrong"),
        bearer(TOKEN + "x"),
        bearer(TOKEN[:-1]),
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ]
    for headers in refused:
        answer = httpx.get(f"{server.http}/metrics", headers=headers)
        assert (answer.status_code, answer.json()) == (404, unknown), headers
    # Any method or path under the door: the same 404, before the method is looked at.
    assert httpx.post(f"{server.http}/metrics").status_code == 404
    answer = httpx.get(f"{server.http}/metrics", headers=bearer(TOKEN))
    assert answer.status_code == 200
    assert "meldhall_actions_accepted_total" in answer.text


def test_two_apps_in_one_process_keep_their_own_registries() -> None:
    first = create_app(Settings(metrics_token=TOKEN, node_id="one"), store_url="memory://")
    second = create_app(Settings(metrics_token=TOKEN, node_id="two"), store_url="memory://")
    first.state.meters.actions_accepted.inc()
    assert first.state.meters.registry is not second.state.meters.registry
    assert (
        first.state.meters.registry.get_sample_value(
            "meldhall_actions_accepted_total", {"node": "one"}
        )
        == 1
    )
    assert (
        second.state.meters.registry.get_sample_value(
            "meldhall_actions_accepted_total", {"node": "two"}
        )
        == 0
    )


async def test_metrics_move_as_a_match_is_played(server: LiveServer) -> None:
    before = scrape(server)
    node = server.server.config.loaded_app.app.state.node_id  # type: ignore[attr-defined]
    room = create_room(
        server, game="gin_rummy", players=2, options=SHORT_GIN, bots=[{"seat": 1, "level": "easy"}]
    )
    room_id = room["room_id"]
    token = join(server, room_id, "ann", seat=0)
    ann = await SeatClient(server.ws_url(room_id), token).connect()
    await ann.send({"type": "ready"})
    await ann.wait_for(lambda: ann.status == "playing")

    during = scrape(server)
    assert value(during, "meldhall_rooms", node=node, game="gin_rummy", status="playing") >= 1
    assert value(during, "meldhall_matches_in_play", game="gin_rummy") >= 1
    assert value(during, "meldhall_sockets", kind="own") >= 1
    assert value(during, "meldhall_sockets", kind="relayed") == 0
    assert (
        value(during, "meldhall_socket_opens_total")
        == value(before, "meldhall_socket_opens_total") + 1
    )

    refused = await ann.act({"type": "no_such_action"})
    assert refused["type"] == "error"
    hint = await call(server, "GET", f"/api/rooms/{room_id}/hint", token)
    assert hint.status_code in (200, 409), hint.text

    moves = await play_until([ann], seat_bots("gin_rummy", [0]))
    await ann.close()
    after = await scraped_once(server, lambda s: value(s, "meldhall_sockets", kind="own") == 0)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moves > 0
    assert grew("meldhall_actions_accepted_total", node=node) >= moves - 2
    assert grew("meldhall_actions_refused_total", code=refused["code"]) == 1
    assert grew("meldhall_action_seconds_count") == grew("meldhall_actions_accepted_total")
    assert grew("meldhall_action_seconds_sum") > 0
    # Every action is logged: the person's, the bot's, and the room's own (the deal).
    assert grew("meldhall_action_log_commit_seconds_count") > moves
    assert grew("meldhall_bot_decision_seconds_count", game="gin_rummy", level="easy") > 0
    if hint.status_code == 200:
        assert grew("meldhall_hint_seconds_count", game="gin_rummy") == 1
    assert grew("meldhall_matches_finished_total", game="gin_rummy", outcome="finished") == 1
    assert grew("meldhall_socket_closes_total") == 1
    assert value(after, "meldhall_rooms", game="gin_rummy", status="finished") >= 1
    assert value(after, "meldhall_bots_thinking") == 0
    for name in (
        "meldhall_storage_errors_total",
        "meldhall_takeovers_total",
        "meldhall_handovers_total",
        "meldhall_messages_relayed_total",
        "meldhall_messages_published_again_total",
    ):
        assert f"# TYPE {name} counter" in metrics_text(server), name
    assert {"process_cpu_seconds_total", "process_resident_memory_bytes"} <= names(after)


def metrics_text(server: LiveServer) -> str:
    return httpx.get(f"{server.http}/metrics", headers=bearer(TOKEN)).text


async def scraped_once(server: LiveServer, done: Any) -> Samples:
    """A scrape once `done(samples)` holds (the server sees a closed socket a moment later)."""
    async with asyncio.timeout(10):
        while True:
            samples = scrape(server)
            if done(samples):
                return samples
            await asyncio.sleep(0.05)
