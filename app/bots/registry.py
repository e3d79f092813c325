"""Bots by game and level: "easy", "normal" and "hard" (all the baseline bots for now)."""

from __future__ import annotations

from app.bots.base import Bot

LEVELS = ("easy", "normal", "hard")


class UnknownBot(LookupError):
    """No bot is known for this game and level."""


def make_bot(game: str, level: str, seed: int) -> Bot:
    if level not in LEVELS:
        raise UnknownBot(f"bot level must be one of {', '.join(LEVELS)}, got {level!r}")
    # Imported here so that a game whose bots are missing does not break the other game.
    if game == "gin_rummy":
        from app.bots.gin_rummy_basic import BasicGinBot

        return BasicGinBot(seed)
    if game == "rummikub":
        from app.bots.rummikub_basic import BasicRummikubBot

        return BasicRummikubBot(seed)
    raise UnknownBot(f"no bots for game {game!r}")
