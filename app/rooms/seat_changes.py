"""Who sits where: joining, leaving, bots added and removed, readiness, a rematch, and seats
handed to bots (by the table or by the operator)."""

from __future__ import annotations

import logging
import time

from app.rooms.errors import RoomError
from app.rooms.match_life import MatchLife
from app.rooms.room_state import CLOSE_SEAT_GONE
from app.rooms.types import (
    BETWEEN_HANDS,
    FINISHED,
    HUMAN,
    WAITING,
)

# Every part of a room logs as the room (operators filter on it: docs/operating.md).
log = logging.getLogger("app.rooms.room")


class SeatChanges(MatchLife):
    """The room's seats taken, left, filled with bots and handed to them."""

    async def join(
        self, name: str, wanted: int | None, token_hash: str, player_id: str | None = None
    ) -> int:
        async with self.lock:
            if self.status is not WAITING:
                raise RoomError("match_started", "seats can be joined only before the match")
            seat = self.seats.free_seat(wanted)
            before, host = self.seats.snapshot(), self.talk.host
            self.seats.seat_human(
                seat, name=name, token_hash=token_hash, now=time.monotonic(), player_id=player_id
            )
            self.talk.seated(seat.index)
            self.last_activity = seat.last_seen
            try:
                await self._write_ahead(before)
            except RoomError:
                self.talk.host = host
                raise
            self._changed(game=True)
            return seat.index

    async def leave(self, token_hash: str) -> None:
        async with self.lock:
            seat = await self._touch(token_hash)
            before, host = self.seats.snapshot(), self.talk.host
            if self.status is WAITING:
                self.seats.release(seat)
            else:
                # A match in progress keeps its seat: a bot finishes it for the leaver.
                self.seats.hand_to_bot(seat, level="normal", revoke=True)
            self.talk.left(seat.index, [s.index for s in self.seats if s.kind is HUMAN])
            try:
                await self._write_ahead(before)
            except RoomError:
                self.talk.host = host
                raise
            await self._save_seat(seat)
            self.fanout.close_seat(seat.index, CLOSE_SEAT_GONE, "you left this seat")
            seat.connections = 0
            self._changed(game=True)
            # The leaver's bot may be the one to act (or to say ready) right now.
            self._poke_bots()

    async def add_bot(self, wanted: int | None, level: str) -> int:
        async with self.lock:
            if self.status is not WAITING:
                raise RoomError("match_started", "bots can be added only before the match")
            seat = self.seats.free_seat(wanted)
            before = self.seats.snapshot()
            self.seats.seat_bot(seat, level=level)
            await self._write_ahead(before)
            self._changed(game=True)
            # A room of bots only has nobody to say ready: it starts when its last seat fills.
            await self._advance_if_all_ready()
            return seat.index

    async def remove_bot(self, index: int) -> None:
        async with self.lock:
            if self.status is not WAITING:
                raise RoomError("match_started", "bots can be removed only before the match")
            seat = self.seats.checked(index)
            if not seat.is_bot:
                raise RoomError("not_a_bot", f"seat {index} is not a bot")
            before = self.seats.snapshot()
            self.seats.release(seat)
            await self._write_ahead(before)
            self._changed(game=True)

    async def ready(self, token_hash: str) -> None:
        async with self.lock:
            seat = await self._touch(token_hash)
            if self.status not in (WAITING, BETWEEN_HANDS):
                raise RoomError("not_between_hands", "ready counts only before a match or hand")
            before = self.seats.snapshot()
            seat.ready = True
            # Only a waiting room's readiness needs the write: a restart deals on between hands.
            if self.status is WAITING:
                await self._write_ahead(before)
            self._changed(game=False)
            await self._advance_if_all_ready()

    async def rematch(self, token_hash: str) -> None:
        async with self.lock:
            await self._touch(token_hash)
            if self.status is not FINISHED:
                raise RoomError("match_not_over", "a rematch can start only after the match")
            await self._start_match()

    async def hand_to_bot(self, token_hash: str, index: int) -> None:
        async with self.lock:
            await self._touch(token_hash)
            seat = self.seats.checked(index)
            if seat.kind is not HUMAN:
                raise RoomError("not_a_person", f"seat {index} is not held by a person")
            absent_for = time.monotonic() - seat.last_seen
            if seat.connections > 0 or absent_for < self.timings.reconnect_grace_s:
                raise RoomError(
                    "player_present",
                    f"seat {index} can go to a bot after {self.timings.reconnect_grace_s:g} s "
                    f"away; its player has been away {absent_for:.0f} s",
                )
            before = self.seats.snapshot()
            self.seats.hand_to_bot(seat, level="normal", revoke=False)
            await self._write_ahead(before)
            await self._save_seat(seat)
            self._changed(game=True)
            # An absent player is most often the one whose turn it is.
            self._poke_bots()

    async def seat_to_bot(self, index: int, level: str, revoke: bool) -> None:
        """The operator hands a person's seat to a bot at once, without the grace; with
        `revoke`, the seat's token stops working and its sockets close."""
        async with self.lock:
            self._refuse_if_closed()
            seat = self.seats.checked(index)
            if seat.kind is not HUMAN:
                raise RoomError("not_a_person", f"seat {index} is not held by a person")
            before = self.seats.snapshot()
            self.seats.hand_to_bot(seat, level=level, revoke=revoke)
            await self._write_ahead(before)
            await self._save_seat(seat)
            if revoke:
                self.fanout.close_seat(
                    seat.index, CLOSE_SEAT_GONE, "the operator gave your seat to a bot"
                )
                seat.connections = 0
            self._changed(game=True)
            log.info("seat %d handed to a bot by the operator", index, extra=self.log_fields())
            if self.status is WAITING:
                # As when a bot is added: a room of bots only starts once its seats are full.
                await self._advance_if_all_ready()
            self._poke_bots()
