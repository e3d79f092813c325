"""Plain records the match store returns: never ORM rows, never wire models."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

ACTIVE = "active"
FINISHED = "finished"
ABANDONED = "abandoned"
STATUSES = (ACTIVE, FINISHED, ABANDONED)
END_STATUSES = (FINISHED, ABANDONED)
# A room's row outlives the room; "closed" is the one room status the store itself gives meaning.
ROOM_CLOSED = "closed"


class StoreError(Exception):
    """A request the store refuses, with a stable machine code and a human message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def json_text(value: Any) -> str:
    """A JSON document as every store keeps it and every socket gets it: compact UTF-8 text,
    as json.dumps(separators=(",", ":"), ensure_ascii=False) makes it; int keys become
    strings, NaN becomes null and an int past 64 bits is refused. orjson is about five times
    faster than json, which counted in a durable action's share of a move. Its option for
    keys that are not strings doubles the cost of every document, so it is asked for only by
    those that have such keys (few: no move's patch or action has one)."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass(frozen=True, slots=True)
class Fence:
    """Whose write this is: a room and the epoch its owner claimed it at.

    The store refuses (StoreError "fenced") a write whose epoch is no longer the room's, so an
    owner that lost its room, by a pause, a cut or a takeover, can never have a write accepted.
    """

    room_id: str
    epoch: int


def fenced(room_id: str) -> StoreError:
    return StoreError("fenced", f"room {room_id!r} has been claimed by another owner")


# Seeds are stored as signed 64-bit integers (BIGINT); draw them with randbits(63) or fewer.
SEED_RANGE = range(-(2**63), 2**63)


def check_seed(seed: int) -> None:
    if seed not in SEED_RANGE:
        raise StoreError("bad_seed", f"a seed must fit in a signed 64-bit integer, got {seed}")


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    name: str
    kind: str  # "human" | "bot"
    level: str | None
    token_hash: str | None
    final_score: int | None = None
    # The player who sat here; None for an anonymous seat (and for a bot before the end).
    player_id: str | None = None
    # Finishing place once the match is over (0 first).
    place: int | None = None


@dataclass(frozen=True)
class RoomSeatRecord:
    """A taken seat of a room; a bot with a token hash keeps the seat warm for its person."""

    seat: int
    name: str
    kind: str  # "human" | "bot"
    level: str | None
    token_hash: str | None
    ready: bool = False
    player_id: str | None = None


@dataclass(frozen=True)
class RoomRecord:
    """What rebuilds a room after a restart; its match, if any, comes from the match log."""

    room_id: str
    game: str
    players: int
    options: dict[str, Any]
    public: bool
    spectators: bool
    status: str
    seats: list[RoomSeatRecord]
    match_id: str | None
    hints: bool = True
    rated: bool = True
    # The epoch its owner claimed it at (0 for a room never claimed since it was made).
    epoch: int = 0
    # Whether its seats may talk; the seat that may mute others (its first person); the seats
    # muted for everyone.
    chat: bool = True
    chat_host: int | None = None
    chat_muted: tuple[int, ...] = ()


@dataclass(frozen=True)
class ChatRecord:
    """One line of a room's talk: a cleaned text or a quick reaction's id, never both.

    Its id grows with the room's epoch (app.rooms.chat), so ids order a room's talk across
    owners; `match_id` is the match being played (or just finished) when it was said.
    """

    room_id: str
    id: int
    match_id: str | None
    seat: int
    name: str
    text: str | None
    reaction: str | None
    at: datetime


@dataclass(frozen=True)
class StoredRoom:
    room: RoomRecord
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class ActionRecord:
    index: int
    seat: int | None
    action: dict[str, Any]
    at: datetime


@dataclass(frozen=True)
class HandRecord:
    hand_index: int
    result: dict[str, Any]
    at: datetime


@dataclass(frozen=True)
class StoredMatch:
    """Everything needed to rebuild a match: replaying `actions` through the engine."""

    match_id: str
    room_id: str
    game: str
    config: dict[str, Any]
    seed: int
    players: int
    status: str
    created_at: datetime
    finished_at: datetime | None
    result: dict[str, Any] | None
    room_meta: dict[str, Any]
    seats: list[SeatRecord]
    actions: list[ActionRecord]


@dataclass(frozen=True)
class MatchSummary:
    match_id: str
    room_id: str
    game: str
    players: int
    status: str
    created_at: datetime
    finished_at: datetime | None
    seats: list[SeatRecord]
    result: dict[str, Any] | None
    public: bool = True


@dataclass(frozen=True)
class Reader:
    """Who asks for history: a private room's matches are theirs to read when they sat there
    (as the player, or with a seat token of the match) or hold the room's invite link."""

    player_id: str | None = None
    token_hash: str | None = None
    room_id: str | None = None

    def may_read(self, summary: MatchSummary) -> bool:
        if summary.public or (self.room_id is not None and self.room_id == summary.room_id):
            return True
        return any(
            (self.player_id is not None and seat.player_id == self.player_id)
            or (self.token_hash is not None and seat.token_hash == self.token_hash)
            for seat in summary.seats
        )


ANYONE = Reader()


@dataclass(frozen=True)
class MatchDetail:
    summary: MatchSummary
    config: dict[str, Any]
    seed: int
    action_count: int
    hands: list[HandRecord]


@dataclass(frozen=True)
class GinStats:
    hands_played: int = 0
    hands_won: int = 0
    knocks: int = 0
    gins: int = 0
    big_gins: int = 0
    undercuts: int = 0
    undercut_against: int = 0
    average_deadwood_at_knock: float | None = None


@dataclass(frozen=True)
class RummikubStats:
    rounds_played: int = 0
    rounds_won: int = 0


@dataclass(frozen=True)
class PlayerStats:
    name: str
    matches_played: int
    matches_won: int
    matches_by_game: dict[str, int] = field(default_factory=dict)
    gin_rummy: GinStats = field(default_factory=GinStats)
    rummikub: RummikubStats = field(default_factory=RummikubStats)
