"""Leaderboards and profiles, read from the ratings and the finished matches.

Privacy follows the room: a private room's matches show in a profile, a head to head or a
circle of friends only to a reader who played in them. Ratings themselves count every rated
match, private ones too, as the numbers tell nothing of who played whom.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    Subquery,
    and_,
    case,
    func,
    literal,
    null,
    or_,
    select,
    true,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from app.players.identity import Player
from app.players.rating_math import PROVISIONAL_MATCHES, SeatAtEnd, rated_id
from app.storage.models import MATCHES, PLAYERS, RATING_EVENTS, RATINGS, SEATS
from app.storage.records import FINISHED
from app.storage.sql_reads import utc

# A profile's head to head and recent matches look at this many of the newest matches.
PROFILE_MATCHES = 2000
RECENT_MATCHES = 20
HISTORY_POINTS = 200


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


def _visible(reader_id: str | None, owner_id: str) -> ColumnElement[bool]:
    """Matches of `owner_id` that `reader_id` may see: all of them for the owner themself."""
    if reader_id == owner_id:
        return true()
    return MATCHES.c.public.is_(True)


class Standings:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def leaderboard(
        self, *, mode: str, circle_of: str | None, reader_id: str | None, limit: int, offset: int
    ) -> tuple[list[BoardRow], int]:
        """Rated players of a mode by shown rating; with `circle_of`, only that player and
        those who shared a rated match with them (that the reader may see)."""
        chosen: ColumnElement[bool] = RATINGS.c.mode == mode
        if circle_of is not None:
            mine = RATING_EVENTS.alias("mine")
            theirs = RATING_EVENTS.alias("theirs")
            # The player's events first (their index), each match's visibility looked up from
            # there, then the other players by the events' key. As joins, SQLite (without
            # statistics) walked every public match, or every event, probing the player's.
            played = select(mine.c.match_id).where(mine.c.player_id == circle_of)
            if reader_id != circle_of:
                public = select(MATCHES.c.public).where(MATCHES.c.id == mine.c.match_id)
                played = played.where(public.scalar_subquery().is_(True))
            shared = select(theirs.c.player_id).where(theirs.c.match_id.in_(played))
            chosen = chosen & or_(RATINGS.c.player_id == circle_of, RATINGS.c.player_id.in_(shared))
        # The page is found in the ratings' index alone (mode, display, player_id: the order
        # shown, so a deep offset skips index entries, not rows), then only its rows are read
        # with their names. Equal ratings are ordered by player id, from the end.
        page = (
            select(RATINGS.c.player_id)
            .where(chosen)
            .order_by(RATINGS.c.display.desc(), RATINGS.c.player_id.desc())
            .limit(limit)
            .offset(offset)
            .subquery("page")
        )
        query = (
            select(
                RATINGS.c.player_id,
                PLAYERS.c.name,
                PLAYERS.c.kind,
                RATINGS.c.display,
                RATINGS.c.matches,
            )
            .select_from(page)
            .join(RATINGS, and_(RATINGS.c.player_id == page.c.player_id, RATINGS.c.mode == mode))
            .join(PLAYERS, PLAYERS.c.id == RATINGS.c.player_id)
            .order_by(RATINGS.c.display.desc(), RATINGS.c.player_id.desc())
        )
        async with self.engine.connect() as connection:
            total = (
                await connection.execute(select(func.count()).select_from(RATINGS).where(chosen))
            ).scalar_one()
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

    async def profile(self, player: Player, *, reader_id: str | None) -> Profile:
        """A rating's history through the index of the player's events of a mode, the recent
        matches' seats for those matches alone, and the head to head counted by the database
        over the newest PROFILE_MATCHES matches. Finding those still visits every seat of the
        player, and counting reads up to PROFILE_MATCHES matches: a busy player's profile costs
        in proportion (docs/performance.md, "Players and ratings at scale")."""
        async with self.engine.connect() as connection:
            ratings = list(
                await connection.execute(
                    select(RATINGS).where(RATINGS.c.player_id == player.id).order_by(RATINGS.c.mode)
                )
            )
            own = reader_id == player.id
            # Each mode's last points through the (player_id, mode, seq) index, all modes in
            # one statement.
            per_mode = [
                select(
                    RATING_EVENTS.c.mode,
                    RATING_EVENTS.c.seq,
                    RATING_EVENTS.c.match_id,
                    RATING_EVENTS.c.at,
                    RATING_EVENTS.c.display_after,
                    MATCHES.c.public,
                )
                .join(MATCHES, MATCHES.c.id == RATING_EVENTS.c.match_id)
                .where(
                    RATING_EVENTS.c.player_id == player.id,
                    RATING_EVENTS.c.mode == rating.mode,
                )
                .order_by(RATING_EVENTS.c.seq.desc())
                .limit(HISTORY_POINTS)
                .subquery()
                for rating in ratings
            ]
            history: dict[str, list[RatingPoint]] = {}
            if per_mode:
                points = union_all(*(select(part) for part in per_mode)).subquery("points")
                for row in await connection.execute(
                    select(points).order_by(points.c.mode, points.c.seq)
                ):
                    history.setdefault(row.mode, []).append(
                        RatingPoint(
                            row.match_id if own or row.public else None,
                            utc(row.at),
                            row.display_after,
                        )
                    )
            window = _newest_matches(player, reader_id)
            matches = list(
                await connection.execute(
                    select(
                        MATCHES.c.id,
                        MATCHES.c.game,
                        MATCHES.c.players,
                        MATCHES.c.status,
                        MATCHES.c.finished_at,
                        MATCHES.c.result,
                    )
                    .join(window, window.c.id == MATCHES.c.id)
                    .order_by(window.c.finished_at.desc(), window.c.id.desc())
                    .limit(RECENT_MATCHES)
                )
            )
            ids = [row.id for row in matches]
            seats: dict[str, list[Any]] = {}
            changes: dict[str, tuple[int, int]] = {}
            if ids:
                for row in await connection.execute(
                    select(SEATS).where(SEATS.c.match_id.in_(ids)).order_by(SEATS.c.seat)
                ):
                    seats.setdefault(row.match_id, []).append(row)
                for row in await connection.execute(
                    select(
                        RATING_EVENTS.c.match_id,
                        RATING_EVENTS.c.display_before,
                        RATING_EVENTS.c.display_after,
                    ).where(
                        RATING_EVENTS.c.match_id.in_(ids),
                        RATING_EVENTS.c.player_id == player.id,
                    )
                ):
                    changes[row.match_id] = (row.display_before, row.display_after)
            duels = list(await connection.execute(_head_to_head(player, window)))
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
        recent = _read_matches(player, matches, seats, changes)
        head_to_head = [
            HeadToHead(row.player_id, row.name, row.matches, int(row.wins), int(row.losses))
            for row in duels
        ]
        head_to_head.sort(key=lambda h: (-h.matches, h.name.casefold()))
        return Profile(player, modes, recent, head_to_head)

    async def rating_changes(self, match_id: str) -> dict[str, tuple[int, int]]:
        """Each rated player's shown rating before and after the match."""
        async with self.engine.connect() as connection:
            rows = await connection.execute(
                select(
                    RATING_EVENTS.c.player_id,
                    RATING_EVENTS.c.display_before,
                    RATING_EVENTS.c.display_after,
                ).where(RATING_EVENTS.c.match_id == match_id)
            )
            return {row.player_id: (row.display_before, row.display_after) for row in rows}


