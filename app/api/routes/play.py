"""Reading one's own state and acting without a socket (bearer token)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request

from app.api.deps import OptionalTokenHashDep, RoomDep, TokenHashDep
from app.api.schemas import ActionRequest, ErrorBody, LegalAnswer, StateAnswer
from app.games.engine import IllegalAction
from app.metrics.meters import Meters
from app.rooms.errors import RoomError

ERRORS = {code: {"model": ErrorBody} for code in (401, 404, 409, 422, 503)}
router = APIRouter(prefix="/api/rooms/{room_id}", tags=["play"], responses=ERRORS)  # type: ignore[arg-type]


# No token is a spectator's read: OpenAPI's empty requirement says the token is optional.
@router.get("/state", openapi_extra={"security": [{}]})
async def read_state(room: RoomDep, token_hash: OptionalTokenHashDep) -> StateAnswer:
    """The caller's state document; without a token, the spectator's."""
    version, document = await room.read(token_hash)
    return StateAnswer(version=version, state=document)


@router.post("/actions")
async def act(
    request: Request, body: ActionRequest, room: RoomDep, token_hash: TokenHashDep
) -> StateAnswer:
    """Apply one action; answers only once the action is in the durable log."""
    meters: Meters = request.app.state.meters
    started = time.perf_counter()
    try:
        await room.act(token_hash, body.action, body.version)
    except (RoomError, IllegalAction) as refused:
        meters.actions_refused[refused.code].inc()
        raise
    meters.actions_accepted.inc()
    meters.action_seconds.observe(time.perf_counter() - started)
    version, document = await room.read(token_hash)
    return StateAnswer(version=version, state=document)


@router.get("/legal")
async def legal(room: RoomDep, token_hash: TokenHashDep) -> LegalAnswer:
    version, actions = await room.legal(token_hash)
    return LegalAnswer(version=version, actions=actions)
