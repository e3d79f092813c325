"""Players: an identity without an account, its devices, its profile; the leaderboards.

A player is created by `POST /api/players` and known afterwards by its secret key, sent as
`Authorization: Player <key>`. The routes under /api/players/me act on the key's player.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from pydantic import Field

from app.api.deps import IdentitiesDep, OptionalPlayerDep, PlayerDep
from app.api.errors import ApiError
from app.api.rate_limit import KeyedLimits
from app.api.schemas import Answer, ErrorBody
from app.api.schemas import Request as Body
from app.games.registry import GAMES, engine_for
from app.players.errors import PlayerError
from app.players.identity import Player
from app.players.keys import shown_code
from app.players.names import NAME_MAX
from app.players.rating_math import mode_of
from app.players.standings import Profile, Standings

router = APIRouter(prefix="/api", tags=["players"])
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody} for code in (400, 401, 404, 409, 422, 429, 503)
}
MAX_PAGE = 100
PlayerId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]


class LinkLimits:
    """A server's limits on link codes: a player makes a few in ten minutes, an address makes
    a few in ten minutes and tries a few a minute (with five wrong tries locking a code, a
    guess is hopeless)."""

    def __init__(self) -> None:
        self.codes_per_player = KeyedLimits(rate=3 / 600, burst=3)
        self.codes_per_address = KeyedLimits(rate=10 / 600, burst=10)
        self.tries_per_address = KeyedLimits(rate=10 / 60, burst=10)


async def get_link_limits(request: Request) -> LinkLimits:
    limits: LinkLimits = request.app.state.link_limits
    return limits


LinkLimitsDep = Annotated[LinkLimits, Depends(get_link_limits)]


class NewPlayer(Body):
    name: str = Field(min_length=1, max_length=200, description=f"1-{NAME_MAX} once cleaned")


class Rename(NewPlayer):
    pass


class LinkWith(Body):
    code: str = Field(min_length=1, max_length=20, description="The 8 characters shown")


class PlayerOut(Answer):
    id: str
    name: str
    kind: Literal["person", "bot"]
    created_at: datetime


class PlayerWithKey(Answer):
    id: str
    key: str = Field(description="The player's secret; shown once: keep it")
    name: str


class NewKey(Answer):
    key: str = Field(description="This device's new key; every other key is revoked")


class LinkCodeOut(Answer):
    code: str = Field(description="8 characters, shown as XXXX-XXXX; used once")
    expires_at: datetime


class RatingPointOut(Answer):
    match_id: str | None = Field(description="Null for a private match the reader did not play")
    at: datetime
    rating: int


class ModeRatingOut(Answer):
    mode: str = Field(description="game:players, e.g. gin_rummy:2")
    rating: int = Field(description="1500 + 20 x (mu - 3 sigma): 1500 for a new player")
    mu: float
    sigma: float
    matches: int
    provisional: bool = Field(description="Fewer than 10 rated matches in the mode")
    history: list[RatingPointOut]


class RecentMatchOut(Answer):
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


class HeadToHeadOut(Answer):
    player_id: str
    name: str
    matches: int
    wins: int = Field(description="Matches this player finished ahead of that one")
    losses: int


class ProfileOut(Answer):
    player: PlayerOut
    ratings: list[ModeRatingOut]
    recent_matches: list[RecentMatchOut]
    head_to_head: list[HeadToHeadOut]


class HeadToHeadPage(Answer):
    items: list[HeadToHeadOut]
    total: int
    limit: int
    offset: int


class BoardRowOut(Answer):
    rank: int
    player_id: str
    name: str
    kind: Literal["person", "bot"]
    rating: int
    matches: int
    provisional: bool


class Leaderboard(Answer):
    game: str
    mode: str
    items: list[BoardRowOut]
    total: int
    limit: int
    offset: int


async def get_standings(request: Request) -> Standings:
    standings: Standings | None = request.app.state.standings
    if standings is None:
        raise ApiError(
            "players_unavailable",
            "this server keeps its matches in memory only, and players need a database",
        )
    return standings


StandingsDep = Annotated[Standings, Depends(get_standings)]


def player_out(player: Player) -> PlayerOut:
    return PlayerOut(
        id=player.id,
        name=player.name,
        kind=player.kind,  # type: ignore[arg-type]
        created_at=player.created_at,
    )


def refused(error: PlayerError) -> ApiError:
    return ApiError(error.code, error.message)


def address_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@router.post("/players", status_code=status.HTTP_201_CREATED, responses=ERRORS)
async def create_player(body: NewPlayer, identities: IdentitiesDep) -> PlayerWithKey:
    """A new player with its secret key (shown this once) and a display name of its own."""
    try:
        player, key = await identities.create(body.name)
    except PlayerError as error:
        raise refused(error) from None
    return PlayerWithKey(id=player.id, key=key, name=player.name)


@router.get("/players/me", responses=ERRORS)
async def who_am_i(player: PlayerDep) -> PlayerOut:
    return player_out(player)


@router.patch("/players/me", responses=ERRORS)
async def rename(body: Rename, player: PlayerDep, identities: IdentitiesDep) -> PlayerOut:
    """A new display name; matches and ratings stay the player's."""
    try:
        return player_out(await identities.rename(player, body.name))
    except PlayerError as error:
        raise refused(error) from None


