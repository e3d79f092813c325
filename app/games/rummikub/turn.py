"""The table in progress during a turn, edited one step at a time.

A person rearranges the table tile by tile; the steps live here, on the server, so that the
other seats can watch and a dropped connection loses nothing. Between steps the table may be
invalid; only the end of the turn is checked (see `play.check_whole_play`). Every step checks
its arguments before it changes anything, so a refused step leaves the turn as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.games.engine import IllegalAction
from app.games.rummikub.run_order import in_run_order
from app.games.rummikub.tiles import NUMBERED_TILES, is_joker, is_tile, parse_face

Table = list[list[str]]


@dataclass
class TurnInProgress:
    """The tentative table, its joker declarations, and the rack as the turn began."""

    table: Table
    declared: dict[str, str]
    rack_before: list[str]
    laid: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "table": [list(meld) for meld in self.table],
            "declared": dict(self.declared),
            "rack_before": list(self.rack_before),
            "laid": list(self.laid),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TurnInProgress:
        return cls(
            [list(meld) for meld in data["table"]],
            dict(data["declared"]),
            list(data["rack_before"]),
            list(data["laid"]),
        )


def _meld_index(turn: TurnInProgress, raw: object, name: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw < len(turn.table):
        raise IllegalAction(
            "bad_action", f"{name} must be a meld index 0..{len(turn.table) - 1}, got {raw!r}"
        )
    return raw


def _position(raw: object, size: int) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= size:
        raise IllegalAction("bad_action", f"pos must be 0..{size}, got {raw!r}")
    return raw


def _guard_old_meld(meld: list[str], laid: list[str], melded: bool) -> None:
    """Rule 5: before the initial meld, melds already on the table are not to be touched."""
    if melded:
        return
    if any(tile not in laid for tile in meld):
        raise IllegalAction(
            "initial_meld_touches_table",
            f"before your initial meld you may not change the table meld {' '.join(meld)}",
        )


def _fitting_place(meld: list[str], tile: str) -> int:
    """Where a tile goes when no position is given: in number order among its colour."""
    decoded = NUMBERED_TILES.get(tile)
    if decoded is None:
        return len(meld)
    colour, number = decoded
    for place, other in enumerate(meld):
        found = NUMBERED_TILES.get(other)
        if found is not None and found[0] == colour and found[1] > number:
            return place
    return len(meld)


def _keep_in_order(meld: list[str]) -> None:
    """A run in the making that a step changed is put in order, its jokers where they fit."""
    ordered = in_run_order(meld)
    if ordered is not None:
        meld[:] = ordered


def _forget_declarations(turn: TurnInProgress, meld: list[str]) -> None:
    """A changed meld is read afresh, so the declarations of its jokers lapse."""
    for tile in meld:
        turn.declared.pop(tile, None)


def _prune(turn: TurnInProgress) -> None:
    turn.table[:] = [meld for meld in turn.table if meld]


def move(turn: TurnInProgress, rack: list[str], action: Mapping[str, Any], melded: bool) -> None:
    """Move a tile from the rack or from a meld to a meld (`to`: index) or a new meld."""
    tile = action.get("tile")
    if not isinstance(tile, str) or not is_tile(tile):
        raise IllegalAction("bad_action", f"move needs a tile id, got {tile!r}")
    source = next((meld for meld in turn.table if tile in meld), None)
    if source is None and tile not in rack:
        raise IllegalAction("tile_not_on_rack", f"tile {tile} is not on your rack or the table")
    to = action.get("to")
    target = [] if to == "new" else turn.table[_meld_index(turn, to, "to")]
    if source is not None:
        _guard_old_meld(source, turn.laid, melded)
    _guard_old_meld(target, turn.laid, melded)
    size = len(target) - (1 if source is target else 0)
    pos = _position(action.get("pos"), size)
    if source is None:
        rack.remove(tile)
        turn.laid.append(tile)
    else:
        _forget_declarations(turn, source)
        source.remove(tile)
        if source is not target:
            _keep_in_order(source)
    _forget_declarations(turn, target)
    target.insert(_fitting_place(target, tile) if pos is None else pos, tile)
    if pos is None:
        _keep_in_order(target)
    if to == "new":
        turn.table.append(target)
    _prune(turn)


def split(turn: TurnInProgress, action: Mapping[str, Any], melded: bool) -> None:
    """Cut meld `meld` before its tile at `at`; the right part goes just after it."""
    index = _meld_index(turn, action.get("meld"), "meld")
    meld = turn.table[index]
    at = action.get("at")
    if isinstance(at, bool) or not isinstance(at, int) or not 0 < at < len(meld):
        raise IllegalAction("bad_action", f"at must be 1..{len(meld) - 1}, got {at!r}")
    _guard_old_meld(meld, turn.laid, melded)
    _forget_declarations(turn, meld)
    left, right = meld[:at], meld[at:]
    _keep_in_order(left)
    _keep_in_order(right)
    turn.table[index : index + 1] = [left, right]


def merge(turn: TurnInProgress, action: Mapping[str, Any], melded: bool) -> None:
    """Put the tiles of meld `meld` into meld `into` at `pos` (default: its end, or in order
    for a run in the making)."""
    index = _meld_index(turn, action.get("meld"), "meld")
    into = _meld_index(turn, action.get("into"), "into")
    if index == into:
        raise IllegalAction("bad_action", "a meld cannot be merged into itself")
    source, target = turn.table[index], turn.table[into]
    _guard_old_meld(source, turn.laid, melded)
    _guard_old_meld(target, turn.laid, melded)
    pos = _position(action.get("pos"), len(target))
    _forget_declarations(turn, source)
    _forget_declarations(turn, target)
    at = len(target) if pos is None else pos
    target[at:at] = source
    if pos is None:
        _keep_in_order(target)
    del turn.table[index]


def return_tile(turn: TurnInProgress, rack: list[str], action: Mapping[str, Any]) -> None:
    """Take a tile laid from the rack this turn back to the rack."""
    tile = action.get("tile")
    if not isinstance(tile, str) or tile not in turn.laid:
        raise IllegalAction(
            "tile_not_laid_this_turn", f"tile {tile} was not laid from your rack this turn"
        )
    meld = next(meld for meld in turn.table if tile in meld)
    _forget_declarations(turn, meld)
    meld.remove(tile)
    _keep_in_order(meld)
    turn.laid.remove(tile)
    rack.append(tile)
    _prune(turn)


def declare(turn: TurnInProgress, action: Mapping[str, Any], melded: bool) -> None:
    """Fix what a joker on the table stands for (`as`: a face like `R5`, or null to clear)."""
    joker = action.get("joker")
    if not isinstance(joker, str) or not is_joker(joker):
        raise IllegalAction("bad_action", f"joker must be J1 or J2, got {joker!r}")
    meld = next((meld for meld in turn.table if joker in meld), None)
    if meld is None:
        raise IllegalAction("bad_action", f"joker {joker} is not on the table")
    text = action.get("as")
    if text is not None and parse_face(text) is None:
        raise IllegalAction("bad_action", f"as must be a face like R5 or null, got {text!r}")
    _guard_old_meld(meld, turn.laid, melded)
    if text is None:
        turn.declared.pop(joker, None)
    else:
        turn.declared[joker] = text
