"""The SQL store's reads: crash recovery's full matches, and history's lists and details.

Each function takes an open connection and returns plain records; matches are chosen by a
subquery of ids rather than a list of them, so thousands of matches stay one statement.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from app.storage.models import ACTIONS, HANDS, MATCHES, SEATS
from app.storage.player_stats import PlayerMatch
from app.storage.records import (
    FINISHED,
    ActionRecord,
    HandRecord,
    MatchDetail,
    MatchSummary,
    Reader,
    SeatRecord,
    StoredMatch,
)


def utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; every stored time is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def seat_record(row: Row[Any]) -> SeatRecord:
    return SeatRecord(
        seat=row.seat,
        name=row.name,
        kind=row.kind,
        level=row.level,
        token_hash=row.token_hash,
        final_score=row.final_score,
        player_id=row.player_id,
        place=row.place,
    )


def summary(row: Row[Any], seats: list[SeatRecord]) -> MatchSummary:
    return MatchSummary(
        match_id=row.id,
        room_id=row.room_id,
        game=row.game,
        players=row.players,
        status=row.status,
        created_at=utc(row.created_at),
        finished_at=utc(row.finished_at) if row.finished_at else None,
        seats=seats,
        result=row.result,
        public=row.public,
    )


async def seats_of(connection: AsyncConnection, chosen: Select[Any]) -> dict[str, list[SeatRecord]]:
    found: dict[str, list[SeatRecord]] = {}
    rows = await connection.execute(
        select(SEATS).where(SEATS.c.match_id.in_(chosen)).order_by(SEATS.c.match_id, SEATS.c.seat)
    )
    for row in rows:
        found.setdefault(row.match_id, []).append(seat_record(row))
    return found


async def load_matches(connection: AsyncConnection, chosen: Select[Any]) -> list[StoredMatch]:
    """Matches whose ids `chosen` selects, with seats and actions, oldest first."""
    match_rows = list(
        await connection.execute(
            select(MATCHES).where(MATCHES.c.id.in_(chosen)).order_by(MATCHES.c.created_at)
        )
    )
    seats = await seats_of(connection, chosen)
    actions: dict[str, list[ActionRecord]] = {}
    rows = await connection.execute(
        select(ACTIONS)
        .where(ACTIONS.c.match_id.in_(chosen))
        .order_by(ACTIONS.c.match_id, ACTIONS.c.idx)
    )
    for row in rows:
        actions.setdefault(row.match_id, []).append(
            ActionRecord(index=row.idx, seat=row.seat, action=row.action, at=utc(row.at))
        )
    return [
        StoredMatch(
            match_id=row.id,
            room_id=row.room_id,
            game=row.game,
            config=row.config,
            seed=row.seed,
            players=row.players,
            status=row.status,
            created_at=utc(row.created_at),
            finished_at=utc(row.finished_at) if row.finished_at else None,
            result=row.result,
            room_meta=row.room_meta,
            seats=seats.get(row.id, []),
            actions=actions.get(row.id, []),
        )
        for row in match_rows
    ]


async def list_matches(
    connection: AsyncConnection,
    *,
    game: str | None,
    player: str | None,
    status: str | None,
    limit: int,
    offset: int,
    reader: Reader,
) -> tuple[list[MatchSummary], int]:
    query = select(MATCHES).where(readable_by(reader))
    if game is not None:
        query = query.where(MATCHES.c.game == game)
    if status is not None:
        query = query.where(MATCHES.c.status == status)
    if player is not None:
        query = query.where(
            MATCHES.c.id.in_(select(SEATS.c.match_id).where(SEATS.c.name == player))
        )
    total = (
        await connection.execute(select(func.count()).select_from(query.subquery()))
    ).scalar_one()
    # Newest first; the id breaks ties so pages never overlap.
    page = (
        query.order_by(MATCHES.c.created_at.desc(), MATCHES.c.id.desc()).limit(limit).offset(offset)
    )
    rows = list(await connection.execute(page))
    ids = [row.id for row in rows]
    seats = await seats_of(connection, select(MATCHES.c.id).where(MATCHES.c.id.in_(ids)))
    return [summary(row, seats.get(row.id, [])) for row in rows], total


def readable_by(reader: Reader) -> ColumnElement[bool]:
    """The matches `reader` may read (Reader.may_read, as SQL)."""
    allowed: list[ColumnElement[bool]] = [MATCHES.c.public.is_(True)]
    if reader.room_id is not None:
        allowed.append(MATCHES.c.room_id == reader.room_id)
    if reader.player_id is not None:
        sat = select(SEATS.c.match_id).where(SEATS.c.player_id == reader.player_id)
        allowed.append(MATCHES.c.id.in_(sat))
    if reader.token_hash is not None:
        held = select(SEATS.c.match_id).where(SEATS.c.token_hash == reader.token_hash)
        allowed.append(MATCHES.c.id.in_(held))
    return or_(*allowed)


async def match_detail(connection: AsyncConnection, *, match_id: str) -> MatchDetail | None:
    row = (await connection.execute(select(MATCHES).where(MATCHES.c.id == match_id))).first()
    if row is None:
        return None
    seats = await seats_of(connection, select(MATCHES.c.id).where(MATCHES.c.id == match_id))
    count = await connection.execute(select(func.count()).where(ACTIONS.c.match_id == match_id))
    hands = await connection.execute(
        select(HANDS).where(HANDS.c.match_id == match_id).order_by(HANDS.c.hand_index)
    )
    return MatchDetail(
        summary=summary(row, seats.get(match_id, [])),
        config=row.config,
        seed=row.seed,
        action_count=count.scalar_one(),
        hands=[HandRecord(hand_index=h.hand_index, result=h.result, at=utc(h.at)) for h in hands],
    )


async def player_matches(connection: AsyncConnection, *, name: str) -> list[PlayerMatch]:
    """Every finished match with a seat of this name, seen from that seat."""
    chosen = (
        select(MATCHES.c.id, MATCHES.c.game, MATCHES.c.result, SEATS.c.seat)
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .where(SEATS.c.name == name, MATCHES.c.status == FINISHED, MATCHES.c.public.is_(True))
    )
    played = list(await connection.execute(chosen))
    hands: dict[str, list[dict[str, Any]]] = {}
    rows = await connection.execute(
        select(HANDS.c.match_id, HANDS.c.result)
        .where(HANDS.c.match_id.in_(select(chosen.subquery().c.id)))
        .order_by(HANDS.c.match_id, HANDS.c.hand_index)
    )
    for row in rows:
        hands.setdefault(row.match_id, []).append(row.result)
    return [
        PlayerMatch(game=row.game, seat=row.seat, result=row.result, hands=hands.get(row.id, []))
        for row in played
    ]
