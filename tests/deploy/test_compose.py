"""The image built from the Dockerfile, and docker-compose.yml's default services (the server and
PostgreSQL) run with podman-compose, both files unchanged: the server waits for a healthy
database, migrates, serves on the published port as a user that is not root and turns healthy;
a match against a bot is played to its end through that port over REST and the WebSocket; the
room and the history outlive `down` and `up -d`, and `down -v` removes them; a password full of
URL syntax in .env reaches the database and the server intact. And the image alone, on SQLite,
keeps a room on its volume across a replaced container."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
from collections.abc import Callable

import pytest

from examples.python_client import play, rest
from tests.deploy.podman import (
    PROJECT_LABEL,
    Compose,
    HealthChecks,
    Steps,
    get_json,
    health,
    podman,
    wait_for_health,
)
from tests.processes import free_port

pytestmark = [pytest.mark.containers, pytest.mark.timeout(900)]

# Every character that breaks a database URL, and a comment sign: .env and Compose must pass it
# on whole (a parser that cut the line at '#' would leave "p@ss/w:rd").
PASSWORD = "p@ss/w:rd#1"
# Bots answer at once and hands follow each other: the match is over in seconds.
QUICK = {"MELDHALL_BOT_DELAY_MS": "0", "MELDHALL_BETWEEN_HANDS_S": "1"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_image_keeps_its_health_check_and_user(image: str) -> None:
    inspected = json.loads(podman("image", "inspect", image).stdout)[0]
    assert inspected["Config"]["User"] == "meldhall"
    # Kept by Docker's image format (podman's default, OCI's, drops it).
    assert "/healthz" in " ".join(inspected["Healthcheck"]["Test"])
    size = int(podman("image", "inspect", "--format", "{{.Size}}", image).stdout)
    base = int(podman("image", "inspect", "--format", "{{.Size}}", "python:3.11-slim").stdout)
    print(f"{image}: {size / 1e6:.0f} MB, {(size - base) / 1e6:.0f} MB over its base")


def psql_logs_in(stack: Compose, password: str) -> bool:
    """Whether the database takes the password over TCP, as the server connects."""
    (db,) = stack.named("db")
    done = podman(
        "exec", "-e", f"PGPASSWORD={password}", db,
        "psql", "-h", "127.0.0.1", "-U", "meldhall", "-d", "meldhall", "-Atc", "select 1",
        check=False,
    )  # fmt: skip
    return done.returncode == 0


def test_compose_up_plays_and_keeps_the_data_until_down_v(
    compose_project: Callable[..., Compose],
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    stack = compose_project(
        "meldhall-test-default",
        {"POSTGRES_PASSWORD": PASSWORD, "MELDHALL_PORT": str(port), **QUICK},
    )
    step = Steps()
    with HealthChecks([f"label={PROJECT_LABEL}={stack.project}"]):
        # up -d: the database first, healthy, then the server (see tests/deploy/podman.py).
        stack.up()
        step("up -d")
        assert sorted(stack.running()) == sorted(stack.named("app") + stack.named("db"))
        (app,) = stack.named("app")
        wait_for_health(url)
        logs = stack.logs(app)
        assert logs.index("migrations applied") < logs.index("Application startup complete")
        # It did not have to restart to find the database: it waited for it.
        assert podman("inspect", "--format", "{{.RestartCount}}", app).stdout.strip() == "0"
        assert podman("exec", app, "id", "-u").stdout.strip() == "10001"
        stack.wait_healthy(["app"], seconds=120)
        step("the server healthy")

        # The password, with its @ / : #, reached the database and the server whole.
        assert psql_logs_in(stack, PASSWORD)
        assert not psql_logs_in(stack, PASSWORD.split("#")[0])

        # A match against a bot, played to its end through the published port.
        body = {"game": "gin_rummy", "options": {"target": 30}, "bots": [{"seat": 1}]}
        room = rest(url, "POST", "/api/rooms", body)["room_id"]
        joined = rest(url, "POST", f"/api/rooms/{room}/join", {"name": "py"})
        final = asyncio.run(asyncio.wait_for(play(url, room, joined["token"]), 240))
        assert final["room"]["status"] == "finished"
        assert final["game"]["result"] is not None
        step("a match against a bot played to its end")
        # And a room still waiting for players, one seat taken.
        waiting = rest(url, "POST", "/api/rooms", {"game": "rummikub", "players": 3})["room_id"]
        seat = rest(url, "POST", f"/api/rooms/{waiting}/join", {"name": "ann"})
        # The room is private: its history is read with a seat token of the match.
        history = get_json(f"{url}/api/matches", bearer(joined["token"]))
        assert history["total"] == 1

        # down, then up -d: the room and the history are still there.
        stack.down()
        assert stack.containers() == []
        assert stack.volume_exists("pgdata")
        assert stack.volume_exists("meldhall-data")
        stack.up()
        wait_for_health(url)
        step("down, up -d")
        assert get_json(f"{url}/api/matches", bearer(joined["token"])) == history
        kept = get_json(f"{url}/api/rooms/{waiting}")
        assert [s["name"] for s in kept["seats"] if s.get("name")] == ["ann"]
        state = get_json(f"{url}/api/rooms/{waiting}/state", bearer(seat["token"]))
        assert state["state"]["you"]["seat"] == seat["seat"]

        # down -v: gone.
        stack.down("-v")
        step("down -v")
        assert stack.containers() == []
        assert not stack.volume_exists("pgdata")
        assert not stack.volume_exists("meldhall-data")


def test_the_image_alone_keeps_a_room_on_sqlite_across_a_replaced_container(image: str) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    volume = "meldhall-test-sqlite-data"
    names = ["meldhall-test-sqlite-1", "meldhall-test-sqlite-2"]

    def remove() -> None:
        podman("rm", "-f", "-t", "2", *names, check=False)
        podman("volume", "rm", "-f", volume, check=False)

    def start(name: str) -> None:
        # The README's `docker run -d -p 8000:8000 -v meldhall-data:/data meldhall`.
        podman("run", "-d", "--name", name, "-p", f"{port}:8000", "-v", f"{volume}:/data", image)
        wait_for_health(url)

    remove()
    try:
        with HealthChecks(["name=meldhall-test-sqlite"]):
            start(names[0])
            room = rest(url, "POST", "/api/rooms", {"game": "gin_rummy", "bots": [{"seat": 1}]})
            seat = rest(url, "POST", f"/api/rooms/{room['room_id']}/join", {"name": "ann"})
            listed = podman("exec", names[0], "ls", "/data").stdout.split()
            assert "meldhall.db" in listed
            assert podman("exec", names[0], "id", "-u").stdout.strip() == "10001"
            wait_until_healthy(names[0])
            before = get_json(f"{url}/api/rooms/{room['room_id']}")
            podman("rm", "-f", names[0])

            start(names[1])
            kept = get_json(f"{url}/api/rooms/{room['room_id']}")
            assert [(s["name"], s["kind"]) for s in kept["seats"]] == [
                (s["name"], s["kind"]) for s in before["seats"]
            ]
            assert kept["seats"][seat["seat"]]["name"] == "ann"
            state = get_json(f"{url}/api/rooms/{room['room_id']}/state", bearer(seat["token"]))
            assert state["state"]["you"]["seat"] == seat["seat"]
            with pytest.raises(urllib.error.HTTPError):
                get_json(f"{url}/api/rooms/no-such-room")
    except BaseException:
        for name in names:
            print(f"--- {name}\n{podman('logs', name, check=False).stderr[-5000:]}")
        raise
    finally:
        remove()


def wait_until_healthy(name: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while health(name) != "healthy":
        assert time.monotonic() < deadline, f"{name} is {health(name)!r} after {seconds} s"
        time.sleep(0.5)
