"""Each package of app/ imports only the parts of app/ that docs/design.md's table of layers
allows it ("The layers"): a rules engine knows nothing of rooms, a room nothing of HTTP, the
API nothing of the cluster. Imports at module level, under TYPE_CHECKING and inside functions
all count."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "app"

# What each package may import of app/, besides itself: docs/design.md's table.
ALLOWED = {
    "games": set(),
    "bots": {"games"},
    "storage": {"players", "resources"},
    "players": {"storage", "untrusted_text"},
    "metrics": {"rooms"},
    "rooms": {"games", "bots", "storage", "players", "metrics", "untrusted_text"},
    "api": {
        "games",
        "bots",
        "rooms",
        "storage",
        "players",
        "metrics",
        "settings",
        "resources",
        "untrusted_text",
    },
    "cluster": {"games", "rooms", "storage", "metrics"},
}


def imported_parts(package: str) -> dict[str, set[str]]:
    """For each part of app/ the package imports, the package's modules that import it."""
    found: dict[str, set[str]] = {}
    for path in sorted((APP / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "app" and len(parts) > 1 and parts[1] != package:
                    found.setdefault(parts[1], set()).add(str(path.relative_to(APP.parent)))
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_the_layers_it_may(package: str) -> None:
    found = imported_parts(package)
    beyond = {part: sorted(where) for part, where in found.items() if part not in ALLOWED[package]}
    assert not beyond, f"app/{package} imports what docs/design.md does not allow it: {beyond}"


def test_every_package_of_app_has_its_layer() -> None:
    packages = {path.parent.name for path in APP.glob("*/__init__.py")}
    assert packages == set(ALLOWED)
