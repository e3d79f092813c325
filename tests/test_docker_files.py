"""The Dockerfile, docker-compose.yml and .dockerignore say what self-hosting needs, and the
image's start command works when run as it is written (no Docker engine runs on these machines)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from sqlalchemy.engine import make_url

from app.settings import Settings
from tests.conftest import missing_service
from tests.server_process import free_port, wait_for_health
from tests.storage.databases import drop_postgres_database, fresh_postgres_database

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


# -- reading the files ---------------------------------------------------------------------


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


def stages() -> list[list[tuple[str, str]]]:
    """The instructions of each build stage, FROM first."""
    found: list[list[tuple[str, str]]] = []
    for word, args in dockerfile():
        if word == "FROM":
            found.append([])
        found[-1].append((word, args))
    return found


def final_stage() -> list[tuple[str, str]]:
    return stages()[-1]


def instruction(name: str, stage: list[tuple[str, str]] | None = None) -> list[str]:
    return [args for word, args in (stage or final_stage()) if word == name]


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


def substitute(value: str, dotenv: dict[str, str]) -> str:
    """Compose's ${NAME}, ${NAME:-default} and ${NAME:?error} with a .env file's values."""

    def one(found: re.Match[str]) -> str:
        name, form, word = found["name"], found["form"], found["word"] or ""
        if dotenv.get(name):
            return dotenv[name]
        if form == ":?":
            raise LookupError(f"compose refuses to start: {word}")
        return word

    pattern = r"\$\{(?P<name>[A-Z_]+)(?:(?P<form>:-|:\?)(?P<word>[^}]*))?\}"
    return re.sub(pattern, one, value)


def app_environment(dotenv: dict[str, str]) -> dict[str, str]:
    environment = compose()["services"]["app"]["environment"]
    return {key: substitute(str(value), dotenv) for key, value in environment.items()}


def settings_table() -> list[str]:
    """The variables of the settings table in docs/self-hosting.md, in order."""
    text = (ROOT / "docs" / "self-hosting.md").read_text(encoding="utf-8")
    table = text.split("\n## Settings", 1)[1].split("\n#", 1)[0]
    names: list[str] = []
    for row in table.splitlines():
        if row.startswith("| `"):
            names += re.findall(r"`([A-Z_]+)`", row.split("|")[1])
    return names


# -- docker-compose.yml ----------------------------------------------------------------------


def test_compose_has_the_app_and_postgres() -> None:
    services = compose()["services"]
    assert {"app", "db"} <= set(services)
    assert services["app"]["build"] == "."
    assert services["db"]["image"].startswith("postgres:")


def test_only_the_app_publishes_a_port_and_it_is_8000_inside() -> None:
    services = compose()["services"]
    # Beside the cluster profile's load balancer (below).
    assert [name for name, spec in services.items() if "ports" in spec] == ["app", "balancer"]
    (published,) = services["app"]["ports"]
    assert substitute(published, {"POSTGRES_PASSWORD": "x"}) == "8000:8000"
    assert substitute(published, {"MELDHALL_PORT": "9000"}) == "9000:8000"
    assert "ports" not in services["db"]
    # The published port is the host's; inside, the server stays on the image's 8000.
    assert "MELDHALL_PORT" not in services["app"]["environment"]


def test_postgres_keeps_its_data_in_a_named_volume() -> None:
    spec = compose()
    volume, _, target = spec["services"]["db"]["volumes"][0].partition(":")
    assert target == "/var/lib/postgresql/data"
    assert volume in spec["volumes"]


def test_postgres_is_healthy_only_once_the_real_server_answers_over_tcp() -> None:
    services = compose()["services"]
    check = services["db"]["healthcheck"]["test"]
    assert check[:2] == ["CMD", "pg_isready"]
    # The image's first-start initialisation listens on the Unix socket only.
    assert check[check.index("-h") + 1] == "127.0.0.1"
    assert services["app"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "/healthz" in " ".join(services["app"]["healthcheck"]["test"])


def test_compose_will_not_start_without_a_database_password() -> None:
    with pytest.raises(LookupError):
        app_environment({})
    with pytest.raises(LookupError):
        substitute(compose()["services"]["db"]["environment"]["POSTGRES_PASSWORD"], {})


def test_the_password_reaches_the_server_outside_the_url_whatever_its_characters() -> None:
    password = "p@ss/w:rd?#%"
    services = compose()["services"]
    environment = app_environment({"POSTGRES_PASSWORD": password})
    url = make_url(environment["DATABASE_URL"])
    db = services["db"]["environment"]
    assert url.drivername == "postgresql+asyncpg"
    assert (url.host, url.port) == ("db", 5432)
    assert (url.username, url.database) == (db["POSTGRES_USER"], db["POSTGRES_DB"])
    assert url.password is None
    # asyncpg, like libpq, takes the password from PGPASSWORD when the URL has none.
    assert environment["PGPASSWORD"] == password
    assert substitute(db["POSTGRES_PASSWORD"], {"POSTGRES_PASSWORD": password}) == password


def test_every_setting_of_the_readme_is_passed_to_the_server() -> None:
    passed = set(compose()["services"]["app"]["environment"])
    # The image fixes these: the data folder, where it listens (MELDHALL_PORT is the published
    # port instead), and the SQLite sync level (compose runs PostgreSQL).
    fixed = {"MELDHALL_DATA_DIR", "MELDHALL_HOST", "MELDHALL_PORT", "MELDHALL_SQLITE_SYNCHRONOUS"}
    # Each node of a compose cluster names itself (its container's host name, pid, a few
    # random digits): one name for every replica would be wrong.
    fixed |= {"MELDHALL_NODE_ID"}
    documented = set(settings_table())
    assert documented - fixed - passed == set()
    assert "MELDHALL_ALLOWED_ORIGINS" in passed


def test_every_setting_of_the_server_is_in_the_readme() -> None:
    documented = set(settings_table())
    for name, field in Settings.model_fields.items():
        variable = field.validation_alias or f"MELDHALL_{name.upper()}"
        assert variable in documented, f"{variable} is not in docs/self-hosting.md"


def test_settings_left_out_of_the_env_file_take_the_servers_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in app_environment({"POSTGRES_PASSWORD": "x"}).items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    expected = Settings(environment="production", DATABASE_URL=settings.database_url)
    assert settings == expected
    monkeypatch.setenv("MELDHALL_ALLOWED_ORIGINS", '["https://games.example.org"]')
    assert Settings().allowed_origins == ["https://games.example.org"]


def test_the_env_file_stays_out_of_git_and_of_the_image() -> None:
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".env" in ignored
    assert not in_build_context(".env")


# -- .dockerignore -----------------------------------------------------------------------------


def ignore_pattern(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern (Go filepath.Match with **) as a regular expression."""
    parts = re.split(r"(\*\*|\*|\?)", pattern.strip("/"))
    wild = {"**": ".*", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wild.get(part, re.escape(part)) for part in parts))


