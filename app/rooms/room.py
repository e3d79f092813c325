"""One authoritative room: seats, one match at a time, one lock, a version, its connections.

Every change goes through the room's lock: it is applied, logged (for actions), the version is
bumped, and every connection gets the patch to its own new document before the lock is released,
so patches reach each connection in version order.

A room is held under a fence, the epoch at which this process claimed it; its versions count up
from the epoch times VERSION_STRIDE, so a version from before a claim (a restart, a takeover) is
always lower than every version after it. Once the store refuses a write as fenced, the room is
lost: it refuses everything with `room_moved` and its owner drops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.games.engine import Config, Engine, IllegalAction
from app.metrics.meters import OFF, Meters
from app.players.rating_math import SeatAtEnd
from app.rooms.bot_driver import BotDriver, BotFactory
from app.rooms.chat import HISTORY, TableTalk, checked_line, line_out
from app.rooms.documents import UNBUILT, Document, patch_around
from app.rooms.errors import RoomError
from app.rooms.fanout import Ack, Connection, Derived, Fanout, Known, Outbox, dumps
from app.rooms.flow import RoomFlow
from app.rooms.match import Match, MatchEnding, SavedAfterAll, new_identity, raise_moved
from app.rooms.seats import Seat, SeatsSnapshot, SeatTable
from app.rooms.timers import OneShot
from app.rooms.types import (
    BETWEEN_HANDS,
    BOT,
    FINISHED,
    HUMAN,
    PLAYING,
    WAITING,
    RoomStatus,
)
from app.storage.store import Fence, MatchStore, RoomRecord, SeatRecord, StoreError

log = logging.getLogger(__name__)

CLOSE_SEAT_GONE = 4401
# The operator closed the room (app.api.routes.admin): it is gone for good.
CLOSE_ROOM_CLOSED = 4410
# The room is served elsewhere now (or this server is stopping): reconnecting finds it.
CLOSE_ROOM_MOVED = 1012
# Versions of one epoch: a room would need a billion changes under one claim to run past it.
VERSION_STRIDE = 1_000_000_000


@dataclass(frozen=True)
class RoomSpec:
    room_id: str
    game: str
    players: int
    options: Config
    public: bool
    spectators: bool
    # Whether a seat may ask the server for a suggested move.
    hints: bool = True
    # Whether a finished match updates its players' ratings.
    rated: bool = True
    # Whether its seats may talk (app.rooms.chat).
    chat: bool = True


@dataclass(frozen=True)
class RoomTimings:
    bot_delay_s: float = 0.0
    reconnect_grace_s: float = 60.0
    between_hands_s: float = 20.0
    # A seat's pace of chat lines, with bursts (app.rooms.chat).
    chat_lines_per_s: float = 1.0
    chat_burst: int = 5


class Room:
    def __init__(
        self,
        spec: RoomSpec,
        *,
        engine_cls: type[Engine],
        flow: RoomFlow,
        store: MatchStore,
        timings: RoomTimings,
        make_bot: BotFactory,
        fence: Fence | None = None,
        meters: Meters = OFF,
    ) -> None:
        self.spec = spec
        self.meters = meters
        # A room made here starts at epoch 0; a claimed one comes with the claim's fence.
        self.fence = fence or Fence(spec.room_id, 0)
        self.engine_cls = engine_cls
        self.flow = flow
        self.store = store
        self.timings = timings
        self.seats = SeatTable(spec.players)
        self.status = WAITING
        self.match: Match | None = None
        # The id and seed of a match whose creation failed, with what it was created from: a
        # start tried again with the same makes the same match, so a creation that was in fact
        # committed is found (not left behind as a second, empty active match).
        self._start_tried: tuple[str, int, tuple[Any, ...]] | None = None
        self.version = self.fence.epoch * VERSION_STRIDE
        # The version of the last change to the whole game, and of the last move at each table
        # that plays on its own (4-player Gin Rummy): an action made against an older version
        # than either, for the actor's table, is stale.
        self.game_version = self.version
        self.table_versions: dict[int, int] = {}
        self.fanout = Fanout()
        self.talk = TableTalk(
            enabled=spec.chat,
            epoch=self.fence.epoch,
            rate=timings.chat_lines_per_s,
            burst=timings.chat_burst,
        )
        self.bots = BotDriver(spec.game, make_bot, 0, meters)
        self.lock = asyncio.Lock()
        self.turn_timer = OneShot("turn")
        self.hand_timer = OneShot("between_hands")
        self.bot_timer = OneShot("bot")
        self._turn_key: tuple[Any, ...] | None = None
        self.last_activity = time.monotonic()
        # Set once the directory closed the room: a request already waiting for the lock finds
        # the room gone, as it would have a moment later.
        self.closed = False
        # Set once a write was fenced: another owner has the room. `on_lost` tells the owner.
        self.lost = False
        self.on_lost: Callable[[Room], None] | None = None
        self._info: dict[str, Any] | None = None
        self._waiting_parts: dict[int | None, dict[str, Any]] = {}
        # The engine and its count of actions at the last change sent to the connections:
        # their documents' game parts are patched from there when the engine derives the patch.
        self._shown: tuple[Engine, int] | None = None

    # -- reading -------------------------------------------------------------------------

    @property
    def room_id(self) -> str:
        return self.spec.room_id

    def info(self) -> dict[str, Any]:
        return {
            "room_id": self.spec.room_id,
            "game": self.spec.game,
            "players": self.spec.players,
            "options": self.spec.options,
            "status": self.status.value,
            "public": self.spec.public,
            "spectators": self.spec.spectators,
            "hints": self.spec.hints,
            "rated": self.spec.rated,
            "chat": self.spec.chat,
            "chat_host": self.talk.host,
            "chat_muted": sorted(self.talk.muted),
            "match_id": self.match.match_id if self.match else None,
            "seats": [seat.info() for seat in self.seats],
            "invite_path": f"/r/{self.spec.room_id}",
            "reconnect_grace_s": self.timings.reconnect_grace_s,
            # When the pause between hands ends (epoch ms), for a client's countdown.
            "next_hand_at": self.hand_timer.deadline_ms if self.status is BETWEEN_HANDS else None,
        }

    async def describe(self) -> dict[str, Any]:
        return {**self.info(), "version": self.version}

    def _shared_info(self) -> dict[str, Any]:
        # One room info object, shared by every document until something in it changes: the
        # differ then skips the whole subtree by identity. Changes that cannot touch it (a move
        # that neither ends a hand nor the match) keep it, so moves do not rebuild it.
        if self._info is None:
            self._info = self.info()
        return self._info

    def document(self, seat: int | None) -> Document:
        engine = self.match.engine if self.match else None
        return self._document(seat, engine.view(seat) if engine is not None else None)

    def _document(self, seat: int | None, game: Any) -> Document:
        engine = self.match.engine if self.match else None
        playing = self.status is PLAYING
        if engine is not None and seat is not None and playing and seat in engine.to_act():
            you = {"seat": seat, "legal": engine.legal_actions(seat)}
        else:
            you = self._waiting(seat)
        return {
            "room": self._shared_info(),
            "you": you,
            "game": game,
            "deadline": self.turn_timer.deadline_ms,
        }

    def _derived(self, seat: int | None, before: Document) -> Derived | None:
        """The viewer's document now, and the patch to it from `before` (its document at the
        last change), without building the game's view: the same as before when the game did
        not change, patched as its engine derived it from one action; None where the view
        must be built."""
        match, shown = self.match, self._shown
        if match is None or shown is None or shown[0] is not match.engine:
            return None
        engine = match.engine
        if engine.moves == shown[1]:
            game, ops = before["game"], []
        elif engine.moves == shown[1] + 1:
            game, derived = UNBUILT, engine.move_patch(seat, "/game")
            if derived is None:
                return None
            ops = derived
        else:
            return None
        doc = self._document(seat, game)
        return doc, patch_around(before, doc, "game", ops)

    def _waiting(self, seat: int | None) -> dict[str, Any]:
        # A viewer with nothing to do gets the same (read-only) part every time: the differ
        # settles it by identity, and a move leaves one object fewer per viewer for the collector.
        you = self._waiting_parts.get(seat)
        if you is None:
            you = self._waiting_parts[seat] = {"seat": seat, "legal": []}
        return you

    def log_fields(self) -> dict[str, Any]:
        """The room and its match, for a log line's `extra` (app.log_format)."""
        match_id = None if self.match is None else self.match.match_id
        return {"room": self.spec.room_id, "match": match_id, "game": self.spec.game}

    def admin_info(self, now: float) -> dict[str, Any]:
        """What an operator sees of the room (app.api.routes.admin): every seat, its status,
        its sockets and how long nobody has been there."""
        seats = [
            {
                **seat.info(),
                "connections": seat.connections,
                "away_s": round(now - seat.last_seen, 1),
            }
            for seat in self.seats
        ]
        return {
            "room_id": self.spec.room_id,
            "game": self.spec.game,
            "status": self.status.value,
            "public": self.spec.public,
            "players": self.spec.players,
            "match_id": None if self.match is None else self.match.match_id,
            "version": self.version,
            "seats": seats,
            "connections": len(self.fanout.connections),
            "idle_s": round(self.idle_for(now), 1),
        }

    def idle_for(self, now: float) -> float:
        """Seconds since a person last showed up; zero while anyone is connected."""
        return 0.0 if self.fanout.connections else now - self.last_activity

    def seat_for(self, token_hash: str) -> Seat:
        return self.seats.authenticate(token_hash)

    async def read(self, token_hash: str | None) -> tuple[int, Document]:
        async with self.lock:
            seat = await self._viewer(token_hash)
            if seat is None and not self.spec.spectators:
                raise RoomError("spectators_not_allowed", "this room does not allow spectators")
            return self.version, self.document(seat)

    async def legal(self, token_hash: str) -> tuple[int, list[dict[str, Any]]]:
        async with self.lock:
            seat = await self._touch(token_hash)
            return self.version, self.document(seat.index)["you"]["legal"]

    # -- lobby ---------------------------------------------------------------------------

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

    # -- playing -------------------------------------------------------------------------

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

    # -- connections ---------------------------------------------------------------------

    async def connect(self, outbox: Outbox, token_hash: str | None) -> Connection:
        """Register a socket and queue its snapshot; raises RoomError for a bad token."""
        async with self.lock:
            seat = await self._viewer(token_hash)
            if seat is None and not self.spec.spectators:
                raise RoomError("spectators_not_allowed", "this room does not allow spectators")
            if seat is not None:
                record = self.seats[seat]
                record.connections += 1
                if record.connections == 1:
                    self._changed(game=False)
            connection = Connection(outbox, seat, token_hash)
            self.fanout.add(connection)
            self.fanout.snapshot(connection, self.version, self.document(seat))
            if self.talk.lines:
                history = {"type": "chat_history", "messages": list(self.talk.lines)}
                self.fanout.send_to(connection, history)
            return connection

    async def disconnect(self, connection: Connection) -> None:
        async with self.lock:
            if connection not in self.fanout.connections:
                return
            self.fanout.remove(connection)
            if connection.seat is None:
                return
            record = self.seats[connection.seat]
            record.connections = max(0, record.connections - 1)
            record.last_seen = self.last_activity = time.monotonic()
            if record.connections == 0:
                self._changed(game=False)

    async def resync(self, connection: Connection) -> None:
        async with self.lock:
            self.fanout.snapshot(connection, self.version, self.document(connection.seat))

    async def close(self) -> None:
        for timer in (self.turn_timer, self.hand_timer, self.bot_timer):
            await timer.stop()

    # -- talk ----------------------------------------------------------------------------

    async def chat(self, token_hash: str, text: str | None, reaction: str | None) -> dict[str, Any]:
        """Say one line from the token's seat: kept, then sent to every connection; the line.

        Outside the room's lock (a move never waits for talk); the talk's own lock keeps the
        lines in one order, the order they are kept and sent in."""
        self._refuse_if_closed()
        seat = self.seats.authenticate(token_hash)
        talk = self.talk
        talk.refuse_from(seat.index)
        line = checked_line(text, reaction)
        async with talk.lock:
            self._refuse_if_closed()
            talk.take_turn(seat.index)
            match_id = None if self.match is None else self.match.match_id
            record = talk.record(self.room_id, talk.new_id(), match_id, seat.index, seat.name, line)
            try:
                await self.store.append_chat(chat=record, fence=self.fence)
            except StoreError as exc:
                if exc.code == "fenced":
                    self._lose_if_moved(RoomError("room_moved", "the room moved"))
                    self._refuse_if_closed()
                self.meters.storage_errors["chat"].inc()
                log.error("could not keep a chat line of room %s: %r", self.room_id, exc)
                raise RoomError("storage_unavailable", "the message could not be kept") from exc
            except Exception as exc:
                self.meters.storage_errors["chat"].inc()
                log.error("could not keep a chat line of room %s: %r", self.room_id, exc)
                raise RoomError("storage_unavailable", "the message could not be kept") from exc
            out = line_out(record)
            talk.lines.append(out)
            message = dumps({"type": "chat", **out})
            for connection in self.fanout.connections:
                connection.outbox.send(message)
            return out

    async def chat_lines(self, token_hash: str | None) -> list[dict[str, Any]]:
        """The last lines, for whoever may read the room (its seats; spectators if allowed)."""
        self._refuse_if_closed()
        if token_hash is not None:
            self.seats.authenticate(token_hash)
        elif not self.spec.spectators:
            raise RoomError("spectators_not_allowed", "this room does not allow spectators")
        return list(self.talk.lines)[-HISTORY:]

    async def mute_chat(self, token_hash: str, index: int, muted: bool) -> None:
        """The host mutes (or unmutes) a seat's talk for everyone at the table."""
        async with self.lock:
            seat = await self._touch(token_hash)
            if self.talk.host != seat.index:
                raise RoomError("not_chat_host", "only the room's host mutes a seat for everyone")
            target = self.seats.checked(index).index
            before = set(self.talk.muted)
            if muted:
                self.talk.muted.add(target)
            else:
                self.talk.muted.discard(target)
            try:
                await self.save()
            except RoomError:
                self.talk.muted = before
                raise
            self._changed(game=False)

    # -- internals -----------------------------------------------------------------------

    async def _viewer(self, token_hash: str | None) -> int | None:
        return None if token_hash is None else (await self._touch(token_hash)).index

    async def _touch(self, token_hash: str) -> Seat:
        """The token's seat, marked alive; a person using their token takes it back from a bot."""
        self._refuse_if_closed()
        seat = self.seats.authenticate(token_hash)
        seat.last_seen = time.monotonic()
        self.last_activity = seat.last_seen
        if self.seats.reclaim(seat):
            await self._save_seat(seat)
            await self._save_quietly()
            self._changed(game=True)
        return seat

    def _changed(
        self, *, game: bool, info: bool = True, ack: Ack | None = None, table: int | None = None
    ) -> None:
        self.version += 1
        if info:
            self._info = None
        if game:
            if table is None:
                self.game_version = self.version
            else:
                self.table_versions[table] = self.version
        self.fanout.broadcast(
            self.version, self.document, ack, self._public_change, self._own_change, self._derived
        )
        engine = None if self.match is None else self.match.engine
        self._shown = None if engine is None else (engine, engine.moves)

    def _public_change(self) -> Known | None:
        """The change of the game's public view as its engine reported it (documents hold
        the game view at /game)."""
        change = None if self.match is None else self.match.engine.public_change("/game")
        if change is None:
            return None
        before, after, ops = change
        return before, after, "/game", ops

    def _own_change(self, seat: int) -> Known | None:
        """The change of a seat's own part of the game view as its engine reported it."""
        return None if self.match is None else self.match.engine.own_change(seat, "/game")

    def meta(self) -> dict[str, Any]:
        return {
            "public": self.spec.public,
            "spectators": self.spec.spectators,
            "hints": self.spec.hints,
            "rated": self.spec.rated,
            "chat": self.spec.chat,
            "options": self.spec.options,
        }

    def _ending(self) -> MatchEnding:
        """What a match's end is rated from: the seats as they are when it ends."""
        return MatchEnding(
            game=self.spec.game,
            rated=self.spec.rated,
            seats=tuple(
                SeatAtEnd(seat.index, seat.player_id, seat.kind.value, seat.level)
                for seat in self.seats
            ),
        )

    def record(self) -> RoomRecord:
        return RoomRecord(
            room_id=self.spec.room_id,
            game=self.spec.game,
            players=self.spec.players,
            options=dict(self.spec.options),
            public=self.spec.public,
            spectators=self.spec.spectators,
            hints=self.spec.hints,
            rated=self.spec.rated,
            status=self.status.value,
            seats=self.seats.records(),
            match_id=self.match.match_id if self.match else None,
            epoch=self.fence.epoch,
            chat=self.spec.chat,
            chat_host=self.talk.host,
            chat_muted=tuple(sorted(self.talk.muted)),
        )

    async def save(self) -> None:
        """Write the room durably; raises RoomError("storage_unavailable") if that fails."""
        self._refuse_if_closed()
        try:
            await self.store.save_room(room=self.record())
        except Exception as exc:
            try:
                raise_moved(exc)
            except RoomError as moved:
                self._lose_if_moved(moved)
                raise
            log.exception("could not save room %s", self.spec.room_id, extra=self.log_fields())
            self.meters.storage_errors["room"].inc()
            raise RoomError("storage_unavailable", "the room could not be saved") from exc

    def refuse_if_gone(self) -> None:
        """RoomError if the room was closed here or is held by another server now."""
        self._refuse_if_closed()

    def _refuse_if_closed(self) -> None:
        if self.lost:
            raise RoomError(
                "room_moved", "this room is now served by another server; reconnect to carry on"
            )
        if self.closed:
            raise RoomError("room_not_found", f"room {self.spec.room_id!r} was closed")

    def _lose_if_moved(self, error: RoomError) -> None:
        if error.code == "room_moved":
            log.warning("room %s was claimed past epoch %d", self.room_id, self.fence.epoch)
            self.lose()

    def lose(self) -> None:
        """Another owner has the room: refuse everything from now on; the owner drops it."""
        if self.lost:
            return
        self.lost = True
        for timer in (self.turn_timer, self.hand_timer, self.bot_timer):
            timer.end()
        if self.on_lost is not None:
            self.on_lost(self)

    async def _write_ahead(self, before: SeatsSnapshot) -> None:
        # Like an action: nobody hears of a seat change the store does not have.
        try:
            await self.save()
        except RoomError:
            self.seats.roll_back(before)
            raise

    async def _save_quietly(self) -> None:
        # For changes the store can also tell from the match log: a failure only logs.
        with contextlib.suppress(RoomError):
            await self.save()

    def _seat_record(self, seat: Seat) -> SeatRecord:
        return SeatRecord(
            seat=seat.index,
            name=seat.name,
            kind=seat.kind.value,
            level=seat.level,
            token_hash=seat.token_hash,
            player_id=seat.player_id,
        )

    async def _save_seat(self, seat: Seat) -> None:
        if self.match is None:
            return
        try:
            await self.store.update_seat(
                match_id=self.match.match_id, seat=self._seat_record(seat), fence=self.fence
            )
        except Exception:
            log.exception("could not save seat %d of match %s", seat.index, self.match.match_id)
