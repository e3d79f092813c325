"""A wheel built from the tracked files installs (not editable) and serves from any folder."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import missing_service
from tests.server_process import fetch, free_port, scratch_environment, serving

ROOT = Path(__file__).resolve().parent.parent


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        missing_service("building from a clean checkout needs git and a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30
    )
    return [name for name in listed.stdout.decode().split("\0") if name]


def clean_checkout(target: Path) -> Path:
    """The tracked files only (as in a fresh clone): no caches, databases or virtualenvs."""
    for name in tracked_files():
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("build")
    source = clean_checkout(folder / "src")
    # Without build isolation: the backend comes from the dev dependencies, not the network.
    run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(folder), "."],
        cwd=source,
    )
    (built,) = folder.glob("meldhall-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the wheel installed; its dependencies are the test run's own
    (a path file after the install), so the test needs no package index."""
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", str(wheel)])
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "test_run_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def test_the_wheel_carries_the_client_and_the_migrations(wheel: Path) -> None:
    inside = set(zipfile.ZipFile(wheel).namelist())
    for name in tracked_files():
        folder = name.split("/", 1)[0]
        if folder in {"app", "static", "migrations"} and not name.endswith("/.gitkeep"):
            expected = name if folder == "app" else f"app/{name}"
            assert expected in inside, f"{name} is not in the wheel"
    assert not [name for name in inside if "__pycache__" in name]


def test_the_installed_server_migrates_and_serves_from_an_unrelated_folder(
    installed: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = scratch_environment(elsewhere, MELDHALL_LOG_LEVEL="warning")
    env.pop("PYTHONPATH", None)
    where = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import app; print(app.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert Path(where.strip()).is_relative_to(installed), "the checkout was imported"

    meldhall = str(installed / "bin" / "meldhall")
    run([meldhall, "migrate"], cwd=elsewhere, env=env)
    assert (elsewhere / "data" / "meldhall.db").stat().st_size > 0
    port = free_port()
    env["MELDHALL_PORT"] = str(port)
    with serving([meldhall, "serve"], port, cwd=elsewhere, env=env):
        assert '<script type="module" src="/js/app.js">' in fetch(port, "/")
        assert "export" in fetch(port, "/js/app.js")
        assert fetch(port, "/healthz") == '{"status":"ok"}'
        assert '"name":"gin_rummy"' in fetch(port, "/api/games")
