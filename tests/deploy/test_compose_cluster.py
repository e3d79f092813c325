"""docker-compose.yml's cluster profile run with podman-compose, unchanged: Redis, HAProxy and
three nodes (the app and the file's two replicas); a match played through the balancer with
its two seats' sockets on different nodes; the node that owns the room killed, and the match
going on through the balancer within the failover time docs/cluster.md states; and
`--profile cluster down` leaving nothing running."""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest

from app.bots.registry import make_bot
from app.settings import Settings
from examples.python_client import rest
from tests.cluster.players import EXPECTED_REFUSALS, RECONNECT_PAUSE_S, Player
from tests.deploy.podman import (
    PROJECT_LABEL,
    ROOT,
    Compose,
    HealthChecks,
    Steps,
    inspect,
    podman,
    wait_for_health,
)
from tests.deploy.test_compose import PASSWORD, QUICK, bearer
from tests.processes import free_port

pytestmark = [pytest.mark.containers, pytest.mark.timeout(900)]


def haproxy_connect_timeout_s() -> float:
    """deploy/haproxy.cfg's `timeout connect`, in seconds (HAProxy's unit is ms by default)."""
    config = (ROOT / "deploy" / "haproxy.cfg").read_text(encoding="utf-8")
    found = re.search(r"^\s*timeout connect (\d+)(ms|s)?\s*$", config, re.MULTILINE)
    assert found, "deploy/haproxy.cfg sets no `timeout connect`"
    return int(found[1]) / (1 if found[2] == "s" else 1000)


# How long the next move may take after the room's owner is killed, stage by stage, from the
# compose file's settings (it leaves the lease at the server's default) and deploy/haproxy.cfg's
# (docs/cluster.md, "A dead node, seen from a player"):
LEASE_S: float = Settings.model_fields["lease_s"].default
# - the owner's lease, renewed every tick (a quarter lease), runs out at most a lease after the
#   kill, and a node asked for the room then takes it over at once: the killed node's seat
#   reconnects to a live node at once, and a move sent to the dead owner is given up when its
#   lease lapses. When nothing asks (the seat to move never heard it was its turn, its socket
#   relayed by a live node), that node closes the socket at its first tick after the owner's
#   mark of being alive, which runs out as the lease does, is gone: a tick more;
TICK_S = LEASE_S / 4
# - the socket is opened again RECONNECT_PAUSE_S later, through the balancer: a connection it
#   sends to the dead node before marking it down waits out its connect timeout, then goes to
#   another node (and the dead one is marked down at once);
BALANCER_CONNECT_S = haproxy_connect_timeout_s()
# - the seat to move thinks PACE_S, and its move is acknowledged (milliseconds).
PACE_S = 0.4
# 7.75 s with the defaults. The sum over-counts by the balancer's second: its wait falls only on
# a connection made before the dead node is taken out (at its first failed connection, or by its
# checks within 4 s of the kill), so it is over within 5 s, by when the lease has run out anyway;
# it never adds to the tick's case. That second is the room left for a busy machine's late
# timers.
FAILOVER_BOUND_S = LEASE_S + TICK_S + RECONNECT_PAUSE_S + BALANCER_CONNECT_S + PACE_S


def accepted_sockets(stack: Compose, node: str, room_id: str) -> int:
    return len(re.findall(rf"WebSocket /ws/rooms/{room_id}\" \[accepted\]", stack.logs(node)))


def node_id(stack: Compose, container: str) -> str:
    found = re.search(r"node (\S+) joined cluster", stack.logs(container))
    assert found, f"{container} did not join the cluster"
    return found[1]


@dataclass
class TimedPlayer(Player):
    """A player that notes when each of its actions was acknowledged (wall clock), at which
    version."""

    acks: list[tuple[float, int]] = field(default_factory=list)

    def _answers(self, message: dict[str, Any], pending: tuple[int, dict[str, Any]]) -> bool:
        answered = super()._answers(message, pending)
        if answered and message["type"] == "ack":
            self.acks.append((time.time(), message["version"]))
        return answered


