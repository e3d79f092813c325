"""Hints: the move the strongest bot would make for a seat that asks, from that seat's view.

The hint sees exactly what the seat sees, so it cannot leak a hidden card. For Rummikub it
is the solver's best play (nothing held back); for Gin Rummy the hard bot's choice (a fresh
bot, so it reasons from the current view alone).
"""

from __future__ import annotations

from typing import Any

from app.bots.gin_rummy.strong import StrongGinBot
from app.bots.rummikub.strong import SolverRummikubBot

View = dict[str, Any]
Action = dict[str, Any]

# A person waits for the answer: on a crowded table the solver gives its best play so far.
HINT_TIME_LIMIT_S = 1.0


class NoHint(LookupError):
    """No hint exists for this game, or the seat has nothing to do."""


def hint(
    game: str, view: View, legal: list[Action], *, time_limit_s: float = HINT_TIME_LIMIT_S
) -> Action:
    """One of `legal` (or a whole-turn Rummikub `play`) that the hard bot would choose."""
    if not legal:
        raise NoHint("the seat has no legal action now")
    if game == "gin_rummy":
        return StrongGinBot(seed=0, level="hard").choose(view, legal)
    if game == "rummikub":
        solver = SolverRummikubBot(seed=0, level="hard", hold_back=False, time_limit_s=time_limit_s)
        return solver.choose(view, legal)
    raise NoHint(f"no hints for game {game!r}")
