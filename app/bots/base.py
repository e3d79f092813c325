"""What a bot is: a player that sees only its seat's view."""

from __future__ import annotations

from typing import Any, Protocol

View = dict[str, Any]
Action = dict[str, Any]


class Bot(Protocol):
    """Chooses one action for its seat from that seat's view and its legal actions."""

    def choose(self, view: View, legal: list[Action]) -> Action: ...
