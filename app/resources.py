"""The folders the server reads at run time: the browser client and the migrations.

The repository keeps `static/` and `migrations/` at its top level, beside `app/`. A built wheel
carries them inside the package instead (pyproject.toml maps them in at build time), so an
installed server finds them wherever it runs; an editable install reads them from the checkout.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def bundled(name: str) -> Path:
    """`app/<name>` in an installed wheel, else `<checkout>/<name>` beside the package."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else PACKAGE.parent / name


STATIC = bundled("static")
MIGRATIONS = bundled("migrations")
