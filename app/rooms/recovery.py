"""Taking a room over from the store: claim it, then rebuild seats from its row, game from its log.

A claim raises the room's epoch in the store before anything is read, so whatever the previous
owner got written is in what the claimant reads, and nothing it writes after can be accepted.
Then every open room comes back: a waiting room with its seats and tokens, a room in a match by
replaying the match's log, a finished room with its last match replayed so that its result
shows and a rematch works. Active matches without a room row (begun before rooms were stored)
are given one first, and then come back the same way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from app.games.engine import Engine
from app.rooms.chat import HISTORY
from app.rooms.match import Match
from app.rooms.room import Room, RoomSpec
from app.rooms.types import RoomStatus, SeatKind
from app.storage.store import (
    ABANDONED,
    ACTIVE,
    Fence,
    MatchStore,
    RoomRecord,
    RoomSeatRecord,
    SeatRecord,
    StoredMatch,
    StoreError,
)

log = logging.getLogger(__name__)

RoomFactory = Callable[[RoomSpec, type[Engine], Fence], Room]
EngineLookup = Callable[[str], type[Engine]]
# Claims at start run a few at a time: their commits share a sync, their reads a pool.
CLAIMS_AT_ONCE = 8


def restore_seats(room: Room, records: Sequence[SeatRecord | RoomSeatRecord]) -> None:
    for record in records:
        seat = room.seats[record.seat]
        room.seats.restore(
            seat,
            kind=SeatKind(record.kind),
            name=record.name,
            level=record.level,
            token_hash=record.token_hash,
            player_id=record.player_id,
        )
        if isinstance(record, RoomSeatRecord) and record.ready:
            seat.ready = True


def replayed(
    stored: StoredMatch, engine_cls: type[Engine], store: MatchStore, fence: Fence
) -> Match:
    # Engines are deterministic: the seed and the log give back exactly the state acknowledged.
    engine = engine_cls.new(stored.config, stored.players, seed=stored.seed)
    match = Match(
        match_id=stored.match_id,
        engine_cls=engine_cls,
        engine=engine,
        seed=stored.seed,
        store=store,
        fence=fence,
    )
    for action in sorted(stored.actions, key=lambda record: record.index):
        match.replay(action.seat, action.action)
    if stored.status != ACTIVE:
        # Its hands and its end are stored already; recording them again would move finished_at.
        match.hands_recorded = len(match.engine.hand_results())
        match.finished_recorded = True
    return match


def room_spec(record: RoomRecord) -> RoomSpec:
    return RoomSpec(
        room_id=record.room_id,
        game=record.game,
        players=record.players,
        options=dict(record.options),
        public=record.public,
        spectators=record.spectators,
        hints=record.hints,
        rated=record.rated,
        chat=record.chat,
    )


async def rebuild(
    record: RoomRecord,
    match: StoredMatch | None,
    engine_cls: type[Engine],
    make_room: RoomFactory,
    fence: Fence,
) -> Room:
    room = make_room(room_spec(record), engine_cls, fence)
    restore_seats(room, record.seats)
    room.talk.host = record.chat_host
    room.talk.muted = set(record.chat_muted)
    # The talk so far, as the previous owner kept it: a newcomer is shown the same lines.
    room.talk.remember(await room.store.recent_chat(room_id=record.room_id, limit=HISTORY))
    if match is not None:
        await room.resume(replayed(match, engine_cls, room.store, fence))
    else:
        await room.start_if_all_ready()
    return room


async def take_over(
    store: MatchStore, room_id: str, engine_for: EngineLookup, make_room: RoomFactory
) -> Room | None:
    """Claim an open room and rebuild it; None if it is closed, unknown or claimed meanwhile.

    Raises StoreError for a store that cannot be reached, and what rebuilding raises.
    """
    before = await store.load_room(room_id=room_id)
    if before is None or before.room.status == "closed":
        return None
    try:
        fence = await store.claim_room(room_id=room_id, epoch=before.room.epoch)
    except StoreError as error:
        if error.code == "claim_lost":
            return None
        raise
    # Read again, after the claim: the previous owner may have written until it.
    stored = await store.load_room(room_id=room_id)
    if stored is None:
        return None
    record = stored.room
    # An active match outranks the row's match id: the row is saved after the match.
    match = await store.active_match(room_id=room_id)
    if match is None and record.match_id is not None:
        match = await store.load_match(match_id=record.match_id)
    if match is not None and match.status == ABANDONED:
        await store.close_room(room_id=room_id, epoch=fence.epoch)
        return None
    return await rebuild(record, match, engine_for(record.game), make_room, fence)


def room_of_match(stored: StoredMatch) -> RoomRecord:
    """The row a match begun before rooms were stored would have had."""
    meta = stored.room_meta
    seats = [
        RoomSeatRecord(
            seat=s.seat,
            name=s.name,
            kind=s.kind,
            level=s.level,
            token_hash=s.token_hash,
            player_id=s.player_id,
        )
        for s in stored.seats
    ]
    return RoomRecord(
        room_id=stored.room_id,
        game=stored.game,
        players=stored.players,
        options=dict(stored.config),
        public=bool(meta.get("public", False)),
        spectators=bool(meta.get("spectators", True)),
        hints=bool(meta.get("hints", True)),
        chat=bool(meta.get("chat", True)),
        rated=meta.get("rated") is True,
        status=RoomStatus.PLAYING.value,
        seats=seats,
        match_id=stored.match_id,
    )


async def adopt_roomless_matches(store: MatchStore) -> int:
    """Give every active match without a room row one, so it is taken over like any room."""
    adopted = 0
    for stored in await store.unfinished_matches():
        if await store.load_room(room_id=stored.room_id) is not None:
            continue
        try:
            await store.save_room(room=room_of_match(stored))
            adopted += 1
        except StoreError:
            # Another server adopted it first.
            continue
    return adopted


async def recover_rooms(
    store: MatchStore, engine_for: EngineLookup, make_room: RoomFactory
) -> list[Room]:
    """Claim and rebuild every open room; one that fails is logged and skipped."""
    await adopt_roomless_matches(store)
    slots = asyncio.Semaphore(CLAIMS_AT_ONCE)

    async def recover(room_id: str) -> Room | None:
        async with slots:
            try:
                return await take_over(store, room_id, engine_for, make_room)
            except Exception:
                log.exception("could not rebuild room %s", room_id)
                return None

    rebuilt = await asyncio.gather(*(recover(room_id) for room_id in await store.open_room_ids()))
    return [room for room in rebuilt if room is not None]
