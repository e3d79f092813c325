"""A suggested move for the seat that asks: what the strongest bot would do in its place.

The hint is computed from the seat's own state document (its view and its legal actions), the
same data a bot in that seat gets, so it can name nothing the seat may not see. The thinking
runs off the event loop; a few at a time per process, so asking for hints cannot take every
worker thread from the bots. REST and the room WebSocket (`{"type": "hint"}`) both answer
through `seat_hint`, with the same slots and the same codes.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.datastructures import State

from app.api.deps import RoomDep, TokenHashDep
from app.api.errors import ApiError
from app.api.schemas import ErrorBody, HintAnswer
from app.bots.hints import NoHint, hint
from app.metrics.meters import OFF, Meters, Timing
from app.rooms.access import RoomAccess

ERRORS = {code: {"model": ErrorBody} for code in (401, 403, 404, 409)}
router = APIRouter(prefix="/api/rooms/{room_id}", tags=["play"], responses=ERRORS)  # type: ignore[arg-type]

# Hints computed at once in one process; more wait their turn.
HINT_SLOTS = 2


def hint_slots_of(state: State) -> asyncio.Semaphore:
    """The app's hint slots: one semaphore per app (so per event loop), made on first use."""
    slots: asyncio.Semaphore | None = getattr(state, "hint_slots", None)
    if slots is None:
        slots = state.hint_slots = asyncio.Semaphore(HINT_SLOTS)
    return slots


async def hint_slots(request: Request) -> asyncio.Semaphore:
    return hint_slots_of(request.app.state)


SlotsDep = Annotated[asyncio.Semaphore, Depends(hint_slots)]


async def seat_hint(
    room: RoomAccess, token_hash: str, slots: asyncio.Semaphore, meters: Meters = OFF
) -> HintAnswer:
    """A move for the token's seat, from its own state document.

    Raises ApiError (`hints_disabled`, `no_hint`), or the room's RoomError for a token that
    belongs to no seat.
    """
    version, document = await room.read(token_hash)
    if not document["room"]["hints"]:
        raise ApiError("hints_disabled", "this room does not give hints")
    legal = document["you"]["legal"]
    if not legal or document["game"] is None:
        raise ApiError("no_hint", "your seat has nothing to do now: it is not your turn")
    try:
        action = await think(slots, document["room"]["game"], document["game"], legal, meters)
    except NoHint as exc:
        raise ApiError("no_hint", str(exc)) from exc
    return HintAnswer(version=version, action=action)


async def think(
    slots: asyncio.Semaphore,
    game: str,
    view: dict[str, Any],
    legal: list[dict[str, Any]],
    meters: Meters = OFF,
) -> dict[str, Any]:
    """The hint, worked out in a thread once a slot is free.

    A caller that stops waiting (a socket closed mid-hint) is let go at once, but a thread
    cannot be stopped: its slot is given back only when it ends, so no more than HINT_SLOTS
    threads ever think at once.
    """
    await slots.acquire()
    thinking = asyncio.ensure_future(asyncio.to_thread(timed_hint, game, view, legal))
    thinking.add_done_callback(lambda done: release(slots, done, meters.hint_seconds[game]))
    action, _ = await asyncio.shield(thinking)
    return action


def timed_hint(
    game: str, view: dict[str, Any], legal: list[dict[str, Any]]
) -> tuple[dict[str, Any], float]:
    """The hint, and the seconds it took (measured in its thread, counted on the loop's)."""
    started = time.perf_counter()
    return hint(game, view, legal), time.perf_counter() - started


def release(slots: asyncio.Semaphore, done: asyncio.Future[Any], seconds: Timing) -> None:
    slots.release()
    # Read here, so that an answer nobody waits for any more is not logged as lost.
    if not done.cancelled() and done.exception() is None:
        seconds.observe(done.result()[1])


@router.get("/hint")
async def read_hint(
    request: Request, room: RoomDep, token_hash: TokenHashDep, slots: SlotsDep
) -> HintAnswer:
    """A move for the caller's seat, chosen from its own state document; send it as it is."""
    return await seat_hint(room, token_hash, slots, request.app.state.meters)