def in_build_context(path: str) -> bool:
    """Whether Docker sends `path` to the builder: the last pattern matching it or a parent
    folder decides."""
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    parents = ["/".join(path.split("/")[: i + 1]) for i in range(path.count("/") + 1)]
    included = True
    for pattern in patterns:
        keep = pattern.startswith("!")
        regex = ignore_pattern(pattern.removeprefix("!"))
        if any(regex.fullmatch(part) for part in parents):
            included = keep
    return included


@pytest.mark.parametrize(
    "path",
    [".env", ".git/config", ".venv/bin/python", "data/meldhall.db", "tests/test_health.py",
     "app/__pycache__/main.cpython-311.pyc", "test-artifacts/trace.zip", "node_modules/x.js"],
)  # fmt: skip
def test_the_build_context_leaves_out_secrets_data_and_caches(path: str) -> None:
    assert not in_build_context(path)


def test_the_build_context_holds_everything_the_dockerfile_copies() -> None:
    for stage in stages():
        for args in instruction("COPY", stage):
            if args.startswith("--from="):
                continue
            *sources, _target = shlex.split(args)
            for source in sources:
                files = [ROOT / source] if (ROOT / source).is_file() else (ROOT / source).rglob("*")
                for file in files:
                    # Build products of a checkout (bytecode, modules compiled in place) stay
                    # out: the image makes its own.
                    product = "__pycache__" in file.parts or file.suffix == ".so"
                    if file.is_file() and not product:
                        relative = str(file.relative_to(ROOT))
                        assert in_build_context(relative), f"{relative} is not in the context"


# -- the Dockerfile ----------------------------------------------------------------------------


def test_the_image_is_slim_python_built_in_two_stages() -> None:
    bases = [stage[0][1].split()[0] for stage in stages()]
    assert len(bases) == 2
    assert all(re.fullmatch(r"python:3\.1[1-9]-slim", base) for base in bases)
    for stage in stages():
        for args in instruction("COPY", stage):
            *sources, _target = shlex.split(args)
            for source in sources:
                if not source.startswith("--from="):
                    assert source.startswith("/") or (ROOT / source).exists(), source


