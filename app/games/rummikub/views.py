"""What each seat may see of a Rummikub match, and the action templates it may send.

A view holds: game, phase, seat, players, config, round, to_act, turn {seat, number,
timer_s} (None between rounds), rack (one's own; None for spectators and between rounds),
seats [{seat, rack_size, initial_meld_done, score}], pool_size, passes_in_row, first_draw
(faces each seat drew for the first turn), table (committed melds), tentative (None, or the
turn in progress: table, laid, initial_points, ready, problem {code, message}), scores,
rounds (per-round points and totals), last_round (with every rack, once a round is over)
and result. Each meld shows tiles, kind, value, jokers {id: faces it may stand for},
declared {id: face}, valid and reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from app.games.engine import Action, Config, IllegalAction, Seat, SeatView, View
from app.games.patches import replace_changed
from app.games.rummikub.melds import read_meld
from app.games.rummikub.play import CheckedPlay
from app.games.rummikub.tiles import JOKERS, is_joker
from app.games.rummikub.turn import TurnInProgress

Part = TypeVar("Part")


def meld_view(meld: Sequence[str], declared: Mapping[str, str]) -> dict[str, Any]:
    """A meld as shown: its tiles, kind, value, each joker's meaning, and why it is invalid."""
    reading = read_meld(meld, declared)
    jokers = {
        tile: list(faces)
        for tile, faces in zip(meld, reading.stands_for or [()] * len(meld), strict=True)
        if is_joker(tile)
    }
    return {
        "tiles": list(meld),
        "kind": reading.kind,
        "value": reading.value,
        "jokers": jokers,
        "declared": {tile: declared[tile] for tile in meld if tile in declared},
        "valid": reading.valid,
        "reason": reading.error,
    }


class ViewParts:
    """Parts of views kept with what they were built from: an unchanged part (a meld, the
    seats, the config) is the same read-only object in every view, so views are cheap to
    build and the differ skips the part by identity."""

    def __init__(self) -> None:
        # Meld views of the state being shown, and of the one before (to reuse from): a room
        # keeps only the melds on its tables, not every meld a turn in progress passed through.
        self._views: dict[tuple[object, ...], dict[str, Any]] = {}
        self._before: dict[tuple[object, ...], dict[str, Any]] = {}
        self._kept: dict[str, tuple[object, Any]] = {}
        self._committed: tuple[object, object, list[Any], dict[tuple[object, ...], Any]] | None
        self._committed = None
        self._racks: dict[Seat, list[str]] = {}

    def next_state(self) -> None:
        """Start the views of a new state: melds not shown since the last one are dropped."""
        self._before, self._views = self._views, {}

    def kept(self, name: str, key: object, build: Callable[[], Part]) -> Part:
        """The part called `name` as last built, or built anew if `key` changed."""
        entry = self._kept.get(name)
        if entry is None or entry[0] != key:
            entry = self._kept[name] = (key, build())
        part: Part = entry[1]
        return part

    def rack(self, seat: Seat, tiles: list[str]) -> list[str]:
        """A seat's rack as shown: the same list while the rack holds the same tiles, so the
        rack of a seat that did not move is neither copied nor diffed again."""
        shown = self._racks.get(seat)
        if shown is None or shown != tiles:
            shown = self._racks[seat] = list(tiles)
        return shown

    def committed(self, melds: Sequence[Sequence[str]], declared: Mapping[str, str]) -> list[Any]:
        """The committed table's melds, shown first in a state. The engine replaces the table
        and its declarations rather than change them, so while both are the same objects the
        shown list is the same too (and its melds are at hand for a turn in progress)."""
        kept = self._committed
        if kept is None or kept[0] is not melds or kept[1] is not declared:
            shown = self.of(melds, declared)
            kept = self._committed = (melds, declared, shown, dict(self._views))
        else:
            self._views.update(kept[3])
        return kept[2]

    def of(self, melds: Sequence[Sequence[str]], declared: Mapping[str, str]) -> list[Any]:
        views, before = self._views, self._before
        shown = []
        for meld in melds:
            key: tuple[object, ...] = tuple(meld)
            if declared:
                key = (key, tuple([declared.get(tile) for tile in meld]))
            view = views.get(key) or before.get(key)
            if view is None:
                view = meld_view(meld, declared)
            views[key] = view
            shown.append(view)
        return shown


