"""The games this server plays, with their seat ranges and variant options."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.schemas import GameInfo, GameList
from app.games.registry import GAMES

router = APIRouter(prefix="/api/games", tags=["games"])


@router.get("")
async def list_games() -> GameList:
    games = []
    for name, engine in GAMES.items():
        low, high = engine.seat_range()
        games.append(
            GameInfo(name=name, min_players=low, max_players=high, options=engine.options())
        )
    return GameList(games=games)