@router.delete("/players/me", status_code=status.HTTP_204_NO_CONTENT, responses=ERRORS)
async def forget(player: PlayerDep, identities: IdentitiesDep) -> Response:
    """Delete the player: keys, link codes and ratings go; past matches keep a neutral name."""
    await identities.forget(player)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/players/me/sign-out-others", responses=ERRORS)
async def sign_out_others(player: PlayerDep, identities: IdentitiesDep) -> NewKey:
    """Revoke every key of the player, this one too, and give this device a new one."""
    return NewKey(key=await identities.sign_out_others(player))


@router.post("/players/me/link-codes", status_code=status.HTTP_201_CREATED, responses=ERRORS)
async def new_link_code(
    request: Request, player: PlayerDep, identities: IdentitiesDep, limits: LinkLimitsDep
) -> LinkCodeOut:
    """A one-time code (10 minutes) that another device enters to become this player."""
    if not limits.codes_per_player.take(player.id) or not limits.codes_per_address.take(
        address_of(request)
    ):
        raise ApiError("rate_limited", "too many link codes asked for; wait a few minutes")
    try:
        code, expires = await identities.new_link_code(player)
    except PlayerError as error:
        raise refused(error) from None
    return LinkCodeOut(code=shown_code(code), expires_at=expires)


@router.post("/players/link", responses=ERRORS)
async def link_device(
    body: LinkWith, request: Request, identities: IdentitiesDep, limits: LinkLimitsDep
) -> PlayerWithKey:
    """Become the player whose link code this is: this device gets a key of its own."""
    if not limits.tries_per_address.take(address_of(request)):
        raise ApiError("rate_limited", "too many link codes tried; wait a minute")
    try:
        player, key = await identities.redeem(body.code)
    except PlayerError as error:
        raise refused(error) from None
    return PlayerWithKey(id=player.id, key=key, name=player.name)


@router.get("/players/{player_id}", responses=ERRORS)
async def profile(
    player_id: PlayerId,
    reader: OptionalPlayerDep,
    standings: StandingsDep,
) -> ProfileOut:
    """Name, ratings per mode with their history, recent matches and head to head. Private
    rooms' matches count only when the reader is this player."""
    found = await standings.profile(player_id, reader_id=None if reader is None else reader.id)
    if found is None:
        raise ApiError("player_not_found", f"no player with id {player_id!r}")
    return profile_out(found)


@router.get("/players/{player_id}/head-to-head", responses=ERRORS)
async def head_to_head(
    player_id: PlayerId,
    reader: OptionalPlayerDep,
    identities: IdentitiesDep,
    standings: StandingsDep,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> HeadToHeadPage:
    """Every opponent the player met, most often first, a page at a time (the profile holds
    the first 50). Private rooms' matches count only when the reader is this player."""
    player = await identities.get(player_id)
    if player is None:
        raise ApiError("player_not_found", f"no player with id {player_id!r}")
    entries, total = await standings.head_to_head(
        player, reader_id=None if reader is None else reader.id, limit=limit, offset=offset
    )
    return HeadToHeadPage(
        items=[HeadToHeadOut.model_validate(h, from_attributes=True) for h in entries],
        total=total,
        limit=limit,
        offset=offset,
    )


def profile_out(found: Profile) -> ProfileOut:
    return ProfileOut(
        player=player_out(found.player),
        ratings=[
            ModeRatingOut(
                mode=r.mode,
                rating=r.rating,
                mu=r.mu,
                sigma=r.sigma,
                matches=r.matches,
                provisional=r.provisional,
                # Up to 200 points a mode, typed as stored: built without validating each.
                history=[
                    RatingPointOut.model_construct(match_id=p.match_id, at=p.at, rating=p.rating)
                    for p in r.history
                ],
            )
            for r in found.ratings
        ],
        recent_matches=[
            RecentMatchOut.model_validate(m, from_attributes=True) for m in found.recent
        ],
        head_to_head=[
            HeadToHeadOut.model_validate(h, from_attributes=True) for h in found.head_to_head
        ],
    )


@router.get("/leaderboards/{game}", responses=ERRORS)
async def leaderboard(
    game: Annotated[str, Path(max_length=32)],
    reader: OptionalPlayerDep,
    identities: IdentitiesDep,
    standings: StandingsDep,
    mode: Annotated[int | None, Query(ge=2, le=4, description="Players; the game's fewest")] = None,
    with_: Annotated[
        str | None,
        Query(alias="with", min_length=1, max_length=32, description="A player id: their circle"),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> Leaderboard:
    """Rated players by rating; `with` narrows it to those who shared a match with a player."""
    if game not in GAMES:
        known = ", ".join(sorted(GAMES))
        raise ApiError("unknown_game", f"unknown game {game!r}; this server plays {known}")
    low, high = engine_for(game).seat_range()
    players = low if mode is None else mode
    if not low <= players <= high:
        raise ApiError("unknown_mode", f"{game} is played by {low} to {high} players")
    if with_ is not None and await identities.get(with_) is None:
        raise ApiError("player_not_found", f"no player with id {with_!r}")
    key = mode_of(game, players)
    rows, total = await standings.leaderboard(
        mode=key,
        circle_of=with_,
        reader_id=None if reader is None else reader.id,
        limit=limit,
        offset=offset,
    )
    return Leaderboard(
        game=game,
        mode=key,
        items=[BoardRowOut.model_validate(row, from_attributes=True) for row in rows],
        total=total,
        limit=limit,
        offset=offset,
    )