def stamped_logs(stack: Compose, container: str) -> list[tuple[float, str]]:
    """The container's log lines with the times podman stamped them (wall clock)."""
    done = podman("logs", "--timestamps", container, check=False)
    lines = []
    for line in (done.stdout + done.stderr).splitlines():
        stamp, _, text = line.partition(" ")
        try:
            when = datetime.fromisoformat(stamp).timestamp()
        except ValueError:
            continue
        lines.append((when, text))
    return lines


@dataclass
class Kill:
    """The owner's kill (wall clock): which container; when `podman kill` was run, and when it
    had delivered the signal (the fault: the failover is timed from it); when the owner's lease,
    read just after, runs out; when the new owner acknowledged the next move."""

    owner: str
    run_at: float
    at: float
    lease_ends: float | None = None
    # How long reading the lease took: the time it runs out is known to half of that.
    lease_read_s: float = 0.0
    resumed_at: float | None = None


def kill_timeline(stack: Compose, room_id: str, kill: Kill, players: list[TimedPlayer]) -> str:
    """What happened around the kill, each line in seconds after it (wall clock, podman's stamps
    on the containers' logs): the players' sockets, snapshots, moves and answers; the balancer
    marking servers down or up; the nodes' lines about the room (sockets accepted, the takeover)
    and their warnings; when podman was told to kill the owner and when it had, when podman saw
    the container stop (and start again, if it did), and when the owner's lease runs out."""
    events = [event for player in players for event in player.timeline]
    events.append((kill.run_at, f"podman kill {kill.owner}"))
    events.append((kill.at, "podman kill returned: the signal is delivered"))
    if kill.lease_ends is not None:
        margin = f"{kill.lease_read_s / 2:.2f}"
        events.append((kill.lease_ends, f"the owner's lease runs out (to {margin} s)"))
    state = inspect(kill.owner)["State"]
    for moment in ("FinishedAt", "StartedAt"):
        # RFC 3339 with nanoseconds: "2026-12-07T07:48:24.343782834Z"
        found = re.match(r"([-\dT:]+)(\.\d+)?Z", str(state.get(moment)))
        if found:
            when = datetime.fromisoformat(f"{found[1]}{(found[2] or '')[:7]}+00:00").timestamp()
            events.append((when, f"{kill.owner}: {moment}"))
    until = kill.at + 60 if kill.resumed_at is None else kill.resumed_at
    (balancer,) = stack.named("balancer")
    for when, text in stamped_logs(stack, balancer):
        if re.search(r"is (DOWN|UP)|MAINT|going DOWN|backup servers online", text):
            events.append((when, f"balancer: {text}"))
    for node in stack.named("app") + stack.named("node"):
        short = node.removeprefix(f"{stack.project}_")
        for when, text in stamped_logs(stack, node):
            if room_id in text or re.search(r"WARNING|ERROR|joined cluster|startup", text):
                events.append((when, f"{short}: {text.strip()[:160]}"))
    window = sorted(e for e in events if kill.at - 1.5 <= e[0] <= until + 2.0)
    return "\n".join(f"{when - kill.at:+7.2f} s  {what}" for when, what in window)


def acknowledged(players: list[TimedPlayer]) -> list[tuple[float, int]]:
    return sorted(ack for player in players for ack in player.acks)


