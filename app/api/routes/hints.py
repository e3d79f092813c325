"""A suggested move for the seat that asks: what the strongest bot would do in its place.

The hint is computed from the seat's own state document (its view and its legal actions), the
same data a bot in that seat gets, so it can name nothing the seat may not see. The thinking
runs off the event loop; a few at a time per process, so asking for hints cannot take every
worker thread from the bots.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Request

from app.api.deps import RoomDep, TokenHashDep
from app.api.errors import ApiError
from app.api.schemas import ErrorBody, HintAnswer
from app.bots.hints import NoHint, hint

ERRORS = {code: {"model": ErrorBody} for code in (401, 403, 404, 409)}
router = APIRouter(prefix="/api/rooms/{room_id}", tags=["play"], responses=ERRORS)  # type: ignore[arg-type]

# Hints computed at once in one process; more wait their turn.
HINT_SLOTS = 2


async def hint_slots(request: Request) -> asyncio.Semaphore:
    # One per app (so per event loop), made on first use inside the loop.
    slots: asyncio.Semaphore | None = getattr(request.app.state, "hint_slots", None)
    if slots is None:
        slots = request.app.state.hint_slots = asyncio.Semaphore(HINT_SLOTS)
    return slots


SlotsDep = Annotated[asyncio.Semaphore, Depends(hint_slots)]


@router.get("/hint")
async def read_hint(room: RoomDep, token_hash: TokenHashDep, slots: SlotsDep) -> HintAnswer:
    """A move for the caller's seat, chosen from its own state document; send it as it is."""
    version, document = await room.read(token_hash)
    if not room.spec.hints:
        raise ApiError("hints_disabled", "this room does not give hints")
    legal = document["you"]["legal"]
    if not legal or document["game"] is None:
        raise ApiError("no_hint", "your seat has nothing to do now: it is not your turn")
    async with slots:
        try:
            action = await asyncio.to_thread(hint, room.spec.game, document["game"], legal)
        except NoHint as exc:
            raise ApiError("no_hint", str(exc)) from exc
    return HintAnswer(version=version, action=action)
