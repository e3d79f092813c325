"""The lobby: create, list, inspect, join and leave rooms; bots; ready; rematch."""

from __future__ import annotations

from fastapi import APIRouter, status

from app.api.deps import OptionalPlayerDep, RoomDep, RoomsDep, TokenHashDep
from app.api.errors import ApiError
from app.api.schemas import AddBot, CreateRoom, ErrorBody, Joined, JoinRoom, RoomInfo, RoomList
from app.games.registry import engine_for
from app.players.errors import PlayerError
from app.players.names import clean_name
from app.rooms.access import RoomAccess
from app.rooms.tokens import hash_token, new_token

ERRORS = {code: {"model": ErrorBody} for code in (400, 401, 404, 409, 422, 503)}
router = APIRouter(prefix="/api/rooms", tags=["rooms"], responses=ERRORS)  # type: ignore[arg-type]


async def room_info(room: RoomAccess) -> RoomInfo:
    return RoomInfo(**await room.describe())


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_room(body: CreateRoom, rooms: RoomsDep) -> RoomInfo:
    players = body.players
    if players is None:
        try:
            players = engine_for(body.game).seat_range()[0]
        except LookupError:
            players = 2
    room = await rooms.create(
        game=body.game,
        players=players,
        options=body.options,
        bots=[(bot.seat, bot.level) for bot in body.bots],
        public=body.public,
        spectators=body.spectators,
        hints=body.hints,
        rated=body.rated,
        chat=body.chat,
    )
    return await room_info(room)


@router.get("")
async def list_rooms(rooms: RoomsDep, game: str | None = None) -> RoomList:
    return RoomList(rooms=[RoomInfo(**info) for info in await rooms.lobby(game)])


@router.get("/{room_id}")
async def get_room(room: RoomDep) -> RoomInfo:
    return await room_info(room)


@router.post("/{room_id}/join", status_code=status.HTTP_201_CREATED)
async def join_room(body: JoinRoom, room: RoomDep, player: OptionalPlayerDep) -> Joined:
    """A seat and its token. With 'Authorization: Player <key>' the seat is the player's, under
    the player's name; without, it is anonymous under the name given."""
    if player is not None:
        name, player_id = player.name, player.id
    elif body.name is None:
        raise ApiError("name_empty", "give a name, or join as a player with its key")
    else:
        try:
            name, player_id = clean_name(body.name), None
        except PlayerError as error:
            raise ApiError(error.code, error.message) from None
    token = new_token()
    seat = await room.join(name, body.seat, hash_token(token), player_id)
    return Joined(seat=seat, token=token, room=await room_info(room))


@router.post("/{room_id}/leave")
async def leave_room(room: RoomDep, token_hash: TokenHashDep) -> RoomInfo:
    await room.leave(token_hash)
    return await room_info(room)


@router.post("/{room_id}/bots", status_code=status.HTTP_201_CREATED)
async def add_bot(body: AddBot, room: RoomDep) -> RoomInfo:
    await room.add_bot(body.seat, body.level)
    return await room_info(room)


@router.delete("/{room_id}/bots/{seat}")
async def remove_bot(seat: int, room: RoomDep) -> RoomInfo:
    await room.remove_bot(seat)
    return await room_info(room)


@router.post("/{room_id}/ready")
async def ready(room: RoomDep, token_hash: TokenHashDep) -> RoomInfo:
    await room.ready(token_hash)
    return await room_info(room)


@router.post("/{room_id}/rematch")
async def rematch(room: RoomDep, token_hash: TokenHashDep) -> RoomInfo:
    await room.rematch(token_hash)
    return await room_info(room)


@router.post("/{room_id}/seats/{seat}/bot")
async def hand_seat_to_bot(seat: int, room: RoomDep, token_hash: TokenHashDep) -> RoomInfo:
    await room.hand_to_bot(token_hash, seat)
    return await room_info(room)