async def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, f"{what}: not within {seconds} s"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def test_the_cluster_profile_plays_through_the_balancer_and_survives_a_killed_node(
    compose_project: Callable[..., Compose],
) -> None:
    port = free_port()
    stack = compose_project(
        "meldhall-test-cluster",
        {
            "POSTGRES_PASSWORD": PASSWORD,
            "MELDHALL_PORT": str(free_port()),
            "MELDHALL_CLUSTER_PORT": str(port),
            # The line of the README (and docs/self-hosting.md) that makes the app one of the nodes.
            "MELDHALL_REDIS_URL": "redis://redis:6379/0",
            **QUICK,
        },
        cluster=True,
    )
    url = f"http://127.0.0.1:{port}"
    step = Steps()
    with HealthChecks([f"label={PROJECT_LABEL}={stack.project}"]):
        stack.up()
        step("up -d")
        nodes = stack.named("app") + stack.named("node")
        assert len(nodes) == 3
        (balancer,) = stack.named("balancer")
        (redis,) = stack.named("redis")
        assert set(stack.running()) == {*nodes, balancer, redis, *stack.named("db")}
        # Checks 15 s apart, the first 15 s after each start: up to a minute on a busy machine.
        stack.wait_healthy(["app", "node"], seconds=180)
        wait_for_health(url)
        ids = {node_id(stack, node): node for node in nodes}
        assert len(ids) == 3
        # HAProxy sends sockets to every node once its checks see them all (1 s apart).
        deadline = time.monotonic() + 30
        while "3 active and 0 backup servers online" not in stack.logs(balancer):
            assert time.monotonic() < deadline, stack.logs(balancer)
            time.sleep(0.5)
        step("three nodes healthy and in the balancer")

        body = {"game": "gin_rummy", "players": 2, "options": {"target": 40}}
        room_id = rest(url, "POST", "/api/rooms", body)["room_id"]
        tokens = [
            rest(url, "POST", f"/api/rooms/{room_id}/join", {"name": f"p{seat}"})["token"]
            for seat in range(2)
        ]
        for token in tokens:
            ready(f"{url}/api/rooms/{room_id}/ready", token)
        ws_url = f"ws://127.0.0.1:{port}/ws/rooms/{room_id}"
        players = [
            TimedPlayer([ws_url], token, make_bot("gin_rummy", "normal", 7 + seat), f"seat{seat}",
                   pace_s=PACE_S)
            for seat, token in enumerate(tokens)
        ]  # fmt: skip

        kills: list[Kill] = []

        async def scenario() -> float:
            matches = [asyncio.create_task(player.play(240)) for player in players]
            await wait_for(lambda: len(acknowledged(players)) >= 4, 60, "the first moves")
            # The balancer put the two seats' sockets on different nodes.
            holding = [n for n in nodes if accepted_sockets(stack, n, room_id)]
            assert len(holding) == 2, {n: accepted_sockets(stack, n, room_id) for n in nodes}
            # The room's owner (its lease in Redis) is killed mid-match.
            key = f"meldhall:lease:{room_id}"
            holder = podman("exec", redis, "redis-cli", "GET", key).stdout.strip()
            run_at = time.time()
            await asyncio.to_thread(podman, "kill", ids[holder])
            kill = Kill(ids[holder], run_at, time.time())
            kills.append(kill)
            step(f"played a while, then killed the room's owner {kill.owner}")
            # When its lease runs out, renewed no more: read now, while the players play on.
            asked = time.time()
            script = "return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}"
            read = ("exec", redis, "redis-cli", "EVAL", script, "1", key)
            lease = await asyncio.to_thread(podman, *read)
            answered = time.time()
            if lease.stdout.split()[:1] == [holder]:
                kill.lease_ends = (asked + answered) / 2 + int(lease.stdout.split()[1]) / 1000
                kill.lease_read_s = answered - asked
            # A room's versions count from its owner's epoch times 10^9: an action acknowledged
            # at a version past the old epoch's was taken by the new owner.
            epoch = max(player.version for player in players) // 10**9
            await wait_for(
                lambda: bool([v for _, v in acknowledged(players) if v >= (epoch + 1) * 10**9]),
                60, "a move acknowledged by the new owner",
            )  # fmt: skip
            moved = [t for t, v in acknowledged(players) if v >= (epoch + 1) * 10**9]
            kill.resumed_at = min(moved)
            step("a move acknowledged by the new owner")
            await asyncio.gather(*matches)
            step("the match played to its end")
            return kill.resumed_at - kill.at

        try:
            resumed = asyncio.run(scenario())
        finally:
            for kill in kills:
                print(kill_timeline(stack, room_id, kill, players))
        print(f"killed {kills[0].owner}; the next move was acknowledged {resumed:.1f} s later")
        assert resumed <= FAILOVER_BOUND_S
        for player in players:
            assert player.finished
            assert player.versions_back == []
            assert {refusal["code"] for refusal in player.refusals} <= EXPECTED_REFUSALS
        results = [player.doc["game"]["result"] for player in players if player.doc is not None]
        assert len(results) == 2
        assert results[0] == results[1]

        stack.down()
        step("--profile cluster down")
        assert [c for c in stack.containers() if c["State"] == "running"] == []
        assert stack.containers() == []
        assert podman("pod", "exists", f"pod_{stack.project}", check=False).returncode != 0


def ready(url: str, token: str) -> None:
    request = urllib.request.Request(url, data=b"", method="POST", headers=bearer(token))
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
