"""Bots in a room's seats: one bot object per seat, asked for a move when its seat may act."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from app.bots.base import Action, Bot, View
from app.metrics.meters import OFF, Meters

log = logging.getLogger(__name__)

BotFactory = Callable[[str, str, int], Bot]


class BotDriver:
    def __init__(self, game: str, make_bot: BotFactory, seed: int, meters: Meters = OFF) -> None:
        self.game = game
        self.make_bot = make_bot
        self.seed = seed
        self.meters = meters
        # Bots choosing now (read by the metrics' gauges).
        self.thinking = 0
        self._bots: dict[tuple[int, str], Bot] = {}

    def reset(self, seed: int) -> None:
        """A new match: fresh bots, seeded from the match so replays choose alike."""
        self.seed = seed
        self._bots.clear()

    def bot(self, seat: int, level: str) -> Bot:
        key = (seat, level)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = self.make_bot(self.game, level, self.seed + seat)
        return bot

    async def choose(self, seat: int, level: str, view: View, legal: list[Action]) -> Action:
        # A strong bot may think for a while: off the event loop, so other rooms carry on.
        bot = self.bot(seat, level)
        self.thinking += 1
        started = time.perf_counter()
        try:
            return await asyncio.to_thread(bot.choose, view, legal)
        finally:
            self.thinking -= 1
            self.meters.bot_decided(self.game, level, time.perf_counter() - started)
