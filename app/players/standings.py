"""Leaderboards and profiles, read from the ratings and the finished matches.

Privacy follows the room: a private room's matches show in a profile, a head to head or a
circle of friends only to a reader who played in them. Ratings themselves count every rated
match, private ones too, as the numbers tell nothing of who played whom.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select, true
from sqlalchemy.ext.asyncio import AsyncEngine

from app.players.identity import Player
from app.players.rating_math import PROVISIONAL_MATCHES, SeatAtEnd, rated_id
from app.storage.models import MATCHES, PLAYERS, RATING_EVENTS, RATINGS, SEATS

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


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


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
            shared = (
                select(theirs.c.player_id)
                .join(mine, mine.c.match_id == theirs.c.match_id)
                .join(MATCHES, MATCHES.c.id == mine.c.match_id)
                .where(mine.c.player_id == circle_of, _visible(reader_id, circle_of))
            )
            chosen = chosen & or_(RATINGS.c.player_id == circle_of, RATINGS.c.player_id.in_(shared))
        query = (
            select(
                RATINGS.c.player_id,
                PLAYERS.c.name,
                PLAYERS.c.kind,
                RATINGS.c.display,
                RATINGS.c.matches,
            )
            .join(PLAYERS, PLAYERS.c.id == RATINGS.c.player_id)
            .where(chosen)
        )
        async with self.engine.connect() as connection:
            total = (
                await connection.execute(select(func.count()).select_from(RATINGS).where(chosen))
            ).scalar_one()
            rows = list(
                await connection.execute(
                    query.order_by(RATINGS.c.display.desc(), RATINGS.c.player_id)
                    .limit(limit)
                    .offset(offset)
                )
            )
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
        async with self.engine.connect() as connection:
            ratings = list(
                await connection.execute(
                    select(RATINGS).where(RATINGS.c.player_id == player.id).order_by(RATINGS.c.mode)
                )
            )
            events = list(
                await connection.execute(
                    select(
                        RATING_EVENTS.c.mode,
                        RATING_EVENTS.c.match_id,
                        RATING_EVENTS.c.at,
                        RATING_EVENTS.c.display_after,
                        MATCHES.c.public,
                    )
                    .join(MATCHES, MATCHES.c.id == RATING_EVENTS.c.match_id)
                    .where(RATING_EVENTS.c.player_id == player.id)
                    .order_by(RATING_EVENTS.c.seq.desc())
                    .limit(HISTORY_POINTS * 6)
                )
            )
            if player.kind == "bot":
                played = select(RATING_EVENTS.c.match_id).where(
                    RATING_EVENTS.c.player_id == player.id
                )
            else:
                played = select(SEATS.c.match_id).where(SEATS.c.player_id == player.id)
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
                    .where(
                        MATCHES.c.id.in_(played),
                        MATCHES.c.status != "active",
                        _visible(reader_id, player.id),
                    )
                    .order_by(MATCHES.c.finished_at.desc(), MATCHES.c.id.desc())
                    .limit(PROFILE_MATCHES)
                )
            )
            ids = [row.id for row in matches]
            seats: dict[str, list[Any]] = {}
            changes: dict[str, tuple[int, int]] = {}
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                for row in await connection.execute(
                    select(SEATS).where(SEATS.c.match_id.in_(chunk)).order_by(SEATS.c.seat)
                ):
                    seats.setdefault(row.match_id, []).append(row)
                for row in await connection.execute(
                    select(
                        RATING_EVENTS.c.match_id,
                        RATING_EVENTS.c.display_before,
                        RATING_EVENTS.c.display_after,
                    ).where(
                        RATING_EVENTS.c.match_id.in_(chunk),
                        RATING_EVENTS.c.player_id == player.id,
                    )
                ):
                    changes[row.match_id] = (row.display_before, row.display_after)
        own = reader_id == player.id
        history: dict[str, list[RatingPoint]] = {}
        for row in reversed(events):
            point = RatingPoint(
                row.match_id if own or row.public else None, _utc(row.at), row.display_after
            )
            history.setdefault(row.mode, []).append(point)
        modes = [
            ModeRating(
                mode=row.mode,
                rating=row.display,
                mu=row.mu,
                sigma=row.sigma,
                matches=row.matches,
                provisional=row.matches < PROVISIONAL_MATCHES,
                history=history.get(row.mode, [])[-HISTORY_POINTS:],
            )
            for row in ratings
        ]
        recent, duels = _read_matches(player, matches, seats, changes)
        names = await self._names(list(duels))
        head_to_head = [
            HeadToHead(pid, names.get(pid, ""), count["matches"], count["wins"], count["losses"])
            for pid, count in duels.items()
            if pid in names
        ]
        head_to_head.sort(key=lambda h: (-h.matches, h.name.casefold()))
        return Profile(player, modes, recent, head_to_head)

    async def _names(self, player_ids: list[str]) -> dict[str, str]:
        names: dict[str, str] = {}
        async with self.engine.connect() as connection:
            for start in range(0, len(player_ids), 500):
                chunk = player_ids[start : start + 500]
                rows = await connection.execute(
                    select(PLAYERS.c.id, PLAYERS.c.name).where(PLAYERS.c.id.in_(chunk))
                )
                names.update({row.id: row.name for row in rows})
        return names

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


def _read_matches(
    player: Player,
    matches: list[Any],
    seats: dict[str, list[Any]],
    changes: dict[str, tuple[int, int]],
) -> tuple[list[RecentMatch], dict[str, Counter[str]]]:
    recent: list[RecentMatch] = []
    duels: dict[str, Counter[str]] = {}
    for match in matches:
        rows = seats.get(match.id, [])
        ids = [rated_id(match.game, SeatAtEnd(r.seat, r.player_id, r.kind, r.level)) for r in rows]
        mine = [row for row, pid in zip(rows, ids, strict=True) if pid == player.id]
        if not mine:
            continue
        me = mine[0]
        side = _partners(match.result, me.seat)
        opponents = [
            (row, pid)
            for row, pid in zip(rows, ids, strict=True)
            if row.seat not in side and pid != player.id
        ]
        if len(recent) < RECENT_MATCHES:
            before, after = changes.get(match.id, (None, None))
            recent.append(
                RecentMatch(
                    match_id=match.id,
                    game=match.game,
                    players=match.players,
                    status=match.status,
                    finished_at=_utc(match.finished_at) if match.finished_at else None,
                    seat=me.seat,
                    place=me.place,
                    rating_before=before,
                    rating_after=after,
                    opponents=[row.name for row, _ in opponents],
                )
            )
        if match.status != "finished" or me.place is None:
            continue
        for row, pid in opponents:
            if pid is None or row.place is None:
                continue
            count = duels.setdefault(pid, Counter())
            count["matches"] += 1
            count["wins"] += me.place < row.place
            count["losses"] += me.place > row.place
    return recent, duels