def _partners(result: dict[str, Any] | None, seat: int) -> set[int]:
    for side in (result or {}).get("sides") or []:
        if isinstance(side, dict) and seat in (side.get("seats") or []):
            return set(side["seats"])
    return {seat}


def _rated_id(seat: Any, game: Any) -> ColumnElement[Any]:
    """rated_id in SQL: the seat's player, or its bot's player id (None: anonymous)."""
    bot = literal("bot-") + game + literal("-") + seat.c.level
    return func.coalesce(
        seat.c.player_id,
        case((and_(seat.c.kind == "bot", seat.c.level.isnot(None)), bot), else_=null()),
    )


def _newest_matches(player: Player, reader_id: str | None) -> Subquery:
    """The newest PROFILE_MATCHES ended matches of the player that the reader may see."""
    columns = (
        MATCHES.c.id,
        MATCHES.c.finished_at,
        MATCHES.c.game,
        MATCHES.c.players,
        MATCHES.c.status,
    )
    if player.kind == "bot":
        played = select(*columns).join(RATING_EVENTS, RATING_EVENTS.c.match_id == MATCHES.c.id)
        mine: ColumnElement[bool] = RATING_EVENTS.c.player_id == player.id
    else:
        # A join, not IN (...): the planner then walks the player's seats to their matches
        # instead of scanning every match; distinct, as one person may hold two seats.
        played = select(*columns).distinct().join(SEATS, SEATS.c.match_id == MATCHES.c.id)
        mine = SEATS.c.player_id == player.id
    return (
        played.where(mine, MATCHES.c.status != "active", _visible(reader_id, player.id))
        .order_by(MATCHES.c.finished_at.desc(), MATCHES.c.id.desc())
        .limit(PROFILE_MATCHES)
        .subquery("newest")
    )


