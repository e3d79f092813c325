"""The operator's door: every room (private ones too), closing one, a seat to a bot, a notice.

Open only with MELDHALL_ADMIN_TOKEN set, and only to 'Authorization: Bearer <that token>'
(app.api.operator_door): to anyone else these paths do not exist. On a cluster any node
answers for any room; the room's owner does the work (app.cluster.node).
"""

from __future__ import annotations

import time
import unicodedata

from fastapi import APIRouter, status

from app.api.deps import RoomsDep
from app.api.errors import ApiError
from app.api.schemas import (
    AdminRoom,
    AdminRoomList,
    CloseRoom,
    ErrorBody,
    NoticePosted,
    NoticeRequest,
    SeatToBot,
)
from app.untrusted_text import clean_text

ERRORS = {code: {"model": ErrorBody} for code in (400, 404, 409, 422, 503)}
router = APIRouter(prefix="/api/admin", tags=["admin"], responses=ERRORS)  # type: ignore[arg-type]

NOTICE_MAX = 300
# Control, format (bidirectional overrides, zero-width marks), separators and the like: a
# notice is shown on every table, so one holding them is refused rather than quietly changed.
HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def checked_notice(text: str) -> str:
    """The notice as shown; ApiError if it holds control characters, is empty or too long."""
    if any(unicodedata.category(char) in HIDDEN for char in text):
        raise ApiError(
            "notice_bad_characters",
            "a notice may not hold control or format characters (line breaks, tabs, "
            "direction overrides)",
        )
    cleaned = clean_text(text)
    if not cleaned:
        raise ApiError("notice_empty", "the notice is empty")
    if len(cleaned) > NOTICE_MAX:
        raise ApiError(
            "notice_too_long", f"a notice is at most {NOTICE_MAX} characters, got {len(cleaned)}"
        )
    return cleaned


@router.get("/rooms")
async def every_room(rooms: RoomsDep) -> AdminRoomList:
    """Every open room, private ones too, with its seats, status, server and idle time."""
    found = await rooms.every_room()
    return AdminRoomList(rooms=[AdminRoom(**info) for info in found])


@router.post("/rooms/{room_id}/close")
async def close_room(room_id: str, body: CloseRoom, rooms: RoomsDep) -> AdminRoom:
    """Close the room now: its match is kept as abandoned; its sockets get `room_closed`
    with the reason, then close (4410)."""
    return AdminRoom(**await rooms.close_room(room_id, clean_text(body.reason) or "closed"))


@router.post("/rooms/{room_id}/seats/{seat}/bot")
async def seat_to_bot(room_id: str, seat: int, body: SeatToBot, rooms: RoomsDep) -> AdminRoom:
    """Hand a person's seat to a bot at once (no grace to wait out)."""
    return AdminRoom(**await rooms.seat_to_bot(room_id, seat, body.level, body.revoke))


@router.post("/notice", status_code=status.HTTP_202_ACCEPTED)
async def post_notice(body: NoticeRequest, rooms: RoomsDep) -> NoticePosted:
    """Show a notice at every open table: each socket gets a `notice` message."""
    posted = NoticePosted(type="notice", text=checked_notice(body.text), at=int(time.time() * 1000))
    await rooms.post_notice(posted.model_dump())
    return posted
