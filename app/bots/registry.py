"""Bots by game and level: "easy" is the baseline, "normal" and "hard" the strong bots."""

from __future__ import annotations

from typing import Literal

from app.bots.base import Bot

LEVELS = ("easy", "normal", "hard")
StrongLevel = Literal["normal", "hard"]


class UnknownBot(LookupError):
    """No bot is known for this game and level."""


def make_bot(game: str, level: str, seed: int) -> Bot:
    if level not in LEVELS:
        raise UnknownBot(f"bot level must be one of {', '.join(LEVELS)}, got {level!r}")
    strong: StrongLevel = "hard" if level == "hard" else "normal"
    # Imported here so that a game whose bots are missing does not break the other game.
    if game == "gin_rummy":
        from app.bots.gin_rummy.basic import BasicGinBot
        from app.bots.gin_rummy.strong import StrongGinBot

        return BasicGinBot(seed) if level == "easy" else StrongGinBot(seed, strong)
    if game == "rummikub":
        from app.bots.rummikub.basic import BasicRummikubBot
        from app.bots.rummikub.strong import SolverRummikubBot

        return BasicRummikubBot(seed) if level == "easy" else SolverRummikubBot(seed, strong)
    raise UnknownBot(f"no bots for game {game!r}")
