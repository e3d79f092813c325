"""Optional compiled build of the hot pure modules (mypyc), with the sources as the fallback.

With MELDHALL_COMPILE=1, a wheel build (`pip wheel .`, the Docker image) compiles HOT_MODULES
with mypyc and puts the extension modules beside their sources in the wheel: Python imports an
extension before a `.py` of the same name, so a platform without the build's compiler, or a
checkout that never compiled, runs the same modules as plain Python. Without the variable the
wheel stays pure Python. The modules are strictly typed (mypy --strict), which is what mypyc
needs; the compiled code checks the annotations at run time, so the test suite passes against
both forms (run it once with the in-place build below to check a change).

    .venv/bin/python hatch_build.py --in-place     # compile into the checkout (bench, tests)
    .venv/bin/python hatch_build.py --clean        # remove them again: the sources run

An in-place build shadows the sources it was built from: edit a module, and `--in-place` again
or `--clean`. What it changes is measured in docs/performance.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
# The work of every move: the Gin Rummy and Rummikub engines and their views, the differ.
# Modules that subclass builtins (app/games/engine.py's SeatView) stay interpreted, and so do
# those whose classes are subclassed elsewhere (the fan-out's Connection, by the cluster's
# relayed connection): interpreted code cannot subclass a compiled class. Nor can a compiled
# class's methods be replaced on an instance: tests wrap one instead.
HOT_MODULES = [
    "app/rooms/documents.py",
    "app/games/gin_rummy/cards.py",
    "app/games/gin_rummy/engine.py",
    "app/games/gin_rummy/hand.py",
    "app/games/gin_rummy/melds.py",
    "app/games/gin_rummy/turns.py",
    "app/games/patches.py",
    "app/games/rummikub/engine.py",
    "app/games/rummikub/melds.py",
    "app/games/rummikub/play.py",
    "app/games/rummikub/tiles.py",
    "app/games/rummikub/turn.py",
    "app/games/rummikub/views.py",
]
# The extension holding the compiled modules' shared runtime: a top-level module.
GROUP = "meldhall_hot"


def extension_suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def compile_into(build_lib: Path, work: Path) -> list[Path]:
    """Compile HOT_MODULES under `build_lib` (package layout); the files it wrote."""
    script = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        "modules, target = sys.argv[1].split(','), sys.argv[2]\n"
        "sys.argv[1:] = ['-q', 'build_ext', '--build-lib', sys.argv[3], '--build-temp', target]\n"
        f"setup(name='meldhall-hot', packages=[], py_modules=[], ext_modules=mypycify("
        f"modules, opt_level='3', target_dir=target, group_name={GROUP!r}))\n"
    )
    command = [sys.executable, "-c", script, ",".join(HOT_MODULES), str(work), str(build_lib)]
    subprocess.run(command, cwd=ROOT, check=True)
    return sorted(path for path in build_lib.rglob(f"*{extension_suffix()}"))


def compiled_in_place() -> list[Path]:
    # Every extension in the package, also of modules since taken off the list.
    suffix = extension_suffix()
    found = sorted((ROOT / "app").rglob(f"*{suffix}"))
    found.append(ROOT / f"{GROUP}__mypyc{suffix}")
    return [path for path in found if path.exists()]


def clean() -> None:
    for path in compiled_in_place():
        path.unlink()


def in_place() -> None:
    clean()
    with tempfile.TemporaryDirectory(prefix="meldhall-compile-") as folder:
        build_lib = Path(folder) / "lib"
        for path in compile_into(build_lib, Path(folder) / "work"):
            shutil.copy2(path, ROOT / path.relative_to(build_lib))


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # pragma: no cover - only the command line above, without hatchling
    BuildHookInterface = object  # type: ignore[assignment,misc]


class CompileHotModules(BuildHookInterface):  # type: ignore[type-arg]
    """Hatch's build hook: compiles HOT_MODULES into a wheel when MELDHALL_COMPILE=1."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("MELDHALL_COMPILE") != "1" or version == "editable":
            return
        work = Path(self.directory) / "meldhall-compile"
        shutil.rmtree(work, ignore_errors=True)
        build_lib = work / "lib"
        for path in compile_into(build_lib, work / "work"):
            build_data["force_include"][str(path)] = str(path.relative_to(build_lib))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


if __name__ == "__main__":
    if sys.argv[1:] == ["--in-place"]:
        in_place()
        print("\n".join(str(path.relative_to(ROOT)) for path in compiled_in_place()))
    elif sys.argv[1:] == ["--clean"]:
        clean()
    else:
        sys.exit("usage: hatch_build.py --in-place | --clean")
