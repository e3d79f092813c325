"""Every WebSocket message, each way (`/ws/rooms/{room_id}`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, RootModel, StrictInt

from app.api.contract.actions import Action
from app.api.contract.document import StateDocument
from app.api.contract.notation import Wire
from app.api.messages import ChatMessage, ChatMuteMessage, Hello, HintMessage, Ping, Ready, Resync
from app.api.schemas import CODES, ChatLine

Code = Annotated[str, Field(json_schema_extra={"enum": CODES})]


class AddOrReplace(Wire):
    op: Literal["add", "replace"]
    path: str = Field(description="A JSON Pointer; '-' as the last part appends to a list")
    value: Any


class Remove(Wire):
    op: Literal["remove"]
    path: str


PatchOperation = Annotated[AddOrReplace | Remove, Field(discriminator="op")]


class Snapshot(Wire):
    """The whole document: after hello, after resync, and to a client that fell behind."""

    type: Literal["snapshot"]
    protocol: int
    version: int
    state: StateDocument


class Patch(Wire):
    """RFC 6902 JSON Patch from the document at `from` to the one at `version`."""

    type: Literal["patch"]
    from_: int = Field(alias="from")
    version: int
    patch: list[PatchOperation]


class Ack(Wire):
    """An accepted action, durable in the log; also the acting connection's patch."""

    type: Literal["ack"]
    seq: int
    from_: int = Field(alias="from")
    version: int
    patch: list[PatchOperation]


class Error(Wire):
    """A refused message; `seq` is the refused message's when it had a readable one."""

    type: Literal["error"]
    seq: int | None
    code: Code
    message: str


class Hint(Wire):
    """A suggested move for the seat, worked out from the document at `version`."""

    type: Literal["hint"]
    seq: int | None
    version: int
    action: Action


class Pong(Wire):
    type: Literal["pong"]


class Chat(ChatLine):
    """A line of the table's talk, sent to every connection of the room, the sender's too."""

    type: Literal["chat"]


class ChatHistory(Wire):
    """Right after the snapshot of a new connection: the room's last lines (when it has any)."""

    type: Literal["chat_history"]
    messages: list[ChatLine] = Field(description="At most 50, oldest first")


class Notice(Wire):
    """The server's operator speaks to every open table ("restarting in 5 minutes")."""

    type: Literal["notice"]
    text: str = Field(description="1 to 300 characters, without control characters")
    at: int = Field(description="When it was posted, in epoch milliseconds")


class RoomClosed(Wire):
    """The operator closed the room: its match is kept as abandoned, and the socket closes
    (code 4410) right after this message."""

    type: Literal["room_closed"]
    reason: str


class ServerMessage(
    RootModel[
        Annotated[
            Snapshot | Patch | Ack | Error | Hint | Pong | Chat | ChatHistory | Notice | RoomClosed,
            Field(discriminator="type"),
        ]
    ]
):
    """A message from the server."""


class ActionMessage(Wire):
    """Play one action; answered by exactly one ack or error with the same seq."""

    type: Literal["action"]
    seq: StrictInt
    version: StrictInt | None = Field(
        default=None, description="The version the action was chosen at; stale ones are refused"
    )
    action: Action


class ClientMessage(
    RootModel[
        Annotated[
            Hello
            | ActionMessage
            | Ready
            | Resync
            | Ping
            | HintMessage
            | ChatMessage
            | ChatMuteMessage,
            Field(discriminator="type"),
        ]
    ]
):
    """A message from a client."""
