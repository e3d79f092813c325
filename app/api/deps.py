"""Typed dependencies shared by the routes.

They are coroutines although none of them waits: FastAPI runs a plain function dependency in
its thread pool, a thread hop per dependency per request, and under load starting a pool
thread stalled the event loop (and every room on it) for tens of milliseconds.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.errors import ApiError
from app.players.errors import PlayerError
from app.players.identity import Identities, Player
from app.rooms.access import RoomAccess, Rooms
from app.rooms.tokens import hash_token
from app.settings import Settings

bearer = HTTPBearer(auto_error=False, description="The seat token returned by join")


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_rooms(request: Request) -> Rooms:
    rooms: Rooms = request.app.state.rooms
    return rooms


SettingsDep = Annotated[Settings, Depends(get_settings)]
RoomsDep = Annotated[Rooms, Depends(get_rooms)]


async def get_room(room_id: str, rooms: RoomsDep) -> RoomAccess:
    return await rooms.find(room_id)


async def optional_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> str | None:
    """The sha256 of the bearer token, or None without an Authorization header (a spectator).

    A header that is there but is no bearer token ("Basic ...", a bare "Bearer") is refused:
    taken for a spectator, a client with a broken header would read the spectator's view and
    never learn why its seat is missing.
    """
    if credentials is not None and credentials.credentials.strip():
        return hash_token(credentials.credentials)
    if "authorization" in request.headers:
        raise ApiError(
            "bad_authorization", "the Authorization header must be 'Bearer <seat token>'"
        )
    return None


async def required_token(token_hash: Annotated[str | None, Depends(optional_token)]) -> str:
    if token_hash is None:
        raise ApiError("missing_token", "send the seat token as 'Authorization: Bearer <token>'")
    return token_hash


PLAYER_SCHEME = "player"


def authorization(request: Request) -> tuple[str, str] | None:
    """(scheme in lower case, credentials) of the Authorization header, or None without one."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, credentials = header.strip().partition(" ")
    return scheme.lower(), credentials.strip()


async def get_identities(request: Request) -> Identities:
    identities: Identities | None = getattr(request.app.state, "identities", None)
    if identities is None:
        raise ApiError(
            "players_unavailable",
            "this server keeps its matches in memory only, and players need a database",
        )
    return identities


async def optional_player(request: Request) -> Player | None:
    """The player of an 'Authorization: Player <key>' header; None without a Player header."""
    given = authorization(request)
    if given is None or given[0] != PLAYER_SCHEME:
        return None
    if not given[1]:
        raise ApiError("bad_player_key", "the header must be 'Authorization: Player <key>'")
    try:
        return await (await get_identities(request)).by_key(given[1])
    except PlayerError as error:
        raise ApiError(error.code, error.message) from None


async def required_player(player: Annotated[Player | None, Depends(optional_player)]) -> Player:
    if player is None:
        raise ApiError("missing_player_key", "send the player key as 'Authorization: Player <key>'")
    return player


RoomDep = Annotated[RoomAccess, Depends(get_room)]
OptionalPlayerDep = Annotated[Player | None, Depends(optional_player)]
PlayerDep = Annotated[Player, Depends(required_player)]
IdentitiesDep = Annotated[Identities, Depends(get_identities)]
TokenHashDep = Annotated[str, Depends(required_token)]
OptionalTokenHashDep = Annotated[str | None, Depends(optional_token)]
