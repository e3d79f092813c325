"""`meldhall ratings rebuild`: every rating computed again from the finished matches.

Ratings are a fold over the rated, finished matches in the order their ends were rated (their
rating_seq; a match that has none yet comes after, in the order it finished), through the same
functions as a live match end (app.players.rating_math), so a rebuild gives exactly the numbers
the live updates gave. It runs with the server stopped (the CLI holds the database as a server
would) and in one transaction: an interrupted rebuild leaves the ratings as they were.
The counts that come with the ratings are made again too: the players rated in each mode, and
what each pair of players did together (app.storage.pair_counts, the query a match end runs)
and how many rated players each player's circle holds per mode (app.storage.circle_sizes,
counted from those pairs and ratings once they are loaded).
The tables are emptied and filled in bulk (app.storage.bulk_load: COPY on PostgreSQL, their
indexes made again once they are full), still inside that one transaction.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Text, cast, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.players.rating_math import (
    RatedSide,
    Rating,
    SeatAtEnd,
    mode_of,
    rate,
    rated_id,
    rated_sides,
)
from app.storage.bulk_load import empty, load, unindexed
from app.storage.circle_sizes import COLUMNS, all_circles
from app.storage.models import (
    CIRCLE_SIZES,
    MATCHES,
    PLAYER_PAIRS,
    PLAYERS,
    RATING_CLOCK,
    RATING_EVENTS,
    RATING_TOTALS,
    RATINGS,
    SEATS,
)
from app.storage.pair_counts import COUNTS
from app.storage.rating_writes import event_record, rating_record
from app.storage.records import FINISHED

# Rows of finished matches' seats fetched at a time.
ROWS_PER_FETCH = 2000

# Rating events held before they are loaded (each load is one COPY on PostgreSQL).
EVENT_BATCH = 50_000


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
    public: bool
    rated: bool
    seats: list[SeatAtEnd]
    places: dict[int, int | None]


async def rebuild_ratings(engine: AsyncEngine) -> Rebuilt:
    async with engine.begin() as connection:
        known = {row.id for row in await connection.execute(select(PLAYERS.c.id))}
        await empty(connection, RATING_TOTALS, CIRCLE_SIZES)
        last = (await connection.execute(select(func.max(MATCHES.c.rating_seq)))).scalar()
        next_seq = (last or 0) + 1
        ratings: dict[tuple[str, str], Rating] = {}
        events: list[tuple[Any, ...]] = []
        renumbered: list[tuple[str, int]] = []
        counted = 0
        at = datetime.now(UTC)
        pairs = PairCounts(known)
        async with unindexed(connection, RATING_EVENTS, RATINGS, PLAYER_PAIRS):
            # Emptied once their indexes are gone: SQLite deletes row by row, from every index
            # (a minute for 2.5 million events with theirs, 12 s without).
            await empty(connection, RATING_EVENTS, RATINGS, PLAYER_PAIRS)
            async for match in _finished_matches(connection):
                rated_now: set[str] = set()
                sides = _present(rated_sides(match.game, match.result or {}, match.seats), known)
                if match.rated and len(sides) >= 2:
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
                        event = event_record(match.id, pid, mode, seq, change, at, match.public)
                        events.append(event)
                        rated_now.add(pid)
                    counted += 1
                    if len(events) >= EVENT_BATCH:
                        await load(connection, RATING_EVENTS, events)
                        events = []
                pairs.add(match, rated_now)
            await load(connection, RATING_EVENTS, events)
            del events
            records = (rating_record(pid, mode, r, at) for (pid, mode), r in ratings.items())
            await load(connection, RATINGS, records)
            await load(connection, PLAYER_PAIRS, pairs.records())
        per_mode = select(RATINGS.c.mode, func.count()).group_by(RATINGS.c.mode)
        await connection.execute(insert(RATING_TOTALS).from_select(["mode", "players"], per_mode))
        # From the pairs and ratings just loaded, by the query the migration filled them with.
        await connection.execute(insert(CIRCLE_SIZES).from_select(COLUMNS, all_circles()))
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
    return Rebuilt(matches=counted, ratings=len(ratings))


class PairCounts:
    """app.storage.pair_counts's counts, made in Python as the matches stream by (the query
    a live end runs over its own match, over a million matches at once, is left to the
    planners' estimates); the rebuild test holds the two to the same numbers."""

    def __init__(self, known: set[str]) -> None:
        # Each id once in memory, however many matches name it.
        self.known = {pid: pid for pid in known}
        # Per player, per other player: the counts in COUNTS' order. Nested rather than keyed
        # by the pair, which would keep a tuple for each of millions of pairs.
        self.counts: dict[str, dict[str, list[int]]] = {}

    def add(self, match: _Match, rated_now: set[str]) -> None:
        """A finished match's pairs; `rated_now`, the players it rated."""
        firsts: dict[str, int] = {}
        for seat in match.seats:
            rid = rated_id(match.game, seat)
            if rid is not None and rid in self.known and rid not in firsts:
                firsts[self.known[rid]] = seat.seat
        if len(firsts) < 2:
            return
        teams = match.game == "gin_rummy" and match.players == 4
        public = match.public
        places = match.places
        for me, mine in firsts.items():
            mine_place = places[mine]
            counts = self.counts.get(me)
            if counts is None:
                counts = self.counts[me] = {}
            for other, theirs in firsts.items():
                if other == me:
                    continue
                their_place = places[theirs]
                partners = teams and mine % 2 == theirs % 2
                duel = not partners and mine_place is not None and their_place is not None
                shared = me in rated_now and other in rated_now
                if not (duel or shared):
                    continue
                row = counts.get(other)
                if row is None:
                    row = counts[other] = [0] * len(COUNTS)
                # COUNTS: shared, shared_public, duels, wins, losses, and the three public.
                if shared:
                    row[0] += 1
                    if public:
                        row[1] += 1
                if duel:
                    won = mine_place < their_place  # type: ignore[operator]
                    lost = mine_place > their_place  # type: ignore[operator]
                    row[2] += 1
                    row[3] += won
                    row[4] += lost
                    if public:
                        row[5] += 1
                        row[6] += won
                        row[7] += lost

    def records(self) -> Iterator[tuple[Any, ...]]:
        """player_pairs rows as values, in the table's column order."""
        for me, others in self.counts.items():
            for other, row in others.items():
                yield (me, other, *row)


