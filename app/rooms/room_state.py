"""A room's state: its seats, match, version and fence; its documents, changes and records.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from app.games.engine import Config, Engine
from app.metrics.meters import OFF, Meters
from app.players.rating_math import SeatAtEnd
from app.rooms.bot_driver import BotDriver, BotFactory
from app.rooms.chat import TableTalk
from app.rooms.documents import UNBUILT, Document, patch_around
from app.rooms.errors import RoomError
from app.rooms.fanout import Ack, Derived, Fanout, Known
from app.rooms.flow import RoomFlow
from app.rooms.match import Match, MatchEnding, raise_moved
from app.rooms.seats import Seat, SeatsSnapshot, SeatTable
from app.rooms.timers import OneShot
from app.rooms.types import (
    BETWEEN_HANDS,
    PLAYING,
    WAITING,
)
from app.storage.store import Fence, MatchStore, RoomRecord, SeatRecord

# Every part of a room logs as the room (operators filter on it: docs/operating.md).
log = logging.getLogger("app.rooms.room")

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


class RoomState:
    """What a room holds, what each viewer sees of it, and how it is kept."""

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
        self.on_lost: Callable[[Self], None] | None = None
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
            public=self.spec.public,
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

    def lose(self: Self) -> None:
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
