"""The shared vocabulary of rooms: statuses, seat kinds, what a viewer is."""

from __future__ import annotations

from enum import StrEnum


class RoomStatus(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    BETWEEN_HANDS = "between_hands"
    FINISHED = "finished"


class SeatKind(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


BOT_LEVELS = ("easy", "normal", "hard")