def _present(sides: list[RatedSide], known: set[str]) -> list[RatedSide]:
    """The sides without players that no longer exist (forgotten), as a live end skips them."""
    kept = []
    for side in sides:
        members = tuple(pid for pid in side.players if pid in known)
        if members:
            kept.append(RatedSide(members, side.rank))
    return kept


async def _finished_matches(connection: AsyncConnection) -> AsyncIterator[_Match]:
    """The finished matches with their seats, rated ones in the order they are to be folded
    (the others, which rate nothing, among those that have no rating_seq yet)."""
    query = (
        select(
            MATCHES.c.id,
            MATCHES.c.game,
            MATCHES.c.players,
            # As its text, parsed once per match rather than once per seat's row.
            cast(MATCHES.c.result, Text),
            MATCHES.c.rating_seq,
            MATCHES.c.public,
            MATCHES.c.rated,
            SEATS.c.seat,
            SEATS.c.player_id,
            SEATS.c.kind,
            SEATS.c.level,
            SEATS.c.place,
        )
        .join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        .where(MATCHES.c.status == FINISHED)
        .order_by(
            MATCHES.c.rating_seq.is_(None),
            MATCHES.c.rating_seq,
            MATCHES.c.finished_at,
            MATCHES.c.id,
            SEATS.c.seat,
        )
    )
    current: _Match | None = None
    rows = await connection.stream(query.execution_options(yield_per=ROWS_PER_FETCH))
    # A partition at a time: each row taken alone from an async result is a greenlet switch.
    async for partition in rows.partitions():
        for (
            match_id,
            game,
            players,
            result,
            seq,
            public,
            rated,
            seat,
            pid,
            kind,
            level,
            place,
        ) in partition:
            if current is None or current.id != match_id:
                if current is not None:
                    yield current
                document = None if result is None else json.loads(result)
                current = _Match(
                    match_id, game, players, document, seq, bool(public), bool(rated), [], {}
                )
            current.seats.append(SeatAtEnd(seat, pid, kind, level))
            current.places[seat] = place
    if current is not None:
        yield current
