"""The state document: what each seat (and the spectator) holds and patches keep up to date."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, RootModel

from app.api.contract.actions import Action
from app.api.contract.gin_rummy import GinRummyView
from app.api.contract.notation import SeatNumber, Wire
from app.api.contract.rummikub import RummikubView
from app.api.schemas import RoomState


class GameView(RootModel[Annotated[GinRummyView | RummikubView, Field(discriminator="game")]]):
    """One viewer's view of the match, by game."""


class You(Wire):
    seat: SeatNumber | None = Field(description="null for a spectator")
    legal: list[Action] = Field(
        description="The seat's legal actions now (empty when it has nothing to do). Gin "
        "Rummy: every legal action. Rummikub: one template per allowed type (a play cannot be "
        "listed): fill in its fields"
    )


class StateDocument(Wire):
    """One viewer's document: GET /state answers it, the socket sends it and its patches."""

    room: RoomState
    you: You
    game: GameView | None = Field(description="null before the first deal")
    deadline: int | None = Field(
        description="Epoch milliseconds when the current timed Rummikub turn runs out"
    )
