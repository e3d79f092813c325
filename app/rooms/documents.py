"""State documents and the exact JSON Patch (RFC 6902) between two of them.

A document is what one viewer may know (built from `engine.view(seat)` only), so a patch
between two documents can never carry anything the viewer may not see. A move whose change of
the viewer's game view the engine derives (`Engine.move_patch`) is not built: the document's
game part is then `UNBUILT`, and `patch_around` puts the engine's ops where its diff would be.

The differ is deliberately simple: objects are compared key by key, lists element by element
when their lengths match, a list that only grew gets `add` at the end, a list that only shrank
at the end gets `remove`s, and any other list change (including a list emptied or filled from
empty) is one `replace`. This is exact (applying the patch gives the new document) and much
faster than a general minimal-diff search; see bench/bench_diff.py for the measurement against
the jsonpatch library.

A seat's view (`SeatView`) is the public view with a few keys of its own: between two such
views the differ diffs the public views (once per change for all viewers, when they share a
`Shared`) and then only the own keys, so the part every viewer sees alike is walked once. A
change put in `Shared` beforehand (the engine's report of a move) is taken as it is, for the
public view and for an own key's value alike.
"""

from __future__ import annotations

from typing import Any

from app.games.engine import SeatView

Patch = list[dict[str, Any]]
Document = dict[str, Any]
# The patch between two public views at a path, by their identities (the entry holds both, so
# neither id can be reused by another object while it is kept).
Shared = dict[tuple[int, int], tuple[Any, Any, str, Patch]]
_ABSENT = object()


def escape(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


class _Unbuilt:
    """The value of a document's part that was brought up to date by a patch and not built."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNBUILT"


# A kept document's part that was patched, not built: never sent, and any later diff of that
# part replaces it whole (its type is no JSON type).
UNBUILT: Any = _Unbuilt()


def patch_around(old: Document, new: Document, key: str, known: Patch) -> Patch:
    """The patch from document `old` to `new` (the same keys) where the change of the part at
    `key` is `known`; the other parts are diffed."""
    ops: Patch = []
    shared: Shared = {}
    for name, value in new.items():
        if name == key:
            ops.extend(known)
        elif old[name] is not value:
            _diff(old[name], value, f"/{escape(name)}", ops, shared)
    return ops


def make_patch(old: Any, new: Any, shared: Shared | None = None) -> Patch:
    """The patch from `old` to `new`; documents diffed with one `shared` (nothing changing in
    between) diff the public views they hold once."""
    ops: Patch = []
    _diff(old, new, "", ops, {} if shared is None else shared)
    return ops


# Python's == on whole subtrees runs in C and settles most of a document at once, so the walk
# below only descends where something changed, and views that keep unchanged parts as the same
# objects let `is` settle those before any comparison. It treats True == 1 and 1 == 1.0 as
# equal inside containers; documents keep one type per field, so that never arises. The checks
# are written out inline in the loops (rather than one function per value) because a function
# call per changed key was a fifth of the differ's time.


def _diff(old: Any, new: Any, path: str, ops: Patch, shared: Shared) -> None:
    kind = type(new)
    if type(old) is not kind:
        _diff_kinds(old, new, path, ops, shared)
    elif kind is SeatView:
        _diff_views(old, new, path, ops, shared)
    elif kind is dict:
        _diff_objects(old, new, path, ops, shared)
    elif kind is list:
        _diff_lists(old, new, path, ops, shared)
    elif old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_kinds(old: Any, new: Any, path: str, ops: Patch, shared: Shared) -> None:
    """Values of two types: a view and a plain object are both JSON objects."""
    if isinstance(old, dict) and isinstance(new, dict):
        _diff_objects(old, new, path, ops, shared)
    else:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_views(old: SeatView, new: SeatView, path: str, ops: Patch, shared: Shared) -> None:
    own = new.own
    if old.own != own:
        _diff_objects(old, new, path, ops, shared)
        return
    # Outside the own keys each view holds its public view's very values.
    before, after = old.public, new.public
    made = shared.get((id(before), id(after)))
    if made is None or made[0] is not before or made[1] is not after or made[2] != path:
        public: Patch = []
        _diff_objects(before, after, path, public, shared)
        made = shared[(id(before), id(after))] = (before, after, path, public)
    clash = False
    for key in own:
        if before.get(key, _ABSENT) is not after.get(key, _ABSENT):
            clash = True
    if not clash:
        # The public values of the own keys did not change, so no public op touches them.
        ops.extend(made[3])
    else:
        mine = {escape(key) for key in own}
        start = len(path) + 1
        for op in made[3]:
            if op["path"][start:].split("/", 1)[0] not in mine:
                ops.append(op)
    for key in own:
        value, fresh = old[key], new[key]
        if value is not fresh:
            where = f"{path}/{escape(key)}"
            # A part whose change the engine reported (a seat's own cards after its move).
            known = shared.get((id(value), id(fresh)))
            if known is not None and known[0] is value and known[1] is fresh and known[2] == where:
                ops.extend(known[3])
            else:
                _diff(value, fresh, where, ops, shared)


def _diff_objects(
    old: dict[str, Any], new: dict[str, Any], path: str, ops: Patch, shared: Shared
) -> None:
    kept = 0
    for key, value in old.items():
        fresh = new.get(key, _ABSENT)
        if fresh is _ABSENT:
            ops.append({"op": "remove", "path": f"{path}/{escape(key)}"})
            continue
        kept += 1
        if value is fresh:
            continue
        kind = type(fresh)
        if type(value) is not kind:
            _diff_kinds(value, fresh, f"{path}/{escape(key)}", ops, shared)
        elif kind is SeatView:
            _diff_views(value, fresh, f"{path}/{escape(key)}", ops, shared)
        elif value == fresh:
            continue
        elif kind is dict:
            _diff_objects(value, fresh, f"{path}/{escape(key)}", ops, shared)
        elif kind is list:
            _diff_lists(value, fresh, f"{path}/{escape(key)}", ops, shared)
        else:
            ops.append({"op": "replace", "path": f"{path}/{escape(key)}", "value": fresh})
    # Every key of `new` was seen above unless it holds more keys than were kept.
    if kept != len(new):
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{escape(key)}", "value": value})


def _diff_lists(old: list[Any], new: list[Any], path: str, ops: Patch, shared: Shared) -> None:
    common = min(len(old), len(new))
    # A list emptied or filled from empty (a seat's legal actions, every turn) is one op.
    if len(old) != len(new) and (not common or old[:common] != new[:common]):
        ops.append({"op": "replace", "path": path, "value": new})
        return
    for index in range(common):
        before, after = old[index], new[index]
        if before is after:
            continue
        kind = type(after)
        if type(before) is not kind or kind is SeatView:
            _diff(before, after, f"{path}/{index}", ops, shared)
        elif before == after:
            continue
        elif kind is dict:
            _diff_objects(before, after, f"{path}/{index}", ops, shared)
        elif kind is list:
            _diff_lists(before, after, f"{path}/{index}", ops, shared)
        else:
            ops.append({"op": "replace", "path": f"{path}/{index}", "value": after})
    for index in range(common, len(new)):
        ops.append({"op": "add", "path": f"{path}/-", "value": new[index]})
    # Remove from the end backwards so every index stays valid while the patch is applied.
    for index in range(len(old) - 1, common - 1, -1):
        ops.append({"op": "remove", "path": f"{path}/{index}"})
