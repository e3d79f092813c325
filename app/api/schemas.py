"""Wire models: what REST requests and answers look like (separate from room and engine types)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Level = Literal["easy", "normal", "hard"]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


class GameInfo(BaseModel):
    name: str
    min_players: int
    max_players: int
    options: list[dict[str, Any]]


class GameList(BaseModel):
    games: list[GameInfo]


class BotSpec(Request):
    seat: int | None = Field(default=None, ge=0)
    level: Level = "normal"


class CreateRoom(Request):
    game: str
    players: int | None = Field(default=None, description="Defaults to the game's smallest")
    options: dict[str, Any] = Field(default_factory=dict)
    bots: list[BotSpec] = Field(default_factory=list, max_length=4)
    public: bool = False
    spectators: bool = True
    hints: bool = Field(default=True, description="Whether seats may ask for a suggested move")


class SeatInfo(BaseModel):
    seat: int
    name: str
    kind: Literal["empty", "human", "bot"]
    level: Level | None
    connected: bool
    ready: bool
    away_since: int | None = Field(
        description="Epoch ms since when a person's seat has had no connection, else null"
    )


class RoomInfo(BaseModel):
    room_id: str
    game: str
    players: int
    options: dict[str, Any]
    status: Literal["waiting", "playing", "between_hands", "finished"]
    public: bool
    spectators: bool
    hints: bool
    version: int
    match_id: str | None
    seats: list[SeatInfo]
    invite_path: str
    reconnect_grace_s: float = Field(
        description="Seconds a person may be away before another player may hand the seat to a bot"
    )
    next_hand_at: int | None = Field(
        description="Between hands: epoch ms when the next hand starts unless all are ready first"
    )


class RoomList(BaseModel):
    rooms: list[RoomInfo]


class JoinRoom(Request):
    name: Name
    seat: int | None = Field(default=None, ge=0)


class Joined(BaseModel):
    seat: int
    token: str = Field(description="The seat's only credential; shown once, keep it secret")
    room: RoomInfo


class AddBot(Request):
    seat: int | None = Field(default=None, ge=0)
    level: Level = "normal"


class ActionRequest(Request):
    action: dict[str, Any] = Field(description='One engine action, e.g. {"type": "draw_stock"}')
    version: int | None = Field(
        default=None, description="The version the action was chosen at; stale ones are refused"
    )


class StateAnswer(BaseModel):
    version: int
    state: dict[str, Any] = Field(description="The state document of docs/protocol.md")


class LegalAnswer(BaseModel):
    version: int
    actions: list[dict[str, Any]]


class HintAnswer(BaseModel):
    version: int = Field(description="The version the hint was computed at")
    action: dict[str, Any] = Field(description="An action to send as it is, e.g. to /actions")
