"""Checks on views that hold for every engine: what two viewers' views share is public."""

from __future__ import annotations

from typing import Any

Parts = dict[int, Any]


def _collect(value: Any, found: Parts) -> None:
    if isinstance(value, dict | list) and id(value) not in found:
        found[id(value)] = value
        for item in value.values() if isinstance(value, dict) else value:
            _collect(item, found)


def parts_of(view: Any) -> Parts:
    """Every list and object in a view, by identity."""
    found: Parts = {}
    _collect(view, found)
    return found


def shared_parts(first: Parts, second: Parts) -> list[Any]:
    """The lists and objects that two views hold as the very same object."""
    return [first[key] for key in first.keys() & second.keys()]
