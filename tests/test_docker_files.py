"""The Dockerfile and docker-compose.yml say what self-hosting needs, and the image's start
command works when run as it is written (no Docker engine runs on these machines)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.engine import make_url

from app.settings import Settings
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    instructions = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            instructions.append((word.upper(), rest.strip()))
    return instructions


def instruction(name: str) -> list[str]:
    return [args for word, args in dockerfile() if word == name]


def exec_form(args: str) -> list[str]:
    parsed = json.loads(args)
    assert isinstance(parsed, list), f"{args} should be in exec form"
    return [str(part) for part in parsed]


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for args in instruction("ENV"):
        for pair in shlex.split(args):
            key, _, value = pair.partition("=")
            env[key] = value
    return env


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def with_defaults(value: str) -> str:
    """Compose's ${NAME:-default} substitution, as with an empty .env file."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def test_compose_has_the_app_and_postgres() -> None:
    services = compose()["services"]
    assert set(services) == {"app", "db"}
    assert services["app"]["build"] == "."
    assert services["db"]["image"].startswith("postgres:")


def test_only_the_app_publishes_a_port_and_it_is_8000_inside() -> None:
    services = compose()["services"]
    (published,) = services["app"]["ports"]
    assert with_defaults(published) == "8000:8000"
    assert "ports" not in services["db"]


def test_postgres_keeps_its_data_in_a_named_volume() -> None:
    spec = compose()
    volume, _, target = spec["services"]["db"]["volumes"][0].partition(":")
    assert target == "/var/lib/postgresql/data"
    assert volume in spec["volumes"]


def test_postgres_is_health_checked_and_the_app_waits_for_it() -> None:
    services = compose()["services"]
    assert "pg_isready" in " ".join(services["db"]["healthcheck"]["test"])
    assert services["app"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "/healthz" in " ".join(services["app"]["healthcheck"]["test"])


def test_the_app_reaches_the_compose_database_through_an_async_url() -> None:
    services = compose()["services"]
    url = make_url(with_defaults(services["app"]["environment"]["DATABASE_URL"]))
    db = services["db"]["environment"]
    assert url.drivername == "postgresql+asyncpg"
    assert (url.host, url.port) == ("db", 5432)
    assert (url.username, url.database) == (db["POSTGRES_USER"], db["POSTGRES_DB"])
    assert url.password == with_defaults(db["POSTGRES_PASSWORD"])
    settings = Settings(DATABASE_URL=url.render_as_string(hide_password=False))
    assert settings.resolved_database_url.startswith("postgresql+asyncpg://")


def test_the_image_is_slim_python_and_installs_from_pyproject() -> None:
    (base,) = instruction("FROM")
    assert re.fullmatch(r"python:3\.1[1-9]-slim", base)
    assert any("pyproject.toml" in args for args in instruction("RUN"))
    for args in instruction("COPY"):
        *sources, _target = shlex.split(args)
        for source in sources:
            assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is missing"


def test_the_server_runs_as_a_user_that_is_not_root() -> None:
    words = [word for word, _ in dockerfile()]
    (user,) = instruction("USER")
    assert user not in {"root", "0"}
    assert words.index("USER") < words.index("CMD")


def test_the_solver_is_compiled_into_the_image_where_the_server_user_finds_it() -> None:
    cache = image_env()["NUMBA_CACHE_DIR"]
    assert cache.startswith("/")
    words = [word for word, _ in dockerfile()]
    runs = [(i, args) for i, (word, args) in enumerate(dockerfile()) if word == "RUN"]
    (made,) = [args for _, args in runs if "NUMBA_CACHE_DIR" in args]
    assert "mkdir" in made
    assert "chown meldhall" in made
    (warm,) = [i for i, args in runs if "warm_up()" in args]
    assert words.index("USER") < warm < words.index("CMD")


def test_the_health_check_asks_healthz() -> None:
    (check,) = instruction("HEALTHCHECK")
    assert "/healthz" in check
    assert "CMD" in check


def test_the_start_command_migrates_then_serves() -> None:
    (cmd,) = instruction("CMD")
    script = exec_form(cmd)[-1]
    assert script.index("meldhall migrate") < script.index("meldhall serve")
    assert "&&" in script


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_health(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited during start"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer /healthz in time")


def image_environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The image's ENV, changed only to listen on loopback at a free port with scratch folders."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(image_env())
    env.update(
        MELDHALL_HOST="127.0.0.1",
        MELDHALL_PORT=str(free_port()),
        MELDHALL_DATA_DIR=str(tmp_path / "data"),
        NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"),
        PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    env.update(extra)
    return env


@contextmanager
def running_image(tmp_path: Path, env: dict[str, str]) -> Iterator[int]:
    """The image's CMD, run as written; yields the port once /healthz answers."""
    command = exec_form(instruction("CMD")[0])
    process = subprocess.Popen(command, cwd=tmp_path, env=env)
    try:
        port = int(env["MELDHALL_PORT"])
        wait_for_health(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def run_health_check(env: dict[str, str]) -> int:
    (check,) = instruction("HEALTHCHECK")
    command = exec_form(check.split(" CMD ", 1)[1])
    return subprocess.run(command, env=env, timeout=10, check=False).returncode


def match_count(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/matches", timeout=5) as answer:
        return int(json.load(answer)["total"])


def test_the_start_command_serves_on_a_sqlite_file_in_the_data_folder(tmp_path: Path) -> None:
    env = image_environment(tmp_path)
    with running_image(tmp_path, env) as port:
        assert run_health_check(env) == 0
        assert match_count(port) == 0
    assert (tmp_path / "data" / "meldhall.db").is_file()


@pytest.mark.postgres
def test_the_start_command_serves_on_postgres(tmp_path: Path) -> None:
    url = asyncio.run(fresh_postgres_database())
    try:
        env = image_environment(tmp_path, DATABASE_URL=url)
        with running_image(tmp_path, env) as port:
            assert run_health_check(env) == 0
            assert match_count(port) == 0
        assert not (tmp_path / "data" / "meldhall.db").exists()
    finally:
        asyncio.run(drop_postgres_database(url))