def test_dependencies_come_from_the_locks_with_hashes_and_the_server_as_a_wheel() -> None:
    build, final = stages()
    build_runs = " ".join(instruction("RUN", build))
    assert "pip install --require-hashes -r requirements/build.lock" in build_runs
    assert "pip wheel --no-deps --no-build-isolation" in build_runs
    runs = instruction("RUN", final)
    assert any("pip install --require-hashes -r /tmp/server.lock" in run for run in runs)
    (install,) = [run for run in runs if ".whl" in run]
    assert "pip install --no-deps /tmp/wheels/meldhall-" in install
    assert "pip check" in install
    assert not [run for run in runs + instruction("RUN", build) if " -e " in run]


def test_the_build_stage_compiles_the_hot_modules_with_a_compiler_the_image_leaves_out() -> None:
    build, final = stages()
    runs = instruction("RUN", build)
    installs = [run for run in runs if "apt-get install" in run]
    assert len(installs) == 1, "the build stage should install a C compiler, in one step"
    compiler = installs[0]
    # One layer: the package lists are fetched and removed again in the same step.
    assert compiler.index("apt-get update") < compiler.index("apt-get install")
    assert "rm -rf /var/lib/apt/lists/*" in compiler
    assert "--no-install-recommends" in compiler
    assert {"gcc", "libc6-dev"} <= set(compiler.split())
    (wheel,) = [run for run in runs if "pip wheel" in run]
    assert "MELDHALL_COMPILE=1 pip wheel" in wheel
    assert runs.index(compiler) < runs.index(wheel)
    # The image itself gets the built wheel and no compiler.
    assert not [run for run in instruction("RUN", final) if "apt-get" in run or "gcc" in run]


def test_both_stages_run_the_same_python() -> None:
    # The compiled modules are built for the build stage's Python (its version in the wheel's
    # tag): the image must run that one.
    bases = {stage[0][1].split()[0] for stage in stages()}
    assert len(bases) == 1, bases


def locked(name: str) -> dict[str, str]:
    """Package -> pinned version in a lock file, each pin with at least one hash."""
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    pins: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", text):
        first = block.split(" ", 1)[0]
        if "==" in first:
            package, version = first.split("==")
            assert "--hash=sha256:" in block, f"{first} in {name} has no hash"
            pins[package.lower().replace("_", "-")] = version
    return pins


def test_the_server_lock_pins_every_dependency_within_its_range() -> None:
    pins = locked("server.lock")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for line in project["project"]["dependencies"]:
        requirement = Requirement(line)
        name = requirement.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned in requirements/server.lock"
        assert requirement.specifier.contains(pins[name]), (name, pins[name])
    # uvicorn[standard]'s extras too: the socket stack and the event loop.
    assert {"websockets", "uvloop"} <= set(pins)


def test_the_build_lock_pins_the_build_backend() -> None:
    pins = locked("build.lock")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for line in project["build-system"]["requires"]:
        requirement = Requirement(line)
        assert requirement.specifier.contains(pins[requirement.name])


def requirements_in(name: str) -> list[Requirement]:
    text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return [Requirement(line) for line in lines if line]


def test_the_build_lock_pins_what_the_compiled_build_needs() -> None:
    pins = locked("build.lock")
    wanted = {requirement.name: requirement for requirement in requirements_in("build.in")}
    for name, requirement in wanted.items():
        assert name in pins, f"{name} is in requirements/build.in but not in its lock"
        assert requirement.specifier.contains(pins[name]), (name, pins[name])
    # hatch_build.py's compile step: mypyc comes with mypy, and builds through setuptools.
    assert {"mypy", "setuptools"} <= set(wanted)
    # The mypy the modules are type-checked with (the dev dependencies) compiles them too.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    dev = [Requirement(line) for line in project["project"]["optional-dependencies"]["dev"]]
    (checker,) = [requirement for requirement in dev if requirement.name == "mypy"]
    assert checker.specifier == wanted["mypy"].specifier
    assert checker.specifier.contains(pins["mypy"])


def test_the_server_runs_as_a_user_that_is_not_root() -> None:
    words = [word for word, _ in final_stage()]
    (user,) = instruction("USER")
    assert user not in {"root", "0"}
    assert words.index("USER") < words.index("CMD")


def test_the_solver_is_compiled_into_the_image_where_the_server_user_finds_it() -> None:
    cache = image_env()["NUMBA_CACHE_DIR"]
    assert cache.startswith("/")
    words = [word for word, _ in final_stage()]
    runs = [(i, args) for i, (word, args) in enumerate(final_stage()) if word == "RUN"]
    (made,) = [args for _, args in runs if "NUMBA_CACHE_DIR" in args]
    assert "mkdir" in made
    assert "chown meldhall" in made
    (warm,) = [i for i, args in runs if "warm_up()" in args]
    assert words.index("USER") < warm < words.index("CMD")


