"""The optional compiled build (hatch_build.py): what it compiles exists, and a checkout never
runs a compiled module older than its source."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hatch_build  # noqa: E402


def test_every_hot_module_is_a_module_of_the_package() -> None:
    for module in hatch_build.HOT_MODULES:
        assert (ROOT / module).is_file(), module
        assert module.startswith("app/")


def test_modules_compiled_in_place_are_not_older_than_their_sources() -> None:
    # An in-place build shadows the sources: an edit after it would not run (nor be tested).
    for module in hatch_build.HOT_MODULES:
        compiled = ROOT / module.replace(".py", hatch_build.extension_suffix())
        if compiled.exists():
            assert compiled.stat().st_mtime >= (ROOT / module).stat().st_mtime, (
                f"{compiled.name} is older than {module}: run hatch_build.py --in-place or --clean"
            )


def test_a_hot_module_imports_in_whichever_form_the_checkout_has() -> None:
    documents = importlib.import_module("app.rooms.documents")
    assert documents.make_patch({"a": [1]}, {"a": [1, 2]}) == [
        {"op": "add", "path": "/a/-", "value": 2}
    ]
