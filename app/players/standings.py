"""Leaderboards and profiles, read from the ratings and the counts kept beside them.

Privacy follows the room: a private room's matches show in a profile, a head to head or a
circle of friends only to the player themself. Ratings themselves count every rated match,
private ones too, as the numbers tell nothing of who played whom.

Every read is bounded by what it shows, not by how much a player has played: a board's page
and total come from the ratings' index and the players counted per mode; a circle's total
from its size kept per player and mode (app.storage.circle_sizes), its page from the player's
pairs (app.storage.pair_counts), one row per player met; a profile's recent matches
from the first entries of the index of the player's seats by end time (a bot's: of its rating
events), its head to head from the pairs' index by matches played.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import BindParameter, Select, and_, bindparam, func, literal, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.players.identity import PLAYER_BY_ID, Player, player_from_row
from app.players.rating_math import PROVISIONAL_MATCHES, SeatAtEnd, rated_id
from app.storage.circle_sizes import circle_total
from app.storage.models import (
    MATCHES,
    PLAYER_PAIRS,
    PLAYERS,
    RATING_EVENTS,
    RATING_TOTALS,
    RATINGS,
    SEATS,
)
from app.storage.sql_reads import utc

RECENT_MATCHES = 20
HISTORY_POINTS = 200
# A profile's head to head: the opponents met most often.
HEAD_TO_HEAD = 50
# A circle this large has its page found walking the board (Standings.leaderboard).
LARGE_CIRCLE = 1000


@dataclass(frozen=True)
class BoardRow:
    rank: int
    player_id: str
    name: str
    kind: str
    rating: int
    matches: int
    provisional: bool


@dataclass(frozen=True)
class RatingPoint:
    match_id: str | None
    at: datetime
    rating: int


@dataclass(frozen=True)
class ModeRating:
    mode: str
    rating: int
    mu: float
    sigma: float
    matches: int
    provisional: bool
    history: list[RatingPoint]


@dataclass(frozen=True)
class RecentMatch:
    match_id: str
    game: str
    players: int
    status: str
    finished_at: datetime | None
    seat: int
    place: int | None
    rating_before: int | None
    rating_after: int | None
    opponents: list[str]


@dataclass(frozen=True)
class HeadToHead:
    player_id: str
    name: str
    matches: int
    wins: int
    losses: int


@dataclass(frozen=True)
class Profile:
    player: Player
    ratings: list[ModeRating]
    recent: list[RecentMatch]
    head_to_head: list[HeadToHead]


class Standings:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def leaderboard(
        self, *, mode: str, circle_of: str | None, reader_id: str | None, limit: int, offset: int
    ) -> tuple[list[BoardRow], int]:
        """Rated players of a mode by shown rating; with `circle_of`, only that player and
        those who shared a rated match with them (that the reader may see)."""
        order = (RATINGS.c.display.desc(), RATINGS.c.player_id.desc())
        async with reading(self.engine) as connection:
            if circle_of is None:
                # The page is found in the ratings' index alone (mode, display, player_id: the
                # order shown, so a deep offset skips index entries, not rows). Equal ratings
                # are ordered by player id, from the end.
                chosen: Select[Any] = select(RATINGS.c.player_id).where(RATINGS.c.mode == mode)
                counted = select(RATING_TOTALS.c.players).where(RATING_TOTALS.c.mode == mode)
                total = (await connection.execute(counted)).scalar() or 0
            else:
                total, chosen, order = await _circle(
                    connection, mode, circle_of, reader_id, offset + limit
                )
            page = chosen.order_by(*order).limit(limit).offset(offset).subquery("page")
            query = (
                select(
                    RATINGS.c.player_id,
                    PLAYERS.c.name,
                    PLAYERS.c.kind,
                    RATINGS.c.display,
                    RATINGS.c.matches,
                )
                .select_from(page)
                .join(
                    RATINGS, and_(RATINGS.c.player_id == page.c.player_id, RATINGS.c.mode == mode)
                )
                .join(PLAYERS, PLAYERS.c.id == RATINGS.c.player_id)
                .order_by(RATINGS.c.display.desc(), RATINGS.c.player_id.desc())
            )
            rows = list(await connection.execute(query))
        return [
            BoardRow(
                rank=offset + index + 1,
                player_id=row.player_id,
                name=row.name,
                kind=row.kind,
                rating=row.display,
                matches=row.matches,
                provisional=row.matches < PROVISIONAL_MATCHES,
            )
            for index, row in enumerate(rows)
        ], total

    async def profile(self, player_id: str, *, reader_id: str | None) -> Profile | None:
        """The player's ratings with each mode's last HISTORY_POINTS points, the newest
        RECENT_MATCHES matches the reader may see, and the HEAD_TO_HEAD opponents met most
        often; None when there is no such player. Six statements on one connection, each built
        once (a profile is read far more often than anything is written)."""
        own = reader_id == player_id
        given = {"player": player_id}
        async with reading(self.engine) as connection:
            found = (await connection.execute(PLAYER_BY_ID, given)).first()
            if found is None:
                return None
            player = player_from_row(found)
            ratings = list(await connection.execute(_RATINGS_OF, given))
            history = await _history(connection, player, [row.mode for row in ratings], own)
            rows = list(await connection.execute(_recent(player.kind == "bot", own), given))
            duels = list(await connection.execute(_head_to_head(own), given))
        modes = [
            ModeRating(
                mode=row.mode,
                rating=row.display,
                mu=row.mu,
                sigma=row.sigma,
                matches=row.matches,
                provisional=row.matches < PROVISIONAL_MATCHES,
                history=history.get(row.mode, []),
            )
            for row in ratings
        ]
        recent = _read_matches(player, rows)
        head_to_head = [
            HeadToHead(row.other_id, row.name, row.matches, row.wins, row.losses) for row in duels
        ]
        return Profile(player, modes, recent, head_to_head)

    async def head_to_head(
        self, player: Player, *, reader_id: str | None, limit: int, offset: int
    ) -> tuple[list[HeadToHead], int]:
        """A page of every opponent the player met, most often first (the profile shows the
        first HEAD_TO_HEAD), and how many there are; the same privacy as the profile's."""
        own = reader_id == player.id
        page = _head_to_head(own).limit(limit).offset(offset)
        counted = _head_to_head(own).limit(None).order_by(None).subquery()
        given = {"player": player.id}
        async with reading(self.engine) as connection:
            rows = list(await connection.execute(page, given))
            total = await connection.scalar(select(func.count()).select_from(counted), given)
        entries = [
            HeadToHead(row.other_id, row.name, row.matches, row.wins, row.losses) for row in rows
        ]
        return entries, int(total or 0)

    async def rating_changes(self, match_id: str) -> dict[str, tuple[int, int]]:
        """Each rated player's shown rating before and after the match."""
        async with reading(self.engine) as connection:
            rows = await connection.execute(
                select(
                    RATING_EVENTS.c.player_id,
                    RATING_EVENTS.c.display_before,
                    RATING_EVENTS.c.display_after,
                ).where(RATING_EVENTS.c.match_id == match_id)
            )
            return {row.player_id: (row.display_before, row.display_after) for row in rows}


