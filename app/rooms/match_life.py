"""A room's match from start to end: starting it, each action, the next hand, the turn and
hand timers, and the bots' turns."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from app.games.engine import IllegalAction
from app.rooms.errors import RoomError
from app.rooms.fanout import Ack
from app.rooms.match import Match, SavedAfterAll, new_identity
from app.rooms.room_state import VERSION_STRIDE, RoomState
from app.rooms.types import (
    BETWEEN_HANDS,
    BOT,
    FINISHED,
    PLAYING,
    WAITING,
    RoomStatus,
)
from app.storage.store import SeatRecord

# Every part of a room logs as the room (operators filter on it: docs/operating.md).
log = logging.getLogger("app.rooms.room")


class MatchLife(RoomState):
    """The room's match: started, played action by action, dealt hand by hand, timed."""

    async def act(
        self,
        token_hash: str,
        action: Mapping[str, Any],
        version: int | None = None,
        ack: Ack | None = None,
    ) -> int:
        """Apply one action for the token's seat; returns the new version once it is logged.

        With `ack`, that connection's patch goes out as the ack of the action.
        """
        async with self.lock:
            seat = await self._touch(token_hash)
            if version is not None:
                self._refuse_if_stale(seat.index, version)
            await self._apply(seat.index, action, ack)
            return self.version

    def _table_of(self, seat: int | None) -> int | None:
        if seat is None or self.match is None:
            return None
        return self.flow.table_of(self.match.engine, seat)

    def _refuse_if_stale(self, seat: int, version: int) -> None:
        changed = self.game_version
        table = self._table_of(seat)
        if table is not None:
            changed = max(changed, self.table_versions.get(table, 0))
        if version < changed:
            raise RoomError(
                "stale_version", f"the game changed at version {changed}; you sent {version}"
            )

    async def _apply(
        self, seat: int | None, action: Mapping[str, Any], ack: Ack | None = None
    ) -> None:
        if self.match is None or self.status is WAITING:
            raise RoomError("not_started", "the match has not started")
        if self.status is FINISHED:
            raise RoomError("match_over", "the match is over")
        status = self.status
        table = self._table_of(seat)
        try:
            await self.match.apply(seat, action)
        except RoomError as exc:
            self._lose_if_moved(exc)
            raise
        except SavedAfterAll:
            # An earlier action, refused in doubt, was in the log: everyone sees it now, and
            # this one, chosen before it, is refused as chosen on an old state.
            await self._after_logged_change(None, None, status)
            raise RoomError(
                "stale_version", "an earlier action was saved after all; read the state"
            ) from None
        await self._after_logged_change(ack, table, status)

    async def _after_logged_change(
        self, ack: Ack | None, table: int | None, status: RoomStatus
    ) -> None:
        assert self.match is not None
        if self.match.progress_to_record():
            await self.match.record_progress(self._ending())
        self._after_game_change(ack, table)
        if self.status is not status:
            await self._save_quietly()

    def _after_game_change(self, ack: Ack | None = None, table: int | None = None) -> None:
        """Status, timers, bots and the broadcast after the game changed (at `table` alone,
        when a move changed only that table's game)."""
        assert self.match is not None
        engine = self.match.engine
        status = self.status
        if engine.is_over():
            self.status = FINISHED
            self.seats.clear_ready()
            if status is not FINISHED:
                self.meters.match_finished(self.spec.game, "finished")
                log.info("match finished", extra=self.log_fields())
        elif not engine.to_act():
            if self.status is not BETWEEN_HANDS:
                self.status = BETWEEN_HANDS
                self.seats.clear_ready()
                self.hand_timer.arm(self.timings.between_hands_s, self._hand_timer_fired)
        else:
            self.status = PLAYING
        self._arm_turn_timer()
        # Readiness is cleared only with a change of status, so the room info changed iff it did.
        moved = self.status is not status
        self._changed(game=True, info=moved, ack=ack, table=None if moved else table)
        self._poke_bots()

    async def _advance_if_all_ready(self) -> None:
        if not self.seats.all_ready():
            return
        try:
            await self._advance()
        except RoomError as exc:
            if exc.code != "storage_unavailable":
                raise
            # The request that made everyone ready was taken; the start or the deal is the
            # room's own step, which its timer tries again until the store is back.
            self.hand_timer.arm(self.hand_timer.backoff.first_s, self._hand_timer_fired)

    async def _advance(self) -> None:
        if self.status is WAITING:
            await self._start_match()
        elif self.status is BETWEEN_HANDS:
            await self._next_hand()

    async def _next_hand(self) -> None:
        await self._apply(None, self.flow.next_hand)
        self.hand_timer.cancel()

    async def _hand_timer_fired(self) -> None:
        async with self.lock:
            # Between hands the pause deals whoever is ready; a waiting room starts only full.
            if self.status is BETWEEN_HANDS or self.seats.all_ready():
                await self._advance()

    async def _start_match(self) -> None:
        seats = [self._seat_record(seat) for seat in self.seats]
        try:
            self.match = await self._begin_match(seats)
            self.match.meters = self.meters
        except RoomError as exc:
            if exc.code == "storage_unavailable":
                self.meters.storage_errors["match"].inc()
            self._lose_if_moved(exc)
            raise
        self.bots.reset(self.match.seed)
        self.status = PLAYING
        self.seats.clear_ready()
        self._turn_key = None
        self._info = None
        log.info("match started", extra=self.log_fields())
        self._after_game_change()
        # The match itself is durable already, and recovery finds it by room id.
        await self._save_quietly()

    async def _begin_match(self, seats: list[SeatRecord]) -> Match:
        made_from = (seats, dict(self.spec.options), self.spec.players, self.meta())
        tried = self._start_tried
        if tried is None or tried[2] != made_from:
            tried = (*new_identity(), made_from)
        self._start_tried = tried
        match = await Match.begin(
            engine_cls=self.engine_cls,
            store=self.store,
            room_id=self.spec.room_id,
            game=self.spec.game,
            config=dict(self.spec.options),
            players=self.spec.players,
            seats=seats,
            room_meta=self.meta(),
            fence=self.fence,
            match_id=tried[0],
            seed=tried[1],
        )
        self._start_tried = None
        return match

    async def start_if_all_ready(self) -> None:
        """A waiting room rebuilt with every seat ready starts: the restart came just before."""
        async with self.lock:
            if self.status is WAITING:
                await self._advance_if_all_ready()

    async def resume(self, match: Match) -> None:
        """Carry on with a match rebuilt from its log (after a restart)."""
        async with self.lock:
            self.match = match
            match.meters = self.meters
            self.bots.reset(match.seed)
            self.version = self.fence.epoch * VERSION_STRIDE + match.next_index + 1
            self.status = PLAYING
            self._info = None
            await match.record_progress(self._ending())
            self._after_game_change()

    # -- timers and bots -----------------------------------------------------------------

    def _arm_turn_timer(self) -> None:
        assert self.match is not None
        seconds = self.flow.turn_seconds(self.spec.options)
        engine = self.match.engine
        if not seconds or self.status is not PLAYING:
            self.turn_timer.cancel()
            self._turn_key = None
            return
        key = self.flow.turn_key(engine)
        if key != self._turn_key or not self.turn_timer.armed:
            self._turn_key = key
            self.turn_timer.arm(seconds, self._turn_timer_fired)

    async def _turn_timer_fired(self) -> None:
        async with self.lock:
            if self.status is PLAYING:
                self._turn_key = None
                await self._apply(None, self.flow.timeout)

    def _poke_bots(self) -> None:
        if self.status is BETWEEN_HANDS and self.seats.all_ready():
            self.hand_timer.arm(0, self._hand_timer_fired)
        if self.status is not PLAYING or self.match is None:
            return
        seats = self.seats.seats
        for seat in self.match.engine.to_act():
            if seats[seat].kind is BOT:
                self.bot_timer.arm(self.timings.bot_delay_s, self._bot_turn)
                return

    async def _bot_turn(self) -> None:
        async with self.lock:
            if self.status is not PLAYING or self.match is None:
                return
            engine = self.match.engine
            bots = [s for s in engine.to_act() if self.seats[s].is_bot]
            if not bots:
                return
            seat = self.seats[bots[0]]
            view, legal = engine.view(seat.index), engine.legal_actions(seat.index)
            try:
                action = await self.bots.choose(seat.index, seat.level or "normal", view, legal)
            except Exception:
                # A bot that fails would fail again on the same view: play on without it.
                log.exception("bot in seat %d failed to choose", seat.index)
                await self._apply_first_legal(seat.index, legal)
                return
            try:
                await self._apply(seat.index, action)
            except IllegalAction as exc:
                log.error("bot in seat %d chose an illegal action: %s", seat.index, exc)
                await self._apply_first_legal(seat.index, legal)

    async def _apply_first_legal(self, seat: int, legal: list[dict[str, Any]]) -> None:
        for action in legal:
            try:
                await self._apply(seat, action)
                return
            except IllegalAction:
                continue
        log.error("no legal action worked for the bot in seat %d", seat)