class RummikubState(Protocol):
    """What the views read of a match (app.games.rummikub.engine.Rummikub)."""

    name: ClassVar[str]
    config: Config
    players: int
    round: int
    first_draw: list[list[str]]
    current: int
    turn_number: int
    racks: list[list[str]]
    pool: list[str]
    table: list[list[str]]
    declared: dict[str, str]
    melded: list[bool]
    passes: int
    turn: TurnInProgress | None
    scores: list[int]
    results: list[dict[str, Any]]
    view_parts: ViewParts

    @property
    def phase(self) -> str: ...

    def to_act(self) -> list[Seat]: ...

    def result(self) -> dict[str, Any] | None: ...

    def check_tentative(self) -> CheckedPlay: ...


def _tentative(game: RummikubState) -> dict[str, Any] | None:
    turn = game.turn
    if turn is None:
        return None
    problem = None
    try:
        game.check_tentative()
    except IllegalAction as refusal:
        problem = {"code": refusal.code, "message": refusal.message}
    laid = set(turn.laid)
    initial_points = 0
    if not game.melded[game.current]:
        initial_points = sum(
            read_meld(meld, turn.declared).value
            for meld in turn.table
            if meld and all(tile in laid for tile in meld)
        )
    return {
        "table": game.view_parts.of(turn.table, turn.declared),
        "laid": list(turn.laid),
        "initial_points": initial_points,
        "ready": problem is None,
        "problem": problem,
    }


def public_view(game: RummikubState) -> View:
    """What every seat may know: a view with `seat` and `rack` still None (see `seat_view`).

    Racks other than one's own are in it only once the round is over (in `last_round`).
    """
    playing = game.phase == "playing"
    last = game.results[-1] if game.results and not playing else None
    parts = game.view_parts
    parts.next_state()
    seats = tuple(zip(map(len, game.racks), game.melded, game.scores, strict=True))
    # Parts kept in three groups by what they are built from: the round, the turn, the seats.
    config, first_draw, rounds = parts.kept(
        "round", (game.round, len(game.results)), lambda: _round_parts(game)
    )
    to_act, turn = parts.kept(
        "turn",
        (game.current, game.turn_number) if playing else None,
        lambda: (game.to_act(), _turn(game) if playing else None),
    )
    seat_parts, scores = parts.kept("seats", seats, lambda: (_seats(seats), list(game.scores)))
    return {
        "game": game.name,
        "phase": game.phase,
        "seat": None,
        "players": game.players,
        "config": config,
        "round": game.round,
        "to_act": to_act,
        "turn": turn,
        "rack": None,
        "seats": seat_parts,
        "pool_size": len(game.pool),
        "passes_in_row": game.passes,
        "first_draw": first_draw,
        "table": parts.committed(game.table, game.declared),
        "tentative": _tentative(game) if playing else None,
        "scores": scores,
        "rounds": rounds,
        "last_round": dict(last) if last is not None else None,
        "result": game.result(),
    }


# The keys of the public view, by how `public_patch` compares them: values compared as they
# are, parts kept as the same objects while unchanged, and parts whose change it leaves to a
# diff (a round that ended, a turn in progress).
PUBLIC_VALUES = ("game", "phase", "seat", "players", "round", "rack", "pool_size", "passes_in_row")
KEPT_PARTS = ("to_act", "turn", "scores")
DIFFED_PARTS = ("config", "first_draw", "rounds", "last_round", "result", "tentative")
PUBLIC_KEYS = frozenset((*PUBLIC_VALUES, *KEPT_PARTS, *DIFFED_PARTS, "seats", "table"))


