"""The interface every rules engine offers the rest of meldhall.

An engine is a pure state machine for one whole match of one game: no I/O, no clock, no
global random. Every random choice comes from a `random.Random` whose state is part of the
engine's state, so a match is fully defined by (config, seed or deck order, action log).

Seats are numbered 0..players-1. An action is a small JSON-able dict with a "type" key.
System actions (dealing the next hand, a turn timer running out) are applied with seat None
by the room that owns the engine. State leaves an engine only through `view(seat)`;
`view(None)` is the spectator's view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, Self

Seat = int
Action = dict[str, Any]
View = dict[str, Any]
Config = dict[str, Any]


class SeatView(dict[str, Any]):
    """One viewer's view built from the public view: `public` (read-only, shared by every
    viewer of the same state) with the keys in `own` holding the viewer's own values instead.

    To everything else it is a plain JSON object. The room's differ uses the two parts: the
    change of the public view is found once for all the viewers of a change, and only the own
    keys per viewer.
    """

    __slots__ = ("own", "public")

    def __init__(self, public: View, own: Mapping[str, Any]) -> None:
        super().__init__(public)
        self.update(own)
        self.public = public
        self.own = tuple(own)


class IllegalAction(Exception):
    """An action the rules refuse; the engine's state is unchanged when it is raised."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _fields_of(
    action: Mapping[str, Any], fields: Mapping[str, frozenset[str]]
) -> frozenset[str] | None:
    kind = action.get("type")
    return fields.get(kind) if isinstance(kind, str) else None


def refuse_unknown_fields(action: Mapping[str, Any], fields: Mapping[str, frozenset[str]]) -> None:
    """Raise IllegalAction("bad_action") for a field the action's type does not take.

    A field no rule reads would be logged and replayed for nothing, and a client's typo
    ("crad") would pass unnoticed. Types not in `fields` are left to the engine's own check.
    """
    kind = action.get("type")
    allowed = _fields_of(action, fields)
    # Every action passes here: the check of a good one is one set operation.
    if allowed is None or allowed.issuperset(action):
        return
    unknown = sorted(repr(key) for key in action if key not in allowed)
    raise IllegalAction(
        "bad_action",
        f"{kind} takes only {', '.join(sorted(allowed))}; unknown: {', '.join(unknown)}",
    )


def known_fields(action: Mapping[str, Any], fields: Mapping[str, frozenset[str]]) -> Action:
    """The action without fields its type does not take: for logs written before they were
    refused, where such fields were ignored."""
    allowed = _fields_of(action, fields)
    if allowed is None:
        return dict(action)
    return {key: value for key, value in action.items() if key in allowed}


class Engine(Protocol):
    """What rooms, bots, storage and the API may rely on."""

    name: ClassVar[str]
    # Every action type the engine takes, with the fields each may carry ("type" included).
    action_fields: ClassVar[Mapping[str, frozenset[str]]]

    @classmethod
    def options(cls) -> list[dict[str, Any]]:
        """Each variant option: name, type, default, allowed values or bounds, description."""
        ...

    @classmethod
    def validate_config(cls, raw: Mapping[str, Any], players: int) -> Config:
        """Defaults filled in and every value checked; raises IllegalAction("bad_config")."""
        ...

    @classmethod
    def seat_range(cls) -> tuple[int, int]:
        """The smallest and largest number of players the game supports."""
        ...

    @classmethod
    def new(
        cls,
        config: Mapping[str, Any],
        players: int,
        seed: int | None = None,
        deck: list[str] | None = None,
    ) -> Self:
        """A new match; `deck` fixes the order of cards or tiles (first dealt first)."""
        ...

    @property
    def phase(self) -> str:
        """The engine's phase name, e.g. "playing", "hand_over", "match_over"."""
        ...

    def to_act(self) -> list[Seat]:
        """Seats that may act now; empty between hands and after the match."""
        ...

    def legal_actions(self, seat: Seat) -> list[Action]:
        """Every legal action where the set is enumerable, else one template per action type."""
        ...

    def apply(self, seat: Seat | None, action: Mapping[str, Any]) -> None:
        """Apply one action or raise IllegalAction and leave the state as it was."""
        ...

    def view(self, seat: Seat | None) -> View:
        """Everything `seat` may know, and nothing more; None is a spectator."""
        ...

    def public_change(self, prefix: str) -> tuple[View, View, list[dict[str, Any]]] | None:
        """What the last change of the state changed in the public view, as the engine knows
        it: the public view before and after it (the ones its views were built on) and the
        JSON Patch between them with paths under `prefix`; None to have the two diffed."""
        ...

    def own_change(
        self, seat: Seat, prefix: str
    ) -> tuple[Any, Any, str, list[dict[str, Any]]] | None:
        """What the current state changed in `seat`'s own part of its view, as the engine
        knows it: the part before and after (the objects its views hold), the part's path
        under `prefix` and the JSON Patch between them; None to have the two diffed."""
        ...

    @property
    def moves(self) -> int:
        """How many actions this object has taken since it was made (a refused one does not
        count): it tells whether the state changed, and by one action or more."""
        ...

    def move_patch(self, seat: Seat | None, prefix: str) -> list[dict[str, Any]] | None:
        """The JSON Patch (paths under `prefix`) that the last action made to `seat`'s view,
        derived from the action without building views; None where the engine does not know
        it that way, and views must be built and compared.

        Exact only for a viewer whose views were built, or whose patches were asked this way,
        after every earlier action: the room asks it of every viewer it sends to.
        """
        ...

    def hidden_from(self, seat: Seat | None) -> set[str]:
        """Card or tile names/ids that `seat` may not see right now (for leak tests)."""
        ...

    def is_over(self) -> bool: ...

    def result(self) -> dict[str, Any] | None:
        """Final scores and winner once the match is over, else None."""
        ...

    def hand_results(self) -> list[dict[str, Any]]:
        """One record per finished hand or round, in order (storage keeps them)."""
        ...

    def hands_finished(self) -> int:
        """len(hand_results()), without copying the records (asked after every action)."""
        ...

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data; `from_json(to_json())` continues exactly like the original."""
        ...

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self: ...
