"""State documents and the exact JSON Patch (RFC 6902) between two of them.

A document is what one viewer may know (built from `engine.view(seat)` only), so a patch
between two documents can never carry anything the viewer may not see.

The differ is deliberately simple: objects are compared key by key, lists element by element
when their lengths match, a list that only grew gets `add` at the end, a list that only shrank
at the end gets `remove`s, and any other list change (including a list emptied or filled from
empty) is one `replace`. This is exact (applying the patch gives the new document) and much
faster than a general minimal-diff search; see bench/bench_diff.py for the measurement against
the jsonpatch library.
"""

from __future__ import annotations

from typing import Any

Patch = list[dict[str, Any]]
_ABSENT = object()


def escape(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def make_patch(old: Any, new: Any) -> Patch:
    ops: Patch = []
    _diff(old, new, "", ops)
    return ops


# Python's == on whole subtrees runs in C and settles most of a document at once, so the walk
# below only descends where something changed, and views that keep unchanged parts as the same
# objects let `is` settle those before any comparison. It treats True == 1 and 1 == 1.0 as
# equal inside containers; documents keep one type per field, so that never arises. The checks
# are written out inline in the loops (rather than one function per value) because a function
# call per changed key was a fifth of the differ's time.


def _diff(old: Any, new: Any, path: str, ops: Patch) -> None:
    kind = type(new)
    if type(old) is not kind:
        ops.append({"op": "replace", "path": path, "value": new})
    elif kind is dict:
        _diff_objects(old, new, path, ops)
    elif kind is list:
        _diff_lists(old, new, path, ops)
    elif old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_objects(old: dict[str, Any], new: dict[str, Any], path: str, ops: Patch) -> None:
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
            ops.append({"op": "replace", "path": f"{path}/{escape(key)}", "value": fresh})
        elif value == fresh:
            continue
        elif kind is dict:
            _diff_objects(value, fresh, f"{path}/{escape(key)}", ops)
        elif kind is list:
            _diff_lists(value, fresh, f"{path}/{escape(key)}", ops)
        else:
            ops.append({"op": "replace", "path": f"{path}/{escape(key)}", "value": fresh})
    # Every key of `new` was seen above unless it holds more keys than were kept.
    if kept != len(new):
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{escape(key)}", "value": value})


def _diff_lists(old: list[Any], new: list[Any], path: str, ops: Patch) -> None:
    shared = min(len(old), len(new))
    # A list emptied or filled from empty (a seat's legal actions, every turn) is one op.
    if len(old) != len(new) and (not shared or old[:shared] != new[:shared]):
        ops.append({"op": "replace", "path": path, "value": new})
        return
    for index in range(shared):
        before, after = old[index], new[index]
        if before is after:
            continue
        kind = type(after)
        if type(before) is not kind:
            ops.append({"op": "replace", "path": f"{path}/{index}", "value": after})
        elif before == after:
            continue
        elif kind is dict:
            _diff_objects(before, after, f"{path}/{index}", ops)
        elif kind is list:
            _diff_lists(before, after, f"{path}/{index}", ops)
        else:
            ops.append({"op": "replace", "path": f"{path}/{index}", "value": after})
    for index in range(shared, len(new)):
        ops.append({"op": "add", "path": f"{path}/-", "value": new[index]})
    # Remove from the end backwards so every index stays valid while the patch is applied.
    for index in range(len(old) - 1, shared - 1, -1):
        ops.append({"op": "remove", "path": f"{path}/{index}"})
