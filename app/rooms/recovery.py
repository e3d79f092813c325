"""Rebuilding a room after a restart: seats and tokens from the store, state from the log."""

from __future__ import annotations

from collections.abc import Callable

from app.games.engine import Engine
from app.rooms.match import Match
from app.rooms.room import Room, RoomSpec
from app.rooms.types import SeatKind
from app.storage.store import StoredMatch

RoomFactory = Callable[[RoomSpec, type[Engine]], Room]


async def rebuild_room(
    stored: StoredMatch, engine_cls: type[Engine], make_room: RoomFactory
) -> Room:
    meta = stored.room_meta
    spec = RoomSpec(
        room_id=stored.room_id,
        game=stored.game,
        players=stored.players,
        options=dict(stored.config),
        public=bool(meta.get("public", False)),
        spectators=bool(meta.get("spectators", True)),
    )
    room = make_room(spec, engine_cls)
    for record in stored.seats:
        room.seats.restore(
            room.seats[record.seat],
            kind=SeatKind(record.kind),
            name=record.name,
            level=record.level,
            token_hash=record.token_hash,
        )
    # Engines are deterministic: the seed and the log give back exactly the state acknowledged.
    engine = engine_cls.new(stored.config, stored.players, seed=stored.seed)
    match = Match(
        match_id=stored.match_id,
        engine_cls=engine_cls,
        engine=engine,
        seed=stored.seed,
        store=room.store,
    )
    for action in sorted(stored.actions, key=lambda record: record.index):
        match.replay(action.seat, action.action)
    await room.resume(match)
    return room
