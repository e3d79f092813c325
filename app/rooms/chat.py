"""A room's table talk: who may say what, how often, and the last lines a newcomer is shown.

Talk is decided by the room's owner, beside the game and never under its lock: a chat line
waits for its own write and nothing else, and a move never waits for a chat line. Spectators
read the talk and cannot post. A line is a text (cleaned by app.untrusted_text, 1-300
characters after cleaning) or one of a fixed set of quick reactions, which clients show in
their own language.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from app.rooms.errors import RoomError
from app.storage.records import ChatRecord
from app.untrusted_text import clean_text

REACTIONS = ("good_game", "nice", "oops", "your_turn", "thinking", "thanks", "wow", "hello")
MAX_CHARS = 300
# The lines a socket is sent on connecting (and REST reads): a conversation's worth.
HISTORY = 50
# Ids of one claim of the room: each claim's ids start above the last one's.
ID_STRIDE = 1_000_000_000


class ChatBucket:
    """One seat's allowance of lines (a token bucket on the loop's clock)."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, now: float, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = self.burst
        self.stamp = now

    def has_one(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens >= 1.0

    def spend(self) -> None:
        self.tokens -= 1.0


def checked_line(text: str | None, reaction: str | None) -> tuple[str | None, str | None]:
    """The line as it may be kept: a cleaned text, or a known reaction; RoomError otherwise."""
    if (text is None) == (reaction is None):
        raise RoomError("bad_message", "send exactly one of 'text' and 'reaction'")
    if reaction is not None:
        if reaction not in REACTIONS:
            raise RoomError("bad_reaction", f"reaction must be one of {', '.join(REACTIONS)}")
        return None, reaction
    assert text is not None
    cleaned = clean_text(text, keep_lines=True)
    if not cleaned:
        raise RoomError("chat_empty", "the message is empty once control characters are removed")
    if len(cleaned) > MAX_CHARS:
        raise RoomError(
            "chat_too_long", f"a message is at most {MAX_CHARS} characters, got {len(cleaned)}"
        )
    return cleaned, None


def line_out(record: ChatRecord) -> dict[str, Any]:
    """A chat line as clients get it (the socket's `chat` message without its type)."""
    return {
        "id": record.id,
        "from": {"seat": record.seat, "name": record.name},
        "text": record.text,
        "reaction": record.reaction,
        "at": int(record.at.timestamp() * 1000),
    }


class TableTalk:
    """The room's talk: the option, its host and mutes, the seats' pace and the last lines."""

    def __init__(self, *, enabled: bool, epoch: int, rate: float, burst: int) -> None:
        self.enabled = enabled
        self.rate, self.burst = rate, burst
        # The seat that may mute others for everyone: the room's first person (see `seated`).
        self.host: int | None = None
        self.muted: set[int] = set()
        self.lines: deque[dict[str, Any]] = deque(maxlen=HISTORY)
        self.buckets: dict[int, ChatBucket] = {}
        self.next_id = epoch * ID_STRIDE + 1
        # Lines of one room are numbered, written and sent one at a time, in that order.
        self.lock = asyncio.Lock()

    def remember(self, records: Iterable[ChatRecord]) -> None:
        for record in records:
            self.lines.append(line_out(record))

    def refuse_from(self, seat: int) -> None:
        """Refuse a line from the seat for reasons of the room (not of the line itself)."""
        if not self.enabled:
            raise RoomError("chat_disabled", "this room's chat is turned off")
        if seat in self.muted:
            raise RoomError("chat_muted", "the room's host muted this seat's chat")

    def take_turn(self, seat: int) -> None:
        now = asyncio.get_running_loop().time()
        bucket = self.buckets.get(seat)
        if bucket is None:
            bucket = self.buckets[seat] = ChatBucket(now, self.rate, self.burst)
        if not bucket.has_one(now):
            raise RoomError(
                "rate_limited", f"{self.rate:g} messages a second ({self.burst} at once); wait"
            )
        bucket.spend()

    def new_id(self) -> int:
        line_id, self.next_id = self.next_id, self.next_id + 1
        return line_id

    def seated(self, seat: int) -> None:
        """A person took a seat: the first of a room without a host becomes it."""
        if self.host is None:
            self.host = seat

    def left(self, seat: int, people: list[int]) -> None:
        """A person left the seat; the host's part goes to the first person still seated."""
        if self.host == seat:
            self.host = people[0] if people else None

    @staticmethod
    def record(
        room_id: str,
        line_id: int,
        match_id: str | None,
        seat: int,
        name: str,
        line: tuple[str | None, str | None],
    ) -> ChatRecord:
        return ChatRecord(
            room_id=room_id,
            id=line_id,
            match_id=match_id,
            seat=seat,
            name=name,
            text=line[0],
            reaction=line[1],
            at=datetime.now(UTC),
        )
