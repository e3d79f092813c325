"""History: finished and running matches, their hands, replays and player statistics.

Privacy follows the room: a private room's matches are listed, detailed and replayed only for
a reader who sat in them (their player key, or a seat token of the match) or who holds the
room's invite link (`?room=<room id>`); for anyone else they do not exist (404).

A replay is rebuilt by running the stored action log through the engine from the stored seed,
so it shows exactly what happened. While a match is still being played only public data leaves
here (the spectator's view; no seed, which would reveal every deal); once it is over each step
also carries every seat's view, so every hand can be watched with its cards face up.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import Field

from app.api.deps import authorization, optional_player
from app.api.errors import ApiError
from app.api.schemas import Answer, ChatLine, ErrorBody, published
from app.games.engine import IllegalAction, known_fields
from app.games.registry import GAMES, engine_for
from app.players.rating_math import SeatAtEnd, rated_id
from app.players.standings import Standings
from app.rooms.chat import line_out
from app.rooms.tokens import hash_token
from app.storage.player_stats import winning_seats
from app.storage.store import (
    ACTIVE,
    ChatRecord,
    MatchStore,
    MatchSummary,
    Reader,
    SeatRecord,
    StoredMatch,
)

router = APIRouter(prefix="/api", tags=["history"])

MAX_PAGE = 100


async def get_store(request: Request) -> MatchStore:
    store: MatchStore = request.app.state.store
    return store


StoreDep = Annotated[MatchStore, Depends(get_store)]
MatchId = Annotated[str, Path(min_length=1, max_length=64)]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody}}


class SeatOut(Answer):
    seat: int
    name: str
    player_id: str | None = Field(description="The seat's player; null if anonymous")
    kind: str
    level: str | None
    final_score: int | None
    place: int | None = Field(description="Finishing place once over, 0 first")


class RatingChangeOut(Answer):
    seat: int
    player_id: str
    before: int
    after: int


class MatchOut(Answer):
    match_id: str
    room_id: str
    game: str
    players: int
    status: Literal["active", "finished", "abandoned"]
    created_at: datetime
    finished_at: datetime | None
    seats: list[SeatOut]
    winners: list[int] = Field(description="Winning seats; empty until the match is over")


class MatchPage(Answer):
    items: list[MatchOut]
    total: int = Field(description="Matches meeting the filters, over all pages")
    limit: int
    offset: int


class HandOut(Answer):
    hand_index: int
    result: dict[str, Any] = Field(description="The engine's record of the hand or round")
    at: datetime


class MatchDetailOut(MatchOut):
    config: dict[str, Any]
    seed: int | None = Field(description="Shown once the match is over: it fixes every deal")
    action_count: int
    result: dict[str, Any] | None
    hands: list[HandOut]
    rating_changes: list[RatingChangeOut] = Field(
        description="Each rated seat's shown rating before and after the match"
    )


ViewJson = Annotated[dict[str, Any], published("GameView")]


class ReplayStep(Answer):
    index: int
    seat: int | None
    action: Annotated[dict[str, Any], published("Action")]
    at: datetime
    view: ViewJson = Field(description="The spectator's view after this action")
    seat_views: list[ViewJson] | None = Field(
        description="Every seat's view after this action; only once the match is over"
    )


class Replay(Answer):
    match: MatchOut
    initial_view: ViewJson
    initial_seat_views: list[ViewJson] | None
    steps: list[ReplayStep]
    hand_results: list[dict[str, Any]] = Field(description="Only once the match is over")
    chat: list[ChatLine] = Field(
        description="The table's talk during the match (and after it, until a rematch)"
    )


class GinRummyStatsOut(Answer):
    hands_played: int
    hands_won: int
    knocks: int
    gins: int
    big_gins: int
    undercuts: int = Field(description="Hands won by undercutting the knocker")
    undercut_against: int = Field(description="Knocks that were undercut")
    average_deadwood_at_knock: float | None


class RummikubStatsOut(Answer):
    rounds_played: int
    rounds_won: int


class PlayerStatsOut(Answer):
    name: str
    matches_played: int = Field(description="Finished matches with a seat of this name")
    matches_won: int
    matches_by_game: dict[str, int]
    gin_rummy: GinRummyStatsOut
    rummikub: RummikubStatsOut


def seat_out(seat: SeatRecord) -> SeatOut:
    return SeatOut(
        seat=seat.seat,
        name=seat.name,
        player_id=seat.player_id,
        kind=seat.kind,
        level=seat.level,
        final_score=seat.final_score,
        place=seat.place,
    )


def match_out(match: MatchSummary | StoredMatch) -> MatchOut:
    return MatchOut(
        match_id=match.match_id,
        room_id=match.room_id,
        game=match.game,
        players=match.players,
        status=match.status,  # type: ignore[arg-type]
        created_at=match.created_at,
        finished_at=match.finished_at,
        seats=[seat_out(s) for s in match.seats],
        winners=sorted(winning_seats(match.result)),
    )


def build_replay(stored: StoredMatch, chat: list[ChatRecord]) -> Replay:
    """Run the log through the engine; CPU work, so the route runs it in a thread."""
    engine_cls = engine_for(stored.game)
    engine = engine_cls.new(stored.config, stored.players, seed=stored.seed)
    over = stored.status != ACTIVE
    seats = range(stored.players)

    def seat_views() -> list[dict[str, Any]] | None:
        return [engine.view(seat) for seat in seats] if over else None

    initial_view, initial_seat_views = engine.view(None), seat_views()
    steps = []
    for record in stored.actions:
        try:
            engine.apply(record.seat, known_fields(record.action, engine_cls.action_fields))
        except IllegalAction as error:
            raise ApiError(
                "replay_failed",
                f"action {record.index} of match {stored.match_id} no longer replays: {error}",
                500,
            ) from error
        steps.append(
            ReplayStep(
                index=record.index,
                seat=record.seat,
                action=record.action,
                at=record.at,
                view=engine.view(None),
                seat_views=seat_views(),
            )
        )
    return Replay(
        match=match_out(stored),
        initial_view=initial_view,
        initial_seat_views=initial_seat_views,
        steps=steps,
        hand_results=engine.hand_results() if over else [],
        chat=[ChatLine.model_validate(line_out(record)) for record in chat],
    )


def not_found(match_id: str) -> ApiError:
    return ApiError("match_not_found", f"no match with id {match_id!r}", 404)


RoomKey = Annotated[
    str | None,
    Query(
        alias="room",
        min_length=1,
        max_length=64,
        description="A room id from an invite link: that room's private matches too",
    ),
]


async def get_reader(request: Request, room: RoomKey = None) -> Reader:
    """Who reads: the player of a Player key, or the seat of a Bearer seat token."""
    given = authorization(request)
    if given is None:
        return Reader(room_id=room)
    scheme, credentials = given
    if scheme == "bearer" and credentials:
        return Reader(token_hash=hash_token(credentials), room_id=room)
    player = await optional_player(request)
    if player is None:
        raise ApiError(
            "bad_authorization",
            "the Authorization header must be 'Bearer <seat token>' or 'Player <key>'",
        )
    return Reader(player_id=player.id, room_id=room)


ReaderDep = Annotated[Reader, Depends(get_reader)]


def summary_of(stored: StoredMatch) -> MatchSummary:
    return MatchSummary(
        match_id=stored.match_id,
        room_id=stored.room_id,
        game=stored.game,
        players=stored.players,
        status=stored.status,
        created_at=stored.created_at,
        finished_at=stored.finished_at,
        seats=stored.seats,
        result=stored.result,
        public=stored.room_meta.get("public") is not False,
    )


@router.get("/matches", responses={400: {"model": ErrorBody, "description": "unknown_game"}})
async def list_matches(
    store: StoreDep,
    reader: ReaderDep,
    game: Annotated[str | None, Query(description="gin_rummy or rummikub")] = None,
    player: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
    status: Literal["active", "finished", "abandoned"] | None = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> MatchPage:
    """Matches newest first, filtered by game, a seat's display name and status: public rooms'
    matches, and the private ones the reader played in or holds the invite link of."""
    if game is not None and game not in GAMES:
        known = ", ".join(sorted(GAMES))
        raise ApiError("unknown_game", f"unknown game {game!r}; this server plays {known}")
    items, total = await store.list_matches(
        game=game, player=player, status=status, limit=limit, offset=offset, reader=reader
    )
    return MatchPage(items=[match_out(m) for m in items], total=total, limit=limit, offset=offset)


@router.get("/matches/{match_id}", responses=NOT_FOUND)
async def match_detail(
    request: Request, store: StoreDep, match_id: MatchId, reader: ReaderDep
) -> MatchDetailOut:
    """One match: seats with final scores and places, each hand's result, the match result
    and the rating changes it made."""
    detail = await store.match_detail(match_id=match_id)
    if detail is None or not reader.may_read(detail.summary):
        raise not_found(match_id)
    summary = detail.summary
    standings: Standings | None = getattr(request.app.state, "standings", None)
    changes = {} if standings is None else await standings.rating_changes(match_id)
    return MatchDetailOut(
        **match_out(summary).model_dump(),
        config=detail.config,
        seed=None if summary.status == ACTIVE else detail.seed,
        action_count=detail.action_count,
        result=summary.result,
        hands=[HandOut(hand_index=h.hand_index, result=h.result, at=h.at) for h in detail.hands],
        rating_changes=rating_changes_out(summary, changes),
    )


def rating_changes_out(
    summary: MatchSummary, changes: dict[str, tuple[int, int]]
) -> list[RatingChangeOut]:
    out = []
    for seat in summary.seats:
        pid = rated_id(summary.game, SeatAtEnd(seat.seat, seat.player_id, seat.kind, seat.level))
        if pid is not None and pid in changes:
            before, after = changes[pid]
            out.append(RatingChangeOut(seat=seat.seat, player_id=pid, before=before, after=after))
    return out


@router.get("/matches/{match_id}/replay", responses={**NOT_FOUND, 403: {"model": ErrorBody}})
async def match_replay(store: StoreDep, match_id: MatchId, reader: ReaderDep) -> Replay:
    """Every logged action with the spectator's view after it (and every seat's, once over)."""
    stored = await store.load_match(match_id=match_id)
    if stored is None or not reader.may_read(summary_of(stored)):
        raise not_found(match_id)
    if stored.status == ACTIVE and stored.room_meta.get("spectators") is False:
        raise ApiError(
            "spectators_not_allowed",
            "this match is still being played in a room closed to spectators",
            403,
        )
    chat = await store.match_chat(match_id=match_id)
    return await asyncio.to_thread(build_replay, stored, chat)


@router.get("/players/{name}/stats", deprecated=True)
async def player_stats(
    store: StoreDep, name: Annotated[str, Path(min_length=1, max_length=64)]
) -> PlayerStatsOut:
    """Counts over the finished public matches in which a seat had this display name.

    Deprecated: display names are not unique; a player's profile (/api/players/{id}) counts
    the player's own matches."""
    stats = await store.player_stats(name=name)
    return PlayerStatsOut.model_validate(stats, from_attributes=True)
