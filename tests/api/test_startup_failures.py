"""A server that cannot start says why in one line, with what to do, and exits non-zero; the
traceback shows only at debug level."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.api.live import free_port
from tests.conftest import POSTGRES_URL

MELDHALL = Path(sys.executable).parent / "meldhall"


def run(command: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {key: value for key, value in os.environ.items() if not key.startswith("MELDHALL_")}
    base.pop("DATABASE_URL", None)
    base |= {
        "MELDHALL_DATA_DIR": str(tmp_path / "data"),
        "MELDHALL_SOLVER_WARM_UP": "false",
        "MELDHALL_PORT": str(free_port()),
    }
    return subprocess.run(
        [str(MELDHALL), command],
        env=base | env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


def failure_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if "ERROR" in line or "meldhall:" in line]


def unused_postgres_port() -> str:
    return make_url(POSTGRES_URL).set(port=free_port()).render_as_string(hide_password=False)


def missing_postgres_database() -> str:
    return (
        make_url(POSTGRES_URL)
        .set(database="meldhall_no_such_database")
        .render_as_string(hide_password=False)
    )


CASES = {
    "postgres_unreachable": (
        lambda tmp: {"DATABASE_URL": unused_postgres_port()},
        "cannot reach PostgreSQL",
    ),
    "postgres_database_missing": (
        lambda tmp: {"DATABASE_URL": missing_postgres_database()},
        "has no database 'meldhall_no_such_database': create it",
    ),
    "data_folder_not_a_folder": (
        lambda tmp: {"MELDHALL_DATA_DIR": str(tmp / "a_file" / "data")},
        "cannot use the data folder",
    ),
    "file_not_a_database": (
        lambda tmp: {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'notes.txt'}"},
        "is not a SQLite database: move that file away",
    ),
}


def prepare(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("not a folder")
    (tmp_path / "notes.txt").write_text("these are notes, not a database\n" * 200)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["serve", "migrate"])
def test_a_start_that_fails_says_why_in_one_line_and_exits_non_zero(
    case: str, command: str, tmp_path: Path
) -> None:
    prepare(tmp_path)
    env, expected = CASES[case]
    done = run(command, tmp_path, **env(tmp_path))
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = failure_lines(done)
    assert len(lines) == 1, done.stderr
    assert expected in lines[0]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"MELDHALL_PORT": "eighty"}, "MELDHALL_PORT: Input should be a valid integer"),
        ({"DATABASE_URL": "mysql://db/meldhall"}, "DATABASE_URL must use an async driver"),
        ({"MELDHALL_LOG_LEVEL": "loud"}, "MELDHALL_LOG_LEVEL: Input should be"),
        # A cluster shares its database: not a SQLite file, which one server holds alone.
        ({"MELDHALL_REDIS_URL": "redis://127.0.0.1:6379/0"}, "a cluster"),
        ({"MELDHALL_REDIS_URL": "http://127.0.0.1:6379"}, "MELDHALL_REDIS_URL must start"),
        ({"MELDHALL_NODE_ID": "no spaces"}, "MELDHALL_NODE_ID may hold only"),
    ],
)
def test_bad_settings_are_named_by_their_variable_in_one_line(
    env: dict[str, str], expected: str, tmp_path: Path
) -> None:
    done = run("serve", tmp_path, **env)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("meldhall: bad settings: ")
    assert expected in done.stderr


def test_an_asgi_server_loading_the_app_names_bad_settings_in_one_line(tmp_path: Path) -> None:
    base = {key: value for key, value in os.environ.items() if not key.startswith("MELDHALL_")}
    done = subprocess.run(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(free_port())],
        env=base | {"MELDHALL_PORT": "eighty", "MELDHALL_DATA_DIR": str(tmp_path / "data")},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "meldhall: bad settings: MELDHALL_PORT: Input should be a valid integer, unable to parse "
        "string as an integer"
    ]


def test_the_traceback_shows_at_debug_level(tmp_path: Path) -> None:
    prepare(tmp_path)
    done = run(
        "serve",
        tmp_path,
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'notes.txt'}",
        MELDHALL_LOG_LEVEL="debug",
    )
    assert done.returncode == 3
    assert "Traceback" in done.stderr
    assert "is not a SQLite database" in done.stderr


@pytest.mark.postgres
def test_a_cluster_node_that_cannot_reach_redis_says_so_in_one_line(tmp_path: Path) -> None:
    done = run(
        "serve",
        tmp_path,
        DATABASE_URL=POSTGRES_URL,
        MELDHALL_REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if "ERROR" in line]
    assert len(lines) == 1, done.stderr
    assert "cannot reach Redis at redis://127.0.0.1:" in lines[0]
    # Found before the database is touched.
    assert "alembic" not in done.stderr
    assert "MELDHALL_REDIS_URL" in lines[0]