async def _circle(
    connection: AsyncConnection, mode: str, circle_of: str, reader_id: str | None, depth: int
) -> tuple[int, Select[Any], tuple[Any, ...]]:
    """A circle's total, and the query and order its page is cut from. The members are the
    player's pairs (their key) and the player; their total is kept per player and mode
    (app.storage.circle_sizes), read by key rather than joining each member to its rating. A
    large circle's page is then found walking the board in its index, each entry's pair
    looked up by key (a few entries per member shown); a small one's, by sorting its members'
    ratings (walking the board would visit most of it)."""
    pairs = PLAYER_PAIRS.c
    shared = pairs.shared if reader_id == circle_of else pairs.shared_public
    members = union_all(
        select(pairs.other_id.label("player_id")).where(pairs.player_id == circle_of, shared > 0),
        select(literal(circle_of, PLAYERS.c.id.type).label("player_id")),
    ).subquery("members")
    # OFFSET 0 keeps the planners from walking the whole board in its index and probing the
    # members for each entry.
    rated = (
        select(RATINGS.c.player_id, RATINGS.c.display)
        .select_from(members)
        .join(RATINGS, and_(RATINGS.c.player_id == members.c.player_id, RATINGS.c.mode == mode))
        .offset(0)
        .subquery("rated")
    )
    counted = circle_total(circle_of, mode, public=reader_id != circle_of)
    total = (await connection.execute(counted)).scalar() or 0
    if total >= LARGE_CIRCLE and depth <= total // 2:
        met = (
            select(pairs.player_id)
            .where(pairs.player_id == circle_of, pairs.other_id == RATINGS.c.player_id, shared > 0)
            .exists()
        )
        walked = select(RATINGS.c.player_id).where(
            RATINGS.c.mode == mode, or_(RATINGS.c.player_id == circle_of, met)
        )
        return total, walked, (RATINGS.c.display.desc(), RATINGS.c.player_id.desc())
    return total, select(rated.c.player_id), (rated.c.display.desc(), rated.c.player_id.desc())


