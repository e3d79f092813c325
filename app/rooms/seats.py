"""The seats of one room: who sits where, their hashed tokens, bots, readiness, presence."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from app.rooms.errors import RoomError
from app.rooms.types import BOT, BOT_LEVELS, EMPTY, HUMAN, SeatKind
from app.storage.store import RoomSeatRecord

SeatsSnapshot = tuple[list["Seat"], dict[str, int]]


@dataclass
class Seat:
    index: int
    kind: SeatKind = EMPTY
    name: str = ""
    level: str | None = None
    token_hash: str | None = None
    ready: bool = False
    connections: int = 0
    # Monotonic time of the last sign of life: a connection closing or a REST call.
    last_seen: float = 0.0
    # A person whose seat a bot is keeping warm; their token takes it back.
    replaced: bool = False
    # The player who joined with a player key; kept while a bot plays the seat for them.
    player_id: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.kind is BOT

    def info(self) -> dict[str, Any]:
        connected = self.connections > 0 or self.is_bot
        return {
            "seat": self.index,
            "name": self.name,
            "player_id": self.player_id,
            "kind": self.kind.value,
            "level": self.level,
            "connected": connected,
            "ready": self.ready or self.is_bot,
            "away_since": None if connected else self.away_since_ms(),
        }

    def away_since_ms(self) -> int | None:
        """Epoch milliseconds of the person's last sign of life, for a client's "offline, N s"
        countdown against the room's reconnect grace; None for an empty seat."""
        if self.kind is EMPTY:
            return None
        return int((time.time() - (time.monotonic() - self.last_seen)) * 1000)


class SeatTable:
    """Claims and releases seats; every refusal is a RoomError with a stable code."""

    def __init__(self, players: int) -> None:
        self.seats = [Seat(index) for index in range(players)]
        self._by_token: dict[str, int] = {}

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.seats)

    def __getitem__(self, index: int) -> Seat:
        return self.seats[index]

    def find(self, token_hash: str) -> Seat | None:
        index = self._by_token.get(token_hash)
        return None if index is None else self.seats[index]

    def authenticate(self, token_hash: str) -> Seat:
        seat = self.find(token_hash)
        if seat is None:
            raise RoomError("bad_token", "this token belongs to no seat in this room")
        return seat

    def snapshot(self) -> SeatsSnapshot:
        """A copy to roll back to when a change could not be saved."""
        return [replace(seat) for seat in self.seats], dict(self._by_token)

    def roll_back(self, snapshot: SeatsSnapshot) -> None:
        seats, by_token = snapshot
        for seat, saved in zip(self.seats, seats, strict=True):
            vars(seat).update(vars(saved))
        self._by_token = by_token

    def records(self) -> list[RoomSeatRecord]:
        return [
            RoomSeatRecord(
                seat=seat.index,
                name=seat.name,
                kind=seat.kind.value,
                level=seat.level,
                token_hash=seat.token_hash,
                ready=seat.ready,
                player_id=seat.player_id,
            )
            for seat in self.seats
            if seat.kind is not EMPTY
        ]

    def all_taken(self) -> bool:
        return all(seat.kind is not EMPTY for seat in self.seats)

    def all_ready(self) -> bool:
        return self.all_taken() and all(seat.ready or seat.is_bot for seat in self.seats)

    def clear_ready(self) -> None:
        for seat in self.seats:
            seat.ready = False

    def free_seat(self, wanted: int | None) -> Seat:
        if wanted is not None:
            seat = self.checked(wanted)
            if seat.kind is not EMPTY:
                raise RoomError("seat_taken", f"seat {wanted} is already taken")
            return seat
        for seat in self.seats:
            if seat.kind is EMPTY:
                return seat
        raise RoomError("room_full", f"all {len(self.seats)} seats are taken")

    def checked(self, index: int) -> Seat:
        if not 0 <= index < len(self.seats):
            raise RoomError("bad_seat", f"seat must be 0..{len(self.seats) - 1}, got {index}")
        return self.seats[index]

    def seat_human(
        self, seat: Seat, *, name: str, token_hash: str, now: float, player_id: str | None = None
    ) -> None:
        seat.kind, seat.name, seat.level, seat.player_id = HUMAN, name, None, player_id
        seat.token_hash, seat.ready, seat.last_seen, seat.replaced = token_hash, False, now, False
        self._by_token[token_hash] = seat.index

    def seat_bot(self, seat: Seat, *, level: str, name: str | None = None) -> None:
        if level not in BOT_LEVELS:
            raise RoomError("bad_level", f"bot level must be one of {', '.join(BOT_LEVELS)}")
        seat.kind, seat.level, seat.ready = BOT, level, True
        seat.name = name or f"Bot {seat.index + 1}"
        if name is None:
            seat.player_id = None

    def release(self, seat: Seat) -> None:
        """Empty the seat and revoke its token."""
        if seat.token_hash is not None:
            self._by_token.pop(seat.token_hash, None)
        seat.kind, seat.name, seat.level, seat.token_hash = EMPTY, "", None, None
        seat.ready, seat.replaced, seat.player_id = False, False, None

    def hand_to_bot(self, seat: Seat, *, level: str, revoke: bool) -> None:
        """A bot plays the seat; unless revoked, the person's token can take it back."""
        if revoke and seat.token_hash is not None:
            self._by_token.pop(seat.token_hash, None)
            seat.token_hash = None
        name = seat.name
        self.seat_bot(seat, level=level, name=name)
        seat.replaced = not revoke

    def reclaim(self, seat: Seat) -> bool:
        """The person is back: their seat leaves the bot. True if anything changed."""
        if seat.kind is BOT and seat.replaced:
            seat.kind, seat.level, seat.replaced, seat.ready = HUMAN, None, False, False
            return True
        return False

    def restore(
        self,
        seat: Seat,
        *,
        kind: SeatKind,
        name: str,
        level: str | None,
        token_hash: str | None,
        player_id: str | None = None,
    ) -> None:
        """Put back a seat read from the store after a restart or a takeover."""
        seat.kind, seat.name, seat.level, seat.token_hash = kind, name, level, token_hash
        seat.player_id = player_id
        seat.ready = kind is BOT
        # The restart or the move cut its person off: the reconnect grace starts now.
        seat.last_seen = time.monotonic()
        if token_hash is not None:
            self._by_token[token_hash] = seat.index
            seat.replaced = kind is BOT
