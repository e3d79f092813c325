"""Rebuilding rooms after a restart: seats and tokens from the store, game state from the log.

Every open room comes back: a waiting room with its seats and tokens, a room in a match by
replaying the match's log, a finished room with its last match replayed so that its result
shows and a rematch works. Active matches without a room row (begun before rooms were
stored) are rebuilt from the match alone, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from app.games.engine import Engine
from app.rooms.match import Match
from app.rooms.room import Room, RoomSpec
from app.rooms.types import SeatKind
from app.storage.store import (
    ABANDONED,
    ACTIVE,
    MatchStore,
    RoomRecord,
    RoomSeatRecord,
    SeatRecord,
    StoredMatch,
)

log = logging.getLogger(__name__)

RoomFactory = Callable[[RoomSpec, type[Engine]], Room]
EngineLookup = Callable[[str], type[Engine]]


def restore_seats(room: Room, records: Sequence[SeatRecord | RoomSeatRecord]) -> None:
    for record in records:
        seat = room.seats[record.seat]
        room.seats.restore(
            seat,
            kind=SeatKind(record.kind),
            name=record.name,
            level=record.level,
            token_hash=record.token_hash,
        )
        if isinstance(record, RoomSeatRecord) and record.ready:
            seat.ready = True


def replayed(stored: StoredMatch, engine_cls: type[Engine], store: MatchStore) -> Match:
    # Engines are deterministic: the seed and the log give back exactly the state acknowledged.
    engine = engine_cls.new(stored.config, stored.players, seed=stored.seed)
    match = Match(
        match_id=stored.match_id,
        engine_cls=engine_cls,
        engine=engine,
        seed=stored.seed,
        store=store,
    )
    for action in sorted(stored.actions, key=lambda record: record.index):
        match.replay(action.seat, action.action)
    if stored.status != ACTIVE:
        # Its hands and its end are stored already; recording them again would move finished_at.
        match.hands_recorded = len(match.engine.hand_results())
        match.finished_recorded = True
    return match


async def rebuild_room(
    stored: StoredMatch, engine_cls: type[Engine], make_room: RoomFactory
) -> Room:
    """A room from its match alone (matches begun before rooms had rows of their own)."""
    meta = stored.room_meta
    spec = RoomSpec(
        room_id=stored.room_id,
        game=stored.game,
        players=stored.players,
        options=dict(stored.config),
        public=bool(meta.get("public", False)),
        spectators=bool(meta.get("spectators", True)),
        hints=bool(meta.get("hints", True)),
    )
    room = make_room(spec, engine_cls)
    restore_seats(room, stored.seats)
    await room.resume(replayed(stored, engine_cls, room.store))
    return room


async def rebuild_open_room(
    record: RoomRecord, match: StoredMatch | None, engine_cls: type[Engine], make_room: RoomFactory
) -> Room:
    spec = RoomSpec(
        room_id=record.room_id,
        game=record.game,
        players=record.players,
        options=dict(record.options),
        public=record.public,
        spectators=record.spectators,
        hints=record.hints,
    )
    room = make_room(spec, engine_cls)
    restore_seats(room, record.seats)
    if match is not None:
        await room.resume(replayed(match, engine_cls, room.store))
    else:
        await room.start_if_all_ready()
    return room


async def last_match(store: MatchStore, record: RoomRecord) -> StoredMatch | None:
    if record.match_id is None:
        return None
    return await store.load_match(match_id=record.match_id)


async def recover_rooms(
    store: MatchStore, engine_for: EngineLookup, make_room: RoomFactory
) -> list[Room]:
    """Every open room and every active match, rebuilt; one that fails is logged and skipped."""
    # Oldest first, so a room's newest active match wins.
    active = {match.room_id: match for match in await store.unfinished_matches()}
    rooms: list[Room] = []
    for stored in await store.open_rooms():
        record = stored.room
        try:
            # An active match outranks the row's match id: the row is saved after the match.
            match = active.pop(record.room_id, None) or await last_match(store, record)
            if match is not None and match.status == ABANDONED:
                await store.close_room(room_id=record.room_id)
                continue
            rooms.append(await rebuild_open_room(record, match, engine_for(record.game), make_room))
        except Exception:
            log.exception("could not rebuild room %s", record.room_id)
    for match in active.values():
        try:
            rooms.append(await rebuild_room(match, engine_for(match.game), make_room))
        except Exception:
            log.exception("could not rebuild match %s", match.match_id)
    return rooms
