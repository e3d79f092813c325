"""Checks on views that hold for every engine: what two viewers' views share is public."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch

from app.games.engine import Engine, SeatView

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


def reported_patch(engine: Engine) -> list[dict[str, Any]] | None:
    """The engine's report of its last change of the public view (paths under /game), checked:
    applied to the view before, it gives the view after. None if it reported none."""
    after = engine.view(None)
    change = engine.public_change("/game")
    if change is None:
        return None
    before, public, ops = change
    assert isinstance(after, SeatView)
    assert public is after.public
    document: dict[str, Any] = {"game": copy.deepcopy(before)}
    assert jsonpatch.apply_patch(document, ops) == {"game": after}
    return ops


def reported_own_patch(engine: Engine, seat: int) -> list[dict[str, Any]] | None:
    """The engine's report of what the current state changed in `seat`'s own part (paths under
    /game), checked: applied to the part before, it gives the part the seat's view holds now.
    None if it reported none."""
    view = engine.view(seat)
    change = engine.own_change(seat, "/game")
    if change is None:
        return None
    before, part, path, ops = change
    key = path.removeprefix("/game/")
    assert "/" not in key
    assert part is view[key]
    document: dict[str, Any] = {"game": {key: copy.deepcopy(before)}}
    assert jsonpatch.apply_patch(document, ops) == {"game": {key: part}}
    return ops
