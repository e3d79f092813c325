"""The games this server knows, by their wire name."""

from __future__ import annotations

from app.games.engine import Engine
from app.games.gin_rummy import GinRummy
from app.games.rummikub import Rummikub

GAMES: dict[str, type[Engine]] = {
    GinRummy.name: GinRummy,
    Rummikub.name: Rummikub,
}


def engine_for(game: str) -> type[Engine]:
    """The engine class for a game name; LookupError names the games there are."""
    try:
        return GAMES[game]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise LookupError(f"unknown game {game!r}; this server plays {known}") from None