def _head_to_head(player: Player, window: Subquery) -> Select[Any]:
    """Per rated opponent (who still exists) in the finished matches of `window`: matches,
    wins and losses, counted from the player's first seat of each match. Partners are not
    opponents: the only sides of more than one seat are Gin Rummy's partnerships at four,
    seats 0 and 2 against 1 and 3 (app.games.gin_rummy.match_score.sides_for)."""
    seat = SEATS.alias("seat")
    me = SEATS.alias("me")
    other = SEATS.alias("other")
    first = (
        select(
            seat.c.match_id,
            func.min(seat.c.seat).label("seat"),
            func.min(window.c.game).label("game"),
            func.min(window.c.players).label("players"),
        )
        .select_from(window)
        .join(seat, seat.c.match_id == window.c.id)
        .where(window.c.status == FINISHED, _rated_id(seat, window.c.game) == player.id)
        .group_by(seat.c.match_id)
        .subquery("first")
    )
    opponent = _rated_id(other, first.c.game)
    partners = and_(
        first.c.game == "gin_rummy", first.c.players == 4, me.c.seat % 2 == other.c.seat % 2
    )
    counted = (
        select(
            opponent.label("player_id"),
            func.count().label("matches"),
            func.sum(case((me.c.place < other.c.place, 1), else_=0)).label("wins"),
            func.sum(case((me.c.place > other.c.place, 1), else_=0)).label("losses"),
        )
        .select_from(first)
        .join(me, and_(me.c.match_id == first.c.match_id, me.c.seat == first.c.seat))
        .join(other, other.c.match_id == first.c.match_id)
        .where(
            other.c.seat != me.c.seat,
            me.c.place.isnot(None),
            other.c.place.isnot(None),
            opponent.isnot(None),
            opponent != player.id,
            ~partners,
        )
        .group_by(opponent)
        .subquery("counted")
    )
    return select(
        counted.c.player_id, PLAYERS.c.name, counted.c.matches, counted.c.wins, counted.c.losses
    ).join(PLAYERS, PLAYERS.c.id == counted.c.player_id)


def _read_matches(
    player: Player,
    matches: list[Any],
    seats: dict[str, list[Any]],
    changes: dict[str, tuple[int, int]],
) -> list[RecentMatch]:
    recent: list[RecentMatch] = []
    for match in matches:
        rows = seats.get(match.id, [])
        ids = [rated_id(match.game, SeatAtEnd(r.seat, r.player_id, r.kind, r.level)) for r in rows]
        mine = [row for row, pid in zip(rows, ids, strict=True) if pid == player.id]
        if not mine:
            continue
        me = mine[0]
        side = _partners(match.result, me.seat)
        opponents = [
            row
            for row, pid in zip(rows, ids, strict=True)
            if row.seat not in side and pid != player.id
        ]
        before, after = changes.get(match.id, (None, None))
        recent.append(
            RecentMatch(
                match_id=match.id,
                game=match.game,
                players=match.players,
                status=match.status,
                finished_at=utc(match.finished_at) if match.finished_at else None,
                seat=me.seat,
                place=me.place,
                rating_before=before,
                rating_after=after,
                opponents=[row.name for row in opponents],
            )
        )
    return recent