@asynccontextmanager
async def reading(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection for reads, outside a transaction: at READ COMMITTED each statement sees
    its own snapshot either way, and a transaction would only add a BEGIN and a ROLLBACK to
    each read's round trips."""
    async with engine.connect() as connection:
        yield await connection.execution_options(isolation_level="AUTOCOMMIT")


_RATINGS_OF = (
    select(RATINGS).where(RATINGS.c.player_id == bindparam("player")).order_by(RATINGS.c.mode)
)


@cache
def _history_points(modes: tuple[str, ...]) -> Select[Any]:
    """Each of the modes' last points through the ix_rating_events_chart index, in one
    statement (built once per set of modes a player is rated in); each point says whether its
    match was a public room's."""
    per_mode = [
        select(
            RATING_EVENTS.c.mode,
            RATING_EVENTS.c.seq,
            RATING_EVENTS.c.match_id,
            RATING_EVENTS.c.at,
            RATING_EVENTS.c.display_after,
            RATING_EVENTS.c.public,
        )
        .where(RATING_EVENTS.c.player_id == bindparam("player"), RATING_EVENTS.c.mode == mode)
        .order_by(RATING_EVENTS.c.seq.desc())
        .limit(HISTORY_POINTS)
        .subquery()
        for mode in modes
    ]
    points = union_all(*(select(part) for part in per_mode)).subquery("points")
    return select(points).order_by(points.c.mode, points.c.seq)


async def _history(
    connection: AsyncConnection, player: Player, modes: list[str], own: bool
) -> dict[str, list[RatingPoint]]:
    """Each mode's last points; a private match's point shows no match to others."""
    if not modes:
        return {}
    rows = await connection.execute(_history_points(tuple(modes)), {"player": player.id})
    history: dict[str, list[RatingPoint]] = {}
    for row in rows:
        shown = own or row.public
        history.setdefault(row.mode, []).append(
            RatingPoint(row.match_id if shown else None, utc(row.at), row.display_after)
        )
    return history


@cache
def _recent(bot: bool, own: bool) -> Select[Any]:
    """The seats, with their match and the player's rating change, of the player's newest
    ended matches that the reader may see (twice RECENT_MATCHES of them at most: one person
    may hold two seats of a match), newest first: a person's found in the index of seats by
    (player, end time), a bot's (its seats name no player) in the index of its rating events
    by (player, order rated)."""
    player: BindParameter[str] = bindparam("player")
    if bot:
        newest = (
            select(RATING_EVENTS.c.match_id.label("match_id"))
            .where(RATING_EVENTS.c.player_id == player)
            .order_by(RATING_EVENTS.c.seq.desc())
        )
        if not own:
            newest = newest.where(RATING_EVENTS.c.public.is_(True))
    else:
        newest = (
            select(SEATS.c.match_id.label("match_id"))
            .where(SEATS.c.player_id == player, SEATS.c.ended_at.isnot(None))
            .order_by(SEATS.c.ended_at.desc(), SEATS.c.match_id.desc())
        )
        if not own:
            newest = newest.join(MATCHES, MATCHES.c.id == SEATS.c.match_id).where(
                MATCHES.c.public.is_(True)
            )
    ids = newest.limit(2 * RECENT_MATCHES).subquery("newest")
    event = RATING_EVENTS.alias("event")
    return (
        select(
            MATCHES.c.id,
            MATCHES.c.game,
            MATCHES.c.players,
            MATCHES.c.status,
            MATCHES.c.finished_at,
            MATCHES.c.result,
            SEATS.c.seat,
            SEATS.c.name,
            SEATS.c.player_id,
            SEATS.c.kind,
            SEATS.c.level,
            SEATS.c.place,
            event.c.display_before,
            event.c.display_after,
        )
        .select_from(
            MATCHES.join(SEATS, SEATS.c.match_id == MATCHES.c.id).outerjoin(
                event, and_(event.c.match_id == MATCHES.c.id, event.c.player_id == player)
            )
        )
        .where(MATCHES.c.id.in_(select(ids.c.match_id)))
        .order_by(MATCHES.c.finished_at.desc(), MATCHES.c.id.desc(), SEATS.c.seat)
    )


@cache
def _head_to_head(own: bool) -> Select[Any]:
    """The opponents (who still exist) the player met most often, with the player's wins and
    losses against each: the pairs' counts over every match for the player themself, over
    public rooms' matches for anyone else."""
    pairs = PLAYER_PAIRS
    if own:
        duels, wins, losses = pairs.c.duels, pairs.c.wins, pairs.c.losses
    else:
        duels, wins, losses = pairs.c.duels_public, pairs.c.wins_public, pairs.c.losses_public
    return (
        select(
            pairs.c.other_id,
            PLAYERS.c.name,
            duels.label("matches"),
            wins.label("wins"),
            losses.label("losses"),
        )
        .join(PLAYERS, PLAYERS.c.id == pairs.c.other_id)
        .where(pairs.c.player_id == bindparam("player"), duels > 0)
        .order_by(duels.desc(), pairs.c.other_id.desc())
        .limit(HEAD_TO_HEAD)
    )


def _partners(result: dict[str, Any] | None, seat: int) -> set[int]:
    for side in (result or {}).get("sides") or []:
        if isinstance(side, dict) and seat in (side.get("seats") or []):
            return set(side["seats"])
    return {seat}


def _read_matches(player: Player, rows: list[Any]) -> list[RecentMatch]:
    """The newest RECENT_MATCHES matches from their seats' rows (newest first, by seat)."""
    by_match: dict[str, list[Any]] = {}
    for row in rows:
        if row.id in by_match or len(by_match) < RECENT_MATCHES:
            by_match.setdefault(row.id, []).append(row)
    recent: list[RecentMatch] = []
    for seats in by_match.values():
        match = seats[0]
        ids = [rated_id(match.game, SeatAtEnd(r.seat, r.player_id, r.kind, r.level)) for r in seats]
        mine = [row for row, pid in zip(seats, ids, strict=True) if pid == player.id]
        if not mine:
            continue
        me = mine[0]
        side = _partners(match.result, me.seat)
        opponents = [
            row
            for row, pid in zip(seats, ids, strict=True)
            if row.seat not in side and pid != player.id
        ]
        recent.append(
            RecentMatch(
                match_id=match.id,
                game=match.game,
                players=match.players,
                status=match.status,
                finished_at=utc(match.finished_at) if match.finished_at else None,
                seat=me.seat,
                place=me.place,
                rating_before=match.display_before,
                rating_after=match.display_after,
                opponents=[row.name for row in opponents],
            )
        )
    return recent
