"""`meldhall ratings rebuild`: every rating computed again from the finished matches.

Ratings are a fold over the rated, finished matches in the order their ends were rated (their
rating_seq; a match that has none yet comes after, in the order it finished), through the same
functions as a live match end (app.players.rating_math), so a rebuild gives exactly the numbers
the live updates gave. It runs with the server stopped (the CLI holds the database as a server
would) and in one transaction: an interrupted rebuild leaves the ratings as they were.
The counts that come with the ratings are made again too: the players rated in each mode, and
what each pair of players did together (app.storage.pair_counts, the query a match end runs).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.players.rating_math import (
    RatedSide,
    Rating,
    SeatAtEnd,
    mode_of,
    rate,
    rated_sides,
)
from app.storage.models import (
    MATCHES,
    PLAYER_PAIRS,
    PLAYERS,
    RATING_CLOCK,
    RATING_EVENTS,
    RATING_TOTALS,
    RATINGS,
    SEATS,
)
from app.storage.pair_counts import COUNTS, all_pairs
from app.storage.rating_writes import event_row, rating_row
from app.storage.records import FINISHED

EVENT_BATCH = 5000


@dataclass(frozen=True)
class Rebuilt:
    matches: int
    ratings: int


@dataclass
class _Match:
    id: str
    game: str
    players: int
    result: dict[str, Any] | None
    seq: int | None
    seats: list[SeatAtEnd]


async def rebuild_ratings(engine: AsyncEngine) -> Rebuilt:
    async with engine.begin() as connection:
        known = {row.id for row in await connection.execute(select(PLAYERS.c.id))}
        await connection.execute(delete(RATING_EVENTS))
        await connection.execute(delete(RATINGS))
        last = (await connection.execute(select(func.max(MATCHES.c.rating_seq)))).scalar()
        next_seq = (last or 0) + 1
        ratings: dict[tuple[str, str], Rating] = {}
        events: list[dict[str, Any]] = []
        renumbered: list[tuple[str, int]] = []
        counted = 0
        at = datetime.now(UTC)
        async for match in _rated_matches(connection):
            sides = _present(rated_sides(match.game, match.result or {}, match.seats), known)
            if len(sides) < 2:
                continue
            seq = match.seq
            if seq is None:
                seq, next_seq = next_seq, next_seq + 1
                renumbered.append((match.id, seq))
            mode = mode_of(match.game, match.players)
            current = {
                pid: ratings[(pid, mode)]
                for side in sides
                for pid in side.players
                if (pid, mode) in ratings
            }
            for pid, change in rate(sides, current).items():
                ratings[(pid, mode)] = change[1]
                events.append(event_row(match.id, pid, mode, seq, change, at))
            counted += 1
            if len(events) >= EVENT_BATCH:
                await connection.execute(insert(RATING_EVENTS), events)
                events = []
        if events:
            await connection.execute(insert(RATING_EVENTS), events)
        rows = [rating_row(pid, mode, rating, at) for (pid, mode), rating in ratings.items()]
        for start in range(0, len(rows), EVENT_BATCH):
            await connection.execute(insert(RATINGS), rows[start : start + EVENT_BATCH])
        await recount(connection)
        for match_id, seq in renumbered:
            await connection.execute(
                update(MATCHES).where(MATCHES.c.id == match_id).values(rating_seq=seq)
            )
        await connection.execute(
            update(RATING_CLOCK)
            .where(RATING_CLOCK.c.id == 1)
            .values(seq=func.greatest(RATING_CLOCK.c.seq, next_seq - 1))
            if connection.dialect.name == "postgresql"
            else update(RATING_CLOCK)
            .where(RATING_CLOCK.c.id == 1)
            .values(seq=func.max(RATING_CLOCK.c.seq, next_seq - 1))
        )
    return Rebuilt(matches=counted, ratings=len(rows))


async def recount(connection: AsyncConnection) -> None:
    """The players rated per mode and the pairs' counts, from the ratings, the rating events
    and the finished matches' seats."""
    await connection.execute(delete(RATING_TOTALS))
    per_mode = select(RATINGS.c.mode, func.count()).group_by(RATINGS.c.mode)
    await connection.execute(insert(RATING_TOTALS).from_select(["mode", "players"], per_mode))
    await connection.execute(delete(PLAYER_PAIRS))
    columns = ["player_id", "other_id", *COUNTS]
    await connection.execute(insert(PLAYER_PAIRS).from_select(columns, all_pairs()))


def _present(sides: list[RatedSide], known: set[str]) -> list[RatedSide]:
    """The sides without players that no longer exist (forgotten), as a live end skips them."""
    kept = []
    for side in sides:
        members = tuple(pid for pid in side.players if pid in known)
        if members:
            kept.append(RatedSide(members, side.rank))
    return kept


async def _rated_matches(connection: AsyncConnection) -> AsyncIterator[_Match]:
    """The rated, finished matches with their seats, in the order they are to be folded."""
    query = (
        select(
            MATCHES.c.id,
            MATCHES.c.game,
            MATCHES.c.players,
            MATCHES.c.result,
            MATCHES.c.rating_seq,
            SEATS.c.seat,
            SEATS.c.player_id,
            SEATS.c.kind,
            SEATS.c.level,
        )
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .where(MATCHES.c.status == FINISHED, MATCHES.c.rated.is_(True))
        .order_by(
            MATCHES.c.rating_seq.is_(None),
            MATCHES.c.rating_seq,
            MATCHES.c.finished_at,
            MATCHES.c.id,
            SEATS.c.seat,
        )
    )
    current: _Match | None = None
    rows = await connection.stream(query.execution_options(yield_per=2000))
    async for row in rows:
        if current is None or current.id != row.id:
            if current is not None:
                yield current
            current = _Match(row.id, row.game, row.players, row.result, row.rating_seq, [])
        current.seats.append(SeatAtEnd(row.seat, row.player_id, row.kind, row.level))
    if current is not None:
        yield current
