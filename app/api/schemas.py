"""Wire models: what REST requests and answers look like (separate from room and engine types)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, WithJsonSchema

from app.api.error_codes import ERROR_CODES

Level = Literal["easy", "normal", "hard"]


CODES: list[JsonValue] = [*sorted(ERROR_CODES)]


def published(name: str) -> WithJsonSchema:
    """The schema of a field kept as plain JSON at run time: a model of app.api.contract."""
    # Inside allOf: pydantic resolves a bare $ref beside a description against its own models.
    return WithJsonSchema({"allOf": [{"$ref": f"#/components/schemas/{name}"}]})


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Answer(BaseModel):
    # Published closed, like the contract's models: a field not listed here is a defect.
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(Answer):
    code: str = Field(json_schema_extra={"enum": CODES})
    message: str = Field(description="For people; may change")


class ErrorBody(Answer):
    error: ErrorDetail


class GameInfo(Answer):
    name: str
    min_players: int
    max_players: int
    options: list[dict[str, Any]]


class GameList(Answer):
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
    rated: bool = Field(default=True, description="Whether a finished match updates ratings")
    chat: bool = Field(default=True, description="Whether the seats may talk at the table")


class SeatInfo(Answer):
    seat: int
    name: str
    player_id: str | None = Field(description="The player who sits here; null if anonymous")
    kind: Literal["empty", "human", "bot"]
    level: Level | None
    connected: bool
    ready: bool
    away_since: int | None = Field(
        description="Epoch ms since when a person's seat has had no connection, else null"
    )


class RoomState(Answer):
    """A room as its state documents show it."""

    room_id: str
    game: Literal["gin_rummy", "rummikub"]
    players: int
    options: Annotated[
        dict[str, Any],
        WithJsonSchema(
            {
                "anyOf": [
                    published("GinRummyConfig").json_schema,
                    published("RummikubConfig").json_schema,
                ]
            }
        ),
    ] = Field(description="Every option of the game, defaults filled in")
    status: Literal["waiting", "playing", "between_hands", "finished"]
    public: bool
    spectators: bool
    hints: bool
    rated: bool
    chat: bool = Field(description="Whether the seats may talk at the table")
    chat_host: int | None = Field(
        description="The seat that may mute a seat's chat for everyone: the room's first person"
    )
    chat_muted: list[int] = Field(description="Seats whose chat the host muted for everyone")
    match_id: str | None
    seats: list[SeatInfo]
    invite_path: str
    reconnect_grace_s: float = Field(
        description="Seconds a person may be away before another player may hand the seat to a bot"
    )
    next_hand_at: int | None = Field(
        description="Between hands: epoch ms when the next hand starts unless all are ready first"
    )


class RoomInfo(RoomState):
    """A room as the lobby shows it: with the room's version."""

    version: int


class RoomList(Answer):
    rooms: list[RoomInfo]


class JoinRoom(Request):
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="1-32 characters once cleaned; with a player key, the player's own name",
    )
    seat: int | None = Field(default=None, ge=0)


class Joined(Answer):
    seat: int
    token: str = Field(description="The seat's only credential; shown once, keep it secret")
    room: RoomInfo


class AddBot(Request):
    seat: int | None = Field(default=None, ge=0)
    level: Level = "normal"


class ActionRequest(Request):
    action: Annotated[dict[str, Any], published("Action")] = Field(
        description="One action of the room's game",
        examples=[{"type": "draw", "source": "stock"}, {"type": "discard", "card": "H7"}],
    )
    version: int | None = Field(
        default=None, description="The version the action was chosen at; stale ones are refused"
    )


class StateAnswer(Answer):
    version: int
    state: Annotated[dict[str, Any], published("StateDocument")] = Field(
        description="The state document of docs/protocol.md"
    )


class LegalAnswer(Answer):
    version: int
    actions: list[Annotated[dict[str, Any], published("Action")]]


Reaction = Literal["good_game", "nice", "oops", "your_turn", "thinking", "thanks", "wow", "hello"]


class ChatSender(Answer):
    seat: int = Field(description="Only seats post: spectators read the talk")
    name: str = Field(description="The seat's name when it spoke")


class ChatLine(Answer):
    """One line of a room's talk: a text or a quick reaction's id, the other null."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: int = Field(description="Grows with every line of the room, across servers")
    from_: ChatSender = Field(alias="from")
    text: str | None = Field(
        description="1-300 characters, cleaned at the server; show it as text only"
    )
    reaction: Reaction | None = Field(description="A quick reaction; clients name it themselves")
    at: int = Field(description="Epoch ms when the server took it")


class ChatLines(Answer):
    messages: list[ChatLine] = Field(description="The room's last 50 lines, oldest first")


class ChatRequest(Request):
    text: str | None = Field(
        default=None, max_length=20_000, description="1-300 characters once cleaned"
    )
    reaction: str | None = Field(default=None, max_length=32, description="Or a quick reaction")


class ChatMute(Request):
    seat: int = Field(ge=0)
    muted: bool


class HintAnswer(Answer):
    version: int = Field(description="The version the hint was computed at")
    action: Annotated[dict[str, Any], published("Action")] = Field(
        description="An action to send as it is, e.g. to /actions"
    )


# -- the operator's routes (app.api.routes.admin) -------------------------------------------


class AdminSeat(SeatInfo):
    connections: int = Field(description="Sockets open on the seat now")
    away_s: float = Field(description="Seconds since the seat's person was last seen")


class AdminRoom(Answer):
    room_id: str
    game: str
    status: Literal["waiting", "playing", "between_hands", "finished"]
    public: bool
    players: int
    match_id: str | None
    version: int
    seats: list[AdminSeat]
    connections: int = Field(description="Sockets open on the room, spectators' too")
    idle_s: float = Field(description="Seconds since a person was last there; 0 while connected")
    node: str = Field(description="The server that holds the room")


class AdminRoomList(Answer):
    rooms: list[AdminRoom]


class CloseRoom(Request):
    reason: str = Field(
        default="the server's operator closed this room",
        min_length=1,
        max_length=120,
        description="Sent to the room's sockets before they close",
    )


class SeatToBot(Request):
    level: Level = "normal"
    revoke: bool = Field(
        default=False,
        description="The seat's token stops working (its sockets close); otherwise its person "
        "takes the seat back by using it",
    )


class NoticeRequest(Request):
    text: str = Field(description="1 to 300 characters, without control characters")


class NoticePosted(Answer):
    type: Literal["notice"]
    text: str
    at: int = Field(description="Epoch milliseconds")
