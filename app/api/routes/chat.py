"""Table talk over REST: say a line, read the last lines, and the host's mute."""

from __future__ import annotations

from fastapi import APIRouter, status

from app.api.deps import OptionalTokenHashDep, RoomDep, TokenHashDep
from app.api.schemas import ChatLine, ChatLines, ChatMute, ChatRequest, ErrorBody, RoomInfo

ERRORS = {code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 422, 429, 503)}
router = APIRouter(prefix="/api/rooms", tags=["chat"], responses=ERRORS)  # type: ignore[arg-type]


@router.post("/{room_id}/chat", status_code=status.HTTP_201_CREATED)
async def say(body: ChatRequest, room: RoomDep, token_hash: TokenHashDep) -> ChatLine:
    """One line from the token's seat, sent to everyone at the table (socket `chat`)."""
    line = await room.chat(token_hash, body.text, body.reaction)
    return ChatLine.model_validate(line)


@router.get("/{room_id}/chat")
async def read_chat(room: RoomDep, token_hash: OptionalTokenHashDep) -> ChatLines:
    """The last 50 lines; without a token, as a spectator (if the room allows them)."""
    lines = await room.chat_lines(token_hash)
    return ChatLines(messages=[ChatLine.model_validate(line) for line in lines])


@router.post("/{room_id}/chat/mute")
async def mute(body: ChatMute, room: RoomDep, token_hash: TokenHashDep) -> RoomInfo:
    """The host mutes (or unmutes) a seat's talk for everyone."""
    await room.mute_chat(token_hash, body.seat, body.muted)
    return RoomInfo(**await room.describe())
