"""The one error type rooms raise: a stable machine code and a human message."""

from __future__ import annotations


class RoomError(Exception):
    """A request the room refuses; the room is unchanged when it is raised."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
