"""Every room this process owns: create, find, list, rebuild after a restart, close."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app.games.engine import Engine, IllegalAction
from app.games.registry import engine_for
from app.metrics.meters import OFF, Meters
from app.rooms.bot_driver import BotFactory
from app.rooms.errors import RoomError
from app.rooms.fanout import dumps
from app.rooms.flow import FLOWS
from app.rooms.recovery import recover_rooms, take_over
from app.rooms.room import CLOSE_ROOM_CLOSED, CLOSE_ROOM_MOVED, Room, RoomSpec, RoomTimings
from app.rooms.tokens import new_room_id
from app.rooms.types import RoomStatus
from app.storage.store import ABANDONED, Fence, MatchStore, StoreError

log = logging.getLogger(__name__)

PLAYING_STATUSES = (RoomStatus.PLAYING, RoomStatus.BETWEEN_HANDS)


class RoomDirectory:
    """The rooms this process holds: all of them alone, its own share in a cluster."""

    def __init__(
        self,
        *,
        store: MatchStore,
        timings: RoomTimings,
        make_bot: BotFactory,
        meters: Meters = OFF,
        node_id: str = "",
    ) -> None:
        self.store = store
        self.timings = timings
        self.make_bot = make_bot
        self.meters = meters
        # This server's name, as the operator's list of rooms shows it.
        self.node_id = node_id
        self.rooms: dict[str, Room] = {}
        # Told whenever a room leaves this process: closed, lost or handed over.
        self.on_room_closed: Callable[[Room], None] | None = None

    def _engine(self, game: str) -> type[Engine]:
        try:
            return engine_for(game)
        except LookupError as exc:
            raise RoomError("unknown_game", str(exc)) from exc

    def _room(self, spec: RoomSpec, engine_cls: type[Engine], fence: Fence | None = None) -> Room:
        room = Room(
            spec,
            engine_cls=engine_cls,
            flow=FLOWS[spec.game],
            store=self.store,
            timings=self.timings,
            make_bot=self.make_bot,
            fence=fence,
            meters=self.meters,
        )
        room.on_lost = self._lost
        return room

    def _lost(self, room: Room) -> None:
        """Another owner has the room (a write was fenced, or its lease went to another node),
        or this process is handing it over: drop it without a word more."""
        for connection in list(room.fanout.connections):
            room.fanout.remove(connection)
            connection.outbox.close(CLOSE_ROOM_MOVED, "the room moved; reconnect")
        self._forget(room)

    def _forget(self, room: Room) -> None:
        if self.rooms.get(room.room_id) is room:
            del self.rooms[room.room_id]
            if self.on_room_closed is not None:
                self.on_room_closed(room)

    def drop(self, room: Room) -> None:
        """Stop holding a room another owner has now."""
        room.lose()

    async def hand_over(self, room: Room) -> None:
        """Stop holding a room once nothing is under way in it, for another owner to take."""
        async with room.lock:
            room.lose()
        await room.close()
        self.handed_over(room)

    def handed_over(self, room: Room) -> None:
        self.meters.handovers.inc()
        log.info("room handed over", extra=room.log_fields())

    async def create(
        self,
        *,
        game: str,
        players: int,
        options: Mapping[str, Any],
        bots: list[tuple[int | None, str]],
        public: bool,
        spectators: bool,
        hints: bool = True,
        rated: bool = True,
        chat: bool = True,
        before_save: Callable[[str], Awaitable[None]] | None = None,
    ) -> Room:
        """A new room; `before_save(room_id)` runs before it is first written (a lease)."""
        engine_cls = self._engine(game)
        low, high = engine_cls.seat_range()
        if not low <= players <= high:
            raise RoomError("bad_players", f"{game} is played by {low} to {high} players")
        try:
            config = engine_cls.validate_config(options, players)
        except IllegalAction as exc:
            raise RoomError(exc.code, exc.message) from exc
        if len(bots) > players:
            raise RoomError("bad_seat", f"{len(bots)} bots do not fit {players} seats")
        spec = RoomSpec(
            new_room_id(), game, players, config, public, spectators, hints, rated, chat
        )
        room = self._room(spec, engine_cls)
        if before_save is not None:
            await before_save(spec.room_id)
        # Durable before the answer: an invite link handed out must survive a restart.
        await room.save()
        log.info("room created (%s, %d players)", game, players, extra=room.log_fields())
        for seat, level in bots:
            await room.add_bot(seat, level)
        self.rooms[spec.room_id] = room
        return room

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise RoomError("room_not_found", f"no room {room_id!r}")
        return room

    async def find(self, room_id: str) -> Room:
        return self.get(room_id)

    def waiting_public(self, game: str | None = None) -> list[Room]:
        return [
            room
            for room in self.rooms.values()
            if room.spec.public
            and room.status is RoomStatus.WAITING
            and (game is None or room.spec.game == game)
        ]

    async def lobby(self, game: str | None = None) -> list[dict[str, Any]]:
        return [await room.describe() for room in self.waiting_public(game)]

    async def recover(self) -> int:
        """Claim and rebuild every open room (a single server, at start); how many came back."""
        rooms = await recover_rooms(self.store, self._engine, self._room)
        for room in rooms:
            self.rooms[room.room_id] = room
            log.info("room recovered at start", extra=room.log_fields())
        return len(rooms)

    async def take_over(self, room_id: str) -> Room | None:
        """Claim one open room from the store and hold it here; None if it is not to be had."""
        room = await take_over(self.store, room_id, self._engine, self._room)
        if room is not None:
            self.rooms[room_id] = room
            self.meters.takeovers.inc()
            log.info("room taken over at epoch %d", room.fence.epoch, extra=room.log_fields())
        return room

    async def close_idle(self, idle_s: float) -> int:
        """Close rooms with nobody connected and no sign of a person for `idle_s`."""
        now = time.monotonic()
        idle = [room for room in self.rooms.values() if room.idle_for(now) > idle_s]
        closed = 0
        for room in idle:
            try:
                closed += await self._close_if_idle(room, idle_s)
            except RoomError as error:
                if error.code != "room_moved":
                    log.exception("could not close idle room %s", room.room_id)
            except Exception:
                # The store may be briefly away: the room stays, and the next sweep tries again.
                log.exception("could not close idle room %s", room.room_id)
        return closed

    async def _close_if_idle(self, room: Room, idle_s: float) -> bool:
        async with room.lock:
            # Someone may have come back while this sweep waited for the lock.
            if room.idle_for(time.monotonic()) <= idle_s:
                return False
            await self._close_held(room)
        await room.close()
        log.info("room closed after %.0f s idle", idle_s, extra=room.log_fields())
        return True

    async def close_by_operator(self, room: Room, reason: str) -> None:
        """Close a room now: its match kept as abandoned, its sockets told why, then closed."""
        async with room.lock:
            room.refuse_if_gone()
            await self._close_held(room)
            message = dumps({"type": "room_closed", "reason": reason})
            for connection in list(room.fanout.connections):
                room.fanout.remove(connection)
                connection.outbox.send(message)
                connection.outbox.close(CLOSE_ROOM_CLOSED, reason[:120])
        await room.close()
        log.info("room closed by the operator: %s", reason, extra=room.log_fields())

    async def _close_held(self, room: Room) -> None:
        """Close a room whose lock is held: the store first, then this process lets it go."""
        try:
            if room.match is not None and room.status in PLAYING_STATUSES:
                await self.store.finish_match(
                    match_id=room.match.match_id,
                    status=ABANDONED,
                    result=None,
                    final_scores=None,
                    fence=room.fence,
                )
                self.meters.match_finished(room.spec.game, ABANDONED)
            await self.store.close_room(room_id=room.room_id, epoch=room.fence.epoch)
        except StoreError as error:
            if error.code == "fenced":
                room.lose()
                raise RoomError("room_moved", "another server holds the room") from error
            self.meters.storage_errors["room"].inc()
            raise
        room.closed = True
        self._forget(room)

    # -- the operator (app.api.routes.admin) --------------------------------------------------

    async def every_room(self) -> list[dict[str, Any]]:
        """Every room held here, private ones too, as an operator sees it."""
        now = time.monotonic()
        return [
            {**room.admin_info(now), "node": self.node_id} for room in list(self.rooms.values())
        ]

    async def close_room(self, room_id: str, reason: str) -> dict[str, Any]:
        room = self.get(room_id)
        await self.close_by_operator(room, reason)
        return {**room.admin_info(time.monotonic()), "node": self.node_id}

    async def seat_to_bot(
        self, room_id: str, seat: int, level: str, revoke: bool
    ) -> dict[str, Any]:
        room = self.get(room_id)
        await room.seat_to_bot(seat, level, revoke)
        return {**room.admin_info(time.monotonic()), "node": self.node_id}

    async def post_notice(self, notice: dict[str, Any]) -> None:
        """Send a notice to every socket of every room held here."""
        self.send_notice(dumps(notice))

    def send_notice(self, message: str) -> None:
        for room in list(self.rooms.values()):
            for connection in room.fanout.connections:
                connection.outbox.send(message)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.close()
        self.rooms.clear()
