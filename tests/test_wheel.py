"""A wheel built from the tracked files installs (not editable) and serves from any folder;
built with MELDHALL_COMPILE=1, it runs the hot modules compiled."""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import re
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
sys.path.insert(0, str(ROOT))

import hatch_build  # noqa: E402


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


def build_wheel(folder: Path, compile_hot_modules: bool) -> Path:
    source = clean_checkout(folder / "src")
    env = {key: value for key, value in os.environ.items() if key != "MELDHALL_COMPILE"}
    if compile_hot_modules:
        env["MELDHALL_COMPILE"] = "1"
    # Without build isolation: the backend comes from the dev dependencies, not the network.
    run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(folder), "."],
        cwd=source,
        env=env,
    )
    (built,) = folder.glob("meldhall-*.whl")
    return built


def install_in_fresh_venv(wheel: Path, venv: Path) -> Path:
    """A fresh virtualenv with the wheel installed; its dependencies are the test run's own
    (a path file after the install), so the test needs no package index."""
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", str(wheel)])
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "test_run_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("build"), compile_hot_modules=False)


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_in_fresh_venv(wheel, tmp_path_factory.mktemp("venv"))


@pytest.fixture(scope="module")
def compiled_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel as the Docker image builds it (about half a minute of mypyc and gcc)."""
    compiler = str(sysconfig.get_config_var("CC") or "").split()
    if not compiler or shutil.which(compiler[0]) is None:
        missing_service(
            "the compiled wheel needs the C compiler Python was built with "
            "(apt-get install -y gcc libc6-dev)"
        )
    for module in ("mypyc", "setuptools"):
        if importlib.util.find_spec(module) is None:
            missing_service(f"the compiled wheel needs {module} (pip install mypy setuptools)")
    return build_wheel(tmp_path_factory.mktemp("compiled"), compile_hot_modules=True)


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


def test_the_compiled_wheel_holds_each_hot_module_beside_its_source(
    wheel: Path, compiled_wheel: Path
) -> None:
    pure = set(zipfile.ZipFile(wheel).namelist())
    inside = set(zipfile.ZipFile(compiled_wheel).namelist())
    suffix = hatch_build.extension_suffix()
    compiled = {module.replace(".py", suffix) for module in hatch_build.HOT_MODULES}
    # The shared runtime of the compiled modules is a top-level module.
    compiled.add(f"{hatch_build.GROUP}__mypyc{suffix}")
    # Everything of the pure wheel (sources, client, migrations), and the extensions.
    assert inside - pure == compiled
    assert pure <= inside
    # Tagged for this Python and platform, and still the wheel the Dockerfile installs.
    assert not compiled_wheel.name.endswith("-py3-none-any.whl")
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    (pattern,) = re.findall(r"pip install --no-deps /tmp/wheels/(\S+\.whl)", dockerfile)
    assert fnmatch.fnmatch(compiled_wheel.name, pattern)


def test_the_installed_compiled_wheel_runs_the_compiled_modules(
    compiled_wheel: Path, tmp_path: Path
) -> None:
    venv = install_in_fresh_venv(compiled_wheel, tmp_path / "venv")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    modules = [module.removesuffix(".py").replace("/", ".") for module in hatch_build.HOT_MODULES]
    script = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    print(importlib.import_module(name).__file__)\n"
        "from app.games.gin_rummy import GinRummy\n"
        "from app.rooms.documents import make_patch\n"
        "match = GinRummy.new(GinRummy.validate_config({}, 2), 2, seed=7)\n"
        "before = match.view(None)\n"
        "seat = match.to_act()[0]\n"
        "match.apply(seat, match.legal_actions(seat)[0])\n"
        "print(len(make_patch(before, match.view(None))) > 0)\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    shown = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script, *modules],
        cwd=elsewhere, env=env, capture_output=True, text=True, check=True, timeout=60,
    ).stdout.split()  # fmt: skip
    *files, played = shown
    assert len(files) == len(modules)
    for file in map(Path, files):
        assert file.is_relative_to(venv), f"{file} is not the installed wheel's"
        assert file.name.endswith(hatch_build.extension_suffix()), f"{file} is not compiled"
    assert played == "True"
