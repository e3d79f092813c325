"""JSON Patch ops an engine writes itself for what a move changed in its public view."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Ops = list[dict[str, Any]]


def replace_changed(
    before: Mapping[str, Any], after: Mapping[str, Any], keys: Iterable[str], path: str, ops: Ops
) -> None:
    """Append to `ops` a `replace` at `path` of each of `keys` whose value changed (a part
    kept as the same object is passed over without comparing it)."""
    for key in keys:
        old, new = before[key], after[key]
        if old is not new and old != new:
            ops.append({"op": "replace", "path": f"{path}/{key}", "value": new})