def test_the_solver_cache_does_not_depend_on_the_cpu_it_was_built_on() -> None:
    # ENV in the final stage holds for its RUN steps (the compile) and the container alike.
    env = image_env()
    assert env["NUMBA_CPU_NAME"] == "generic"
    probe = (
        "from numba.core.registry import cpu_target;"
        "print(repr(cpu_target.target_context.codegen().magic_tuple()[1:]))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe],
        env={"NUMBA_CPU_NAME": env["NUMBA_CPU_NAME"], "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    # numba's cache key: (target triple, CPU name, CPU features); nothing of this machine.
    assert shown.strip() == "('generic', '')"


def test_the_health_check_asks_healthz() -> None:
    (check,) = instruction("HEALTHCHECK")
    assert "/healthz" in check
    assert "CMD" in check


def test_the_start_command_migrates_then_serves() -> None:
    (cmd,) = instruction("CMD")
    script = exec_form(cmd)[-1]
    assert script.index("meldhall migrate") < script.index("meldhall serve")
    assert "&&" in script


# -- the start command, run as written ---------------------------------------------------------


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
def test_the_start_command_serves_on_postgres_with_composes_environment(tmp_path: Path) -> None:
    url = asyncio.run(fresh_postgres_database())
    try:
        # Compose's own variables, pointed at the test server: the URL without a password,
        # and a password (full of URL syntax) passed on its own.
        compose_env = app_environment({"POSTGRES_PASSWORD": "p@ss/w:rd?#%"})
        test_url = make_url(url)
        database_url = make_url(compose_env.pop("DATABASE_URL")).set(
            host=test_url.host, port=test_url.port, database=test_url.database,
            username=test_url.username,
        )  # fmt: skip
        compose_env = {key: value for key, value in compose_env.items() if value}
        env = image_environment(
            tmp_path,
            **compose_env,
            DATABASE_URL=database_url.render_as_string(hide_password=False),
        )
        with running_image(tmp_path, env) as port:
            assert run_health_check(env) == 0
            assert match_count(port) == 0
        assert not (tmp_path / "data" / "meldhall.db").exists()
    finally:
        asyncio.run(drop_postgres_database(url))


@contextmanager
def postgres_with_passwords(role: str, password: str) -> Iterator[int]:
    """A private PostgreSQL server on loopback that checks passwords (SCRAM), unlike the
    shared test server; yields its port. Its superuser's password is never used by the test."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found or shutil.which("runuser") is None:
        missing_service("PostgreSQL's initdb (apt-get install postgresql) and runuser are needed")
    bin_dir = found[-1].parent
    # Not under tmp_path: pytest keeps that where only its owner may enter.
    folder = Path(tempfile.mkdtemp(prefix="meldhall-postgres-"))
    superuser = secrets.token_urlsafe(16)
    (folder / "pw").write_text(superuser + "\n")
    shutil.chown(folder, "postgres")
    shutil.chown(folder / "pw", "postgres")
    (folder / "log").touch()
    shutil.chown(folder / "log", "postgres")

    def as_postgres(*command: str) -> None:
        # Output to a file: the server started by pg_ctl would hold a pipe open for good.
        with open(folder / "log", "ab") as log:
            subprocess.run(
                ["runuser", "-u", "postgres", "--", *command],
                cwd=folder, check=True, stdout=log, stderr=log, timeout=120,
            )  # fmt: skip

    port = free_port()
    data = str(folder / "data")
    as_postgres(str(bin_dir / "initdb"), "-D", data, "--auth=scram-sha-256",
                f"--pwfile={folder / 'pw'}", "-U", "postgres")  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    as_postgres(
        str(bin_dir / "pg_ctl"), "-D", data, "-o", options, "-l", "server.log", "-w", "start"
    )
    try:
        quoted = password.replace("'", "''")
        sql = [
            f"CREATE ROLE {role} LOGIN PASSWORD '{quoted}'",
            f"CREATE DATABASE {role} OWNER {role}",
        ]
        for statement in sql:
            subprocess.run(
                ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-c", statement],
                env={**os.environ, "PGPASSWORD": superuser}, check=True, capture_output=True,
                timeout=60,
            )  # fmt: skip
        yield port
    finally:
        as_postgres(str(bin_dir / "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop")
        shutil.rmtree(folder)


@pytest.mark.postgres
def test_a_password_full_of_url_syntax_logs_in_as_compose_passes_it(tmp_path: Path) -> None:
    password = "p@ss/w:rd?#%'"
    environment = app_environment({"POSTGRES_PASSWORD": password})
    compose_url = make_url(environment["DATABASE_URL"])
    with postgres_with_passwords(compose_url.username or "", password) as port:
        url = compose_url.set(host="127.0.0.1", port=port).render_as_string(hide_password=False)
        # A failed start-up exits with status 3 and says why in one line (app.cli).
        for given, expected in ((password, 0), ("not the password", 3)):
            env = {**image_environment(tmp_path), "DATABASE_URL": url, "PGPASSWORD": given}
            done = subprocess.run(
                [str(VENV_BIN / "meldhall"), "migrate"],
                env=env, capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            assert done.returncode == expected, done.stderr[-2000:]


# -- the cluster profile ---------------------------------------------------------------------


def cluster_services() -> dict[str, Any]:
    services = compose()["services"]
    return {name: spec for name, spec in services.items() if "cluster" in spec.get("profiles", ())}


def test_the_default_stays_one_server_and_postgres() -> None:
    services = compose()["services"]
    default = {name for name, spec in services.items() if not spec.get("profiles")}
    assert default == {"app", "db"}
    # Alone unless .env says otherwise: no Redis in the app's environment by default.
    assert app_environment({"POSTGRES_PASSWORD": "x"})["MELDHALL_REDIS_URL"] == ""


def test_the_cluster_profile_has_nodes_redis_and_a_load_balancer() -> None:
    assert set(cluster_services()) == {"node", "redis", "balancer"}


def test_cluster_nodes_share_the_apps_database_and_settings_and_reach_redis() -> None:
    services = compose()["services"]
    node = services["node"]
    assert node["image"] == services["app"]["image"]
    app_settings = services["app"]["environment"]
    for key, value in app_settings.items():
        if key != "MELDHALL_REDIS_URL":
            assert node["environment"][key] == value, key
    assert node["environment"]["MELDHALL_REDIS_URL"] == "redis://redis:6379/0"
    assert substitute(str(node["deploy"]["replicas"]), {}) == "2"
    assert substitute(str(node["deploy"]["replicas"]), {"MELDHALL_CLUSTER_NODES": "5"}) == "5"
    assert node["depends_on"]["db"]["condition"] == "service_healthy"
    assert node["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "/healthz" in " ".join(node["healthcheck"]["test"])
    # The nodes publish nothing: they are reached through the load balancer.
    assert "ports" not in node
    assert "ports" not in services["redis"]


def test_the_docs_tell_the_app_to_join_the_cluster_as_compose_names_redis() -> None:
    for page in (ROOT / "README.md", ROOT / "docs" / "self-hosting.md"):
        text = page.read_text(encoding="utf-8")
        assert "MELDHALL_REDIS_URL=redis://redis:6379/0" in text, page.name
        assert "docker compose --profile cluster up" in text, page.name
    assert "MELDHALL_REDIS_URL=redis://redis:6379/0" in (ROOT / "docker-compose.yml").read_text()


def test_redis_keeps_nothing_and_reports_its_health() -> None:
    redis = compose()["services"]["redis"]
    assert redis["image"].startswith("redis:")
    assert redis["command"][redis["command"].index("--save") + 1] == ""
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_the_load_balancer_runs_the_projects_haproxy_configuration() -> None:
    balancer = compose()["services"]["balancer"]
    assert balancer["image"].startswith("haproxy:")
    (mount,) = balancer["volumes"]
    source, target, mode = mount.split(":")
    assert (ROOT / source).resolve() == ROOT / "deploy" / "haproxy.cfg"
    assert (target, mode) == ("/usr/local/etc/haproxy/haproxy.cfg", "ro")
    (published,) = balancer["ports"]
    assert substitute(published, {}) == "8080:8000"
    config = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert "bind *:8000" in config
    # It finds every node by its compose service name, health-checked, WebSockets passed on.
    assert re.search(r"server-template app \d+ app:8000 check resolvers docker", config)
    assert re.search(r"server-template node 1-\d+ node:8000 check resolvers docker", config)
    assert "option httpchk GET /healthz" in config
    assert "timeout tunnel" in config
    directives = [line for line in config.splitlines() if not line.lstrip().startswith("#")]
    assert [line for line in directives if "stick" in line or "cookie" in line] == []


def test_the_haproxy_configuration_is_valid() -> None:
    binary = shutil.which("haproxy")
    if binary is None:
        missing_service("HAProxy is not installed (apt-get install -y haproxy)")
    checked = subprocess.run(
        [binary, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
