"""The usual ways to start a Python web server all start this one, from any folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.server_process import fetch, free_port, scratch_environment, serving

PYTHON = sys.executable
UVICORN = str(Path(sys.executable).parent / "uvicorn")


def readme_uvicorn_command(port: int) -> list[str]:
    """The `uvicorn app.main:app ...` line of docs/self-hosting.md, on `port`."""
    page = Path(__file__).resolve().parent.parent / "docs" / "self-hosting.md"
    readme = page.read_text(encoding="utf-8")
    (line,) = [line for line in readme.splitlines() if line.startswith("uvicorn app.main:app")]
    words = line.split()
    words[words.index("--port") + 1] = str(port)
    return [UVICORN, *words[1:]]


def commands(port: int) -> dict[str, list[str]]:
    return {
        "uvicorn as the docs say": readme_uvicorn_command(port),
        "meldhall serve": [str(Path(PYTHON).parent / "meldhall"), "serve"],
        "python -m app": [PYTHON, "-m", "app"],
        "python -m app.cli serve": [PYTHON, "-m", "app.cli", "serve"],
        "uvicorn app.main:app": [UVICORN, "app.main:app", "--port", str(port)],
    }


@pytest.mark.parametrize(
    "way",
    [
        "meldhall serve",
        "python -m app",
        "python -m app.cli serve",
        "uvicorn app.main:app",
        "uvicorn as the docs say",
    ],
)
def test_the_server_starts_and_serves_the_client_and_its_own_log(tmp_path: Path, way: str) -> None:
    port = free_port()
    env = scratch_environment(tmp_path, MELDHALL_PORT=str(port), MELDHALL_LOG_LEVEL="info")
    log = tmp_path / "server.log"
    with serving(commands(port)[way], port, cwd=tmp_path, env=env, log=log):
        assert '<script type="module" src="/js/app.js">' in fetch(port, "/")
        assert '"total":0' in fetch(port, "/api/matches")
    assert (tmp_path / "data" / "meldhall.db").is_file()
    # The server's own logger is configured, not only uvicorn's.
    assert "meldhall: matches are kept in sqlite+aiosqlite:///" in log.read_text()


def test_python_m_app_passes_its_arguments_to_serve(tmp_path: Path) -> None:
    port = free_port()
    env = scratch_environment(tmp_path)
    with serving([PYTHON, "-m", "app", "--port", str(port)], port, cwd=tmp_path, env=env):
        assert fetch(port, "/healthz") == '{"status":"ok"}'