def public_patch(before: View, after: View, prefix: str) -> list[dict[str, Any]] | None:
    """The JSON Patch from one public view to the next (paths under `prefix`), for the moves
    of nearly every turn: a committed play, a draw or a pass. None where it would take a
    diff: a round begun or ended, a turn in progress, melds of the table removed or reordered.
    """
    if len(after) != len(PUBLIC_KEYS):
        return None
    for key in DIFFED_PARTS:
        if before[key] is not after[key] and before[key] != after[key]:
            return None
    ops: list[dict[str, Any]] = []
    replace_changed(before, after, PUBLIC_VALUES, prefix, ops)
    replace_changed(before, after, KEPT_PARTS, prefix, ops)
    old, new = before["seats"], after["seats"]
    if old is not new:
        if len(old) != len(new):
            return None
        for index, (was, now) in enumerate(zip(old, new, strict=True)):
            replace_changed(was, now, now, f"{prefix}/seats/{index}", ops)
    old, new = before["table"], after["table"]
    if old is not new and not _table_patch(old, new, f"{prefix}/table", ops):
        return None
    return ops


def _table_patch(old: list[Any], new: list[Any], path: str, ops: list[dict[str, Any]]) -> bool:
    """Melds changed in place or added at the end (meld views are kept objects); False for
    anything else."""
    common = len(old)
    if len(new) < common:
        return False
    for index in range(common):
        if old[index] is not new[index] and old[index] != new[index]:
            ops.append({"op": "replace", "path": f"{path}/{index}", "value": new[index]})
    for index in range(common, len(new)):
        ops.append({"op": "add", "path": f"{path}/-", "value": new[index]})
    return True


def _round_parts(
    game: RummikubState,
) -> tuple[dict[str, Any], list[list[str]], list[dict[str, Any]]]:
    return dict(game.config), [list(faces) for faces in game.first_draw], _rounds(game)


def _turn(game: RummikubState) -> dict[str, Any]:
    return {
        "seat": game.current,
        "number": game.turn_number,
        "timer_s": game.config["turn_timer_s"],
    }


def _seats(seats: tuple[tuple[int, bool, int], ...]) -> list[dict[str, Any]]:
    return [
        {"seat": seat, "rack_size": size, "initial_meld_done": melded, "score": score}
        for seat, (size, melded, score) in enumerate(seats)
    ]


def _rounds(game: RummikubState) -> list[dict[str, Any]]:
    return [
        {key: record[key] for key in ("round", "winner", "reason", "points", "totals")}
        for record in game.results
    ]


def seat_view(public: View, game: RummikubState, seat: Seat | None) -> View:
    """`public` with the seat filled in and its own rack: a new top-level object per call, so
    nothing one seat's view holds alone is ever reachable from another's."""
    if seat is None:
        return SeatView(public, {})
    rack = game.view_parts.rack(seat, game.racks[seat]) if public["phase"] == "playing" else None
    return SeatView(public, {"seat": seat, "rack": rack})


def legal_templates(game: RummikubState, seat: Seat | None) -> list[Action]:
    """One template per action type allowed now; `end_turn` only when it would pass."""
    if seat is None:
        if game.phase == "playing" and game.config["turn_timer_s"]:
            return [{"type": "timeout"}]
        if game.phase == "round_over":
            return [{"type": "next_round"}]
        return []
    if game.phase != "playing" or seat != game.current:
        return []
    turn = game.turn
    table = turn.table if turn is not None else game.table
    actions: list[Action] = [{"type": "play", "table": [], "jokers": {}}]
    actions.append({"type": "draw"} if game.pool else {"type": "pass"})
    # A tile the seat may move: from its rack, or (all laid this turn) from the table.
    rack = game.racks[seat]
    actions.append({"type": "move", "tile": rack[0] if rack else table[0][0], "to": "new"})
    if max(map(len, table), default=0) > 1:
        actions.append({"type": "split", "meld": 0, "at": 1})
    if len(table) > 1:
        actions.append({"type": "merge", "meld": 0, "into": 1})
    # Name a joker that is on the table: "J1" might be on another seat's rack.
    on_table = set().union(*table)
    table_jokers = [joker for joker in JOKERS if joker in on_table]
    if table_jokers:
        actions.append({"type": "declare", "joker": table_jokers[0], "as": None})
    if turn is not None:
        actions.append({"type": "reset"})
        if turn.laid:
            actions.append({"type": "return", "tile": turn.laid[0]})
        try:
            game.check_tentative()
            actions.append({"type": "end_turn"})
        except IllegalAction:
            pass
    return actions
