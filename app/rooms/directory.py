"""Every room this process owns: create, find, list, rebuild after a restart, close."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from app.games.engine import Engine, IllegalAction
from app.games.registry import engine_for
from app.rooms.bot_driver import BotFactory
from app.rooms.errors import RoomError
from app.rooms.flow import FLOWS
from app.rooms.recovery import rebuild_room
from app.rooms.room import Room, RoomSpec, RoomTimings
from app.rooms.tokens import new_room_id
from app.rooms.types import RoomStatus
from app.storage.store import MatchStore

log = logging.getLogger(__name__)


class RoomDirectory:
    """The rooms of one process; past one machine this is the part Redis would replace."""

    def __init__(self, *, store: MatchStore, timings: RoomTimings, make_bot: BotFactory) -> None:
        self.store = store
        self.timings = timings
        self.make_bot = make_bot
        self.rooms: dict[str, Room] = {}

    def _engine(self, game: str) -> type[Engine]:
        try:
            return engine_for(game)
        except LookupError as exc:
            raise RoomError("unknown_game", str(exc)) from exc

    def _room(self, spec: RoomSpec, engine_cls: type[Engine]) -> Room:
        return Room(
            spec,
            engine_cls=engine_cls,
            flow=FLOWS[spec.game],
            store=self.store,
            timings=self.timings,
            make_bot=self.make_bot,
        )

    async def create(
        self,
        *,
        game: str,
        players: int,
        options: Mapping[str, Any],
        bots: list[tuple[int | None, str]],
        public: bool,
        spectators: bool,
    ) -> Room:
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
        spec = RoomSpec(new_room_id(), game, players, config, public, spectators)
        room = self._room(spec, engine_cls)
        for seat, level in bots:
            await room.add_bot(seat, level)
        self.rooms[spec.room_id] = room
        return room

    def get(self, room_id: str) -> Room:
        room = self.rooms.get(room_id)
        if room is None:
            raise RoomError("room_not_found", f"no room {room_id!r}")
        return room

    def waiting_public(self, game: str | None = None) -> list[Room]:
        return [
            room
            for room in self.rooms.values()
            if room.spec.public
            and room.status is RoomStatus.WAITING
            and (game is None or room.spec.game == game)
        ]

    async def recover(self) -> int:
        """Rebuild every unfinished match from its log; returns how many rooms came back."""
        count = 0
        for stored in await self.store.unfinished_matches():
            try:
                engine_cls = self._engine(stored.game)
                room = await rebuild_room(stored, engine_cls, self._room)
            except Exception:
                log.exception("could not rebuild match %s", stored.match_id)
                continue
            self.rooms[room.room_id] = room
            count += 1
        return count

    async def sweep(self, idle_s: float) -> int:
        """Forget rooms nobody touched for `idle_s` that are waiting or finished."""
        now = time.monotonic()
        stale = [
            room
            for room in self.rooms.values()
            if room.status in (RoomStatus.WAITING, RoomStatus.FINISHED)
            and not room.fanout.connections
            and now - room.last_activity > idle_s
        ]
        for room in stale:
            await room.close()
            self.rooms.pop(room.room_id, None)
        return len(stale)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.close()
        self.rooms.clear()
