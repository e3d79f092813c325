"""The match store kept in this process: for tests and as the benchmark's baseline.

Every dict goes through a JSON round trip on the way in, so callers see exactly what the SQL
store would give back (tuples become lists, keys become strings) and cannot alias stored data.
The action log is kept as one JSON text per action, as the SQL stores keep it: a string is no
work for the garbage collector, where a record object per action kept every young collection
of a busy server scanning the whole log once more (docs/performance.md).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from app.storage.player_stats import PlayerMatch, compute_player_stats
from app.storage.rating_writes import RatingUpdate
from app.storage.records import (
    ACTIVE,
    ANYONE,
    END_STATUSES,
    FINISHED,
    ROOM_CLOSED,
    STATUSES,
    ActionRecord,
    ChatRecord,
    Fence,
    HandRecord,
    MatchDetail,
    MatchSummary,
    PlayerStats,
    Reader,
    RoomRecord,
    SeatRecord,
    StoredMatch,
    StoredRoom,
    StoreError,
    check_seed,
    fenced,
    json_text,
)


def as_json(value: Any) -> Any:
    """A copy with what a database's JSON column would give back (tuples become lists, int
    keys strings): the round trip through the SQL stores' own text."""
    return orjson.loads(json_text(value))


def now() -> datetime:
    return datetime.now(UTC)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _action_text(index: int, seat: int | None, action: dict[str, Any]) -> str:
    # The time as integer microseconds since the epoch: a clock read and an int, where a
    # datetime and its ISO text cost as much as the rest of the record (a move's log write).
    return json_text([index, seat, action, time.time_ns() // 1000])


def _action_record(text: str) -> ActionRecord:
    index, seat, action, at = orjson.loads(text)
    return ActionRecord(
        index=index, seat=seat, action=action, at=_EPOCH + timedelta(microseconds=at)
    )


@dataclass
class _Match:
    match_id: str
    room_id: str
    game: str
    config: dict[str, Any]
    seed: int
    players: int
    room_meta: dict[str, Any]
    created_at: datetime
    seats: dict[int, SeatRecord]
    status: str = ACTIVE
    finished_at: datetime | None = None
    result: dict[str, Any] | None = None
    actions: list[str] = field(default_factory=list)  # `_action_text` of each
    action_indexes: set[int] = field(default_factory=set)
    hands: dict[int, HandRecord] = field(default_factory=dict)


class MemoryMatchStore:
    def __init__(self) -> None:
        self._matches: dict[str, _Match] = {}
        self._rooms: dict[str, StoredRoom] = {}
        self._chat: dict[str, dict[int, ChatRecord]] = {}

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def _check(self, fence: Fence | None) -> None:
        """Refuse a write whose epoch is no longer its room's (as the SQL stores do)."""
        if fence is None:
            return
        kept = self._rooms.get(fence.room_id)
        if kept is None or kept.room.epoch != fence.epoch:
            raise fenced(fence.room_id)

    def _get(self, match_id: str) -> _Match:
        match = self._matches.get(match_id)
        if match is None:
            raise StoreError("unknown_match", f"no match with id {match_id!r}")
        return match

    async def create_match(
        self,
        *,
        match_id: str,
        room_id: str,
        game: str,
        config: dict[str, Any],
        seed: int,
        players: int,
        seats: list[SeatRecord],
        room_meta: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        check_seed(seed)
        self._check(fence)
        if match_id in self._matches:
            raise StoreError("duplicate_match", f"a match with id {match_id!r} already exists")
        self._matches[match_id] = _Match(
            match_id=match_id,
            room_id=room_id,
            game=game,
            config=as_json(config),
            seed=seed,
            players=players,
            room_meta=as_json(room_meta),
            created_at=now(),
            seats={s.seat: s for s in seats},
        )

    async def update_seat(
        self, *, match_id: str, seat: SeatRecord, fence: Fence | None = None
    ) -> None:
        self._check(fence)
        self._get(match_id).seats[seat.seat] = seat

    async def update_room_meta(
        self, *, match_id: str, room_meta: dict[str, Any], fence: Fence | None = None
    ) -> None:
        self._check(fence)
        self._get(match_id).room_meta = as_json(room_meta)

    async def append_action(
        self,
        *,
        match_id: str,
        index: int,
        seat: int | None,
        action: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        self._check(fence)
        match = self._get(match_id)
        if index in match.action_indexes:
            raise StoreError(
                "duplicate_action", f"match {match_id!r} already has an action at index {index}"
            )
        match.action_indexes.add(index)
        match.actions.append(_action_text(index, seat, action))

    async def record_hand(
        self,
        *,
        match_id: str,
        hand_index: int,
        result: dict[str, Any],
        fence: Fence | None = None,
    ) -> None:
        self._check(fence)
        hand = HandRecord(hand_index=hand_index, result=as_json(result), at=now())
        self._get(match_id).hands[hand_index] = hand

    async def finish_match(
        self,
        *,
        match_id: str,
        status: str,
        result: dict[str, Any] | None,
        final_scores: list[int] | None,
        fence: Fence | None = None,
        places: list[int] | None = None,
        rating: RatingUpdate | None = None,
    ) -> None:
        if status not in END_STATUSES:
            raise StoreError("bad_status", f"a match ends as one of {END_STATUSES}, not {status!r}")
        self._check(fence)
        match = self._get(match_id)
        match.status = status
        match.finished_at = now()
        match.result = as_json(result)
        for seat, score in enumerate(final_scores or []):
            if seat in match.seats:
                match.seats[seat] = replace(match.seats[seat], final_score=score)
        for seat, place in enumerate(places or []):
            if seat in match.seats:
                match.seats[seat] = replace(match.seats[seat], place=place)

    async def save_room(self, *, room: RoomRecord) -> None:
        at = now()
        kept = self._rooms.get(room.room_id)
        if kept is not None and kept.room.epoch != room.epoch:
            raise fenced(room.room_id)
        copied = replace(room, options=as_json(room.options), seats=list(room.seats))
        created_at = at if kept is None else kept.created_at
        self._rooms[room.room_id] = StoredRoom(room=copied, created_at=created_at, updated_at=at)

    async def claim_room(self, *, room_id: str, epoch: int) -> Fence:
        kept = self._rooms.get(room_id)
        if kept is None or kept.room.status == ROOM_CLOSED or kept.room.epoch != epoch:
            raise StoreError(
                "claim_lost", f"room {room_id!r} is closed or was claimed past {epoch}"
            )
        claimed = replace(kept.room, epoch=epoch + 1)
        self._rooms[room_id] = replace(kept, room=claimed, updated_at=now())
        return Fence(room_id, epoch + 1)

    async def load_room(self, *, room_id: str) -> StoredRoom | None:
        return self._rooms.get(room_id)

    async def open_rooms(self) -> list[StoredRoom]:
        rooms = [r for r in self._rooms.values() if r.room.status != ROOM_CLOSED]
        return sorted(rooms, key=lambda r: r.created_at)

    async def open_room_ids(self) -> list[str]:
        return sorted(r.room.room_id for r in await self.open_rooms())

    async def ping(self) -> None:
        return None

    async def room_epochs(self, room_ids: Sequence[str]) -> dict[str, int]:
        kept = (self._rooms.get(room_id) for room_id in room_ids)
        return {k.room.room_id: k.room.epoch for k in kept if k and k.room.status != ROOM_CLOSED}

    async def close_room(self, *, room_id: str, epoch: int | None = None) -> None:
        kept = self._rooms.get(room_id)
        if kept is not None and epoch is not None and kept.room.epoch != epoch:
            raise fenced(room_id)
        if kept is not None:
            closed = replace(kept.room, status=ROOM_CLOSED)
            self._rooms[room_id] = replace(kept, room=closed, updated_at=now())

    def _stored(self, match: _Match) -> StoredMatch:
        return StoredMatch(
            match_id=match.match_id,
            room_id=match.room_id,
            game=match.game,
            config=as_json(match.config),
            seed=match.seed,
            players=match.players,
            status=match.status,
            created_at=match.created_at,
            finished_at=match.finished_at,
            result=as_json(match.result),
            room_meta=as_json(match.room_meta),
            seats=sorted(match.seats.values(), key=lambda s: s.seat),
            actions=sorted(map(_action_record, match.actions), key=lambda a: a.index),
        )

    async def unfinished_matches(self) -> list[StoredMatch]:
        active = [m for m in self._matches.values() if m.status == ACTIVE]
        return [self._stored(m) for m in sorted(active, key=lambda m: m.created_at)]

    async def active_match(self, *, room_id: str) -> StoredMatch | None:
        active = [m for m in self._matches.values() if m.room_id == room_id and m.status == ACTIVE]
        return self._stored(max(active, key=lambda m: m.created_at)) if active else None

    async def load_match(self, *, match_id: str) -> StoredMatch | None:
        match = self._matches.get(match_id)
        return None if match is None else self._stored(match)

    def _summary(self, match: _Match) -> MatchSummary:
        return MatchSummary(
            match_id=match.match_id,
            room_id=match.room_id,
            game=match.game,
            players=match.players,
            status=match.status,
            created_at=match.created_at,
            finished_at=match.finished_at,
            seats=sorted(match.seats.values(), key=lambda s: s.seat),
            result=as_json(match.result),
            public=match.room_meta.get("public") is not False,
        )

    async def list_matches(
        self,
        *,
        game: str | None = None,
        player: str | None = None,
        status: str | None = None,
        limit: int = 20,
        offset: int = 0,
        reader: Reader = ANYONE,
    ) -> tuple[list[MatchSummary], int]:
        if status is not None and status not in STATUSES:
            raise StoreError("bad_status", f"status is one of {STATUSES}, not {status!r}")
        chosen = [
            m
            for m in self._matches.values()
            if (game is None or m.game == game)
            and (status is None or m.status == status)
            and (player is None or any(s.name == player for s in m.seats.values()))
            and reader.may_read(self._summary(m))
        ]
        # Newest first; the id breaks ties so pages never overlap.
        chosen.sort(key=lambda m: (m.created_at, m.match_id), reverse=True)
        page = chosen[offset : offset + limit]
        return [self._summary(m) for m in page], len(chosen)

    async def match_detail(self, *, match_id: str) -> MatchDetail | None:
        match = self._matches.get(match_id)
        if match is None:
            return None
        return MatchDetail(
            summary=self._summary(match),
            config=as_json(match.config),
            seed=match.seed,
            action_count=len(match.actions),
            hands=[match.hands[i] for i in sorted(match.hands)],
        )

    async def player_stats(self, *, name: str) -> PlayerStats:
        entries = [
            PlayerMatch(
                game=m.game,
                seat=seat.seat,
                result=m.result,
                hands=[m.hands[i].result for i in sorted(m.hands)],
            )
            for m in self._matches.values()
            if m.status == FINISHED and m.room_meta.get("public") is not False
            for seat in m.seats.values()
            if seat.name == name
        ]
        return compute_player_stats(name, entries)

    async def append_chat(self, *, chat: ChatRecord, fence: Fence | None = None) -> None:
        self._check(fence)
        lines = self._chat.setdefault(chat.room_id, {})
        if chat.id in lines:
            raise StoreError("duplicate_chat", f"room {chat.room_id!r} has a chat line {chat.id}")
        lines[chat.id] = chat

    async def recent_chat(self, *, room_id: str, limit: int) -> list[ChatRecord]:
        lines = self._chat.get(room_id, {})
        return [lines[i] for i in sorted(lines)[-limit:]] if limit > 0 else []

    async def match_chat(self, *, match_id: str) -> list[ChatRecord]:
        found = [
            c for lines in self._chat.values() for c in lines.values() if c.match_id == match_id
        ]
        return sorted(found, key=lambda chat: chat.id)
