"""The shared vocabulary of rooms: statuses, seat kinds, what a viewer is."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class RoomStatus(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    BETWEEN_HANDS = "between_hands"
    FINISHED = "finished"


class SeatKind(StrEnum):
    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


# The members as module constants, which the code on every move names them by: Python 3.11
# reads each attribute of an Enum class through EnumType.__getattr__'s slow path (3.12 dropped
# it), a few hundred machine instructions a read against a few for a module's constant
# (bench/bench_instructions.py).
WAITING: Final = RoomStatus.WAITING
PLAYING: Final = RoomStatus.PLAYING
BETWEEN_HANDS: Final = RoomStatus.BETWEEN_HANDS
FINISHED: Final = RoomStatus.FINISHED
EMPTY: Final = SeatKind.EMPTY
HUMAN: Final = SeatKind.HUMAN
BOT: Final = SeatKind.BOT

BOT_LEVELS = ("easy", "normal", "hard")
