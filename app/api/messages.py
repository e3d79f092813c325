"""WebSocket messages from clients: parsed strictly, each failure with its own stable code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from orjson import JSONDecodeError, loads
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Hello(Message):
    type: Literal["hello"]
    token: str | None


@dataclass(slots=True)
class ActionMessage:
    """`{"type": "action", "seq": int, "action": {...}, "version": int | null}` (version optional).

    Checked by hand rather than by pydantic: it is the message of every move, and the check
    below is the same (strict integers, an object, no other fields) in a fifth of the time.
    """

    seq: int
    action: dict[str, Any]
    version: int | None = None


class Ready(Message):
    type: Literal["ready"]


class Resync(Message):
    type: Literal["resync"]


class Ping(Message):
    type: Literal["ping"]


class HintMessage(Message):
    """`{"type": "hint", "seq": int | null}`: a suggested move for the connection's seat."""

    type: Literal["hint"]
    # Strict like an action's: no "4" or true for 4, the answer echoes exactly what came.
    seq: StrictInt | None = None


class ChatMessage(Message):
    """`{"type": "chat", "text": str}` or `{"type": "chat", "reaction": id}`: one line of talk."""

    type: Literal["chat"]
    # Capped far above a line's 300 characters: the room counts them once cleaned.
    text: StrictStr | None = Field(default=None, max_length=20_000)
    reaction: StrictStr | None = Field(default=None, max_length=32)
    seq: StrictInt | None = None


class ChatMuteMessage(Message):
    """`{"type": "chat_mute", "seat": int, "muted": bool}`: the host mutes a seat for all."""

    type: Literal["chat_mute"]
    seat: StrictInt = Field(ge=0)
    muted: StrictBool
    seq: StrictInt | None = None


OtherMessage = Annotated[
    Hello | Ready | Resync | Ping | HintMessage | ChatMessage | ChatMuteMessage,
    Field(discriminator="type"),
]
ClientMessage = (
    ActionMessage | Hello | Ready | Resync | Ping | HintMessage | ChatMessage | ChatMuteMessage
)
KNOWN_TYPES = ("hello", "action", "ready", "resync", "ping", "hint", "chat", "chat_mute")
ACTION_FIELDS = frozenset(("type", "seq", "action", "version"))
_adapter: TypeAdapter[OtherMessage] = TypeAdapter(OtherMessage)


class BadMessage(Exception):
    def __init__(self, code: str, message: str, seq: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.seq = seq


def parse(text: str) -> ClientMessage:
    try:
        raw = loads(text)
    except JSONDecodeError as exc:
        raise BadMessage("bad_json", f"the message is not JSON: {exc.msg}") from exc
    # The message of every move first, checked in place: strict integers, an object, no other
    # fields. Anything else, a faulty action too, takes the general path with its codes.
    if type(raw) is dict and raw.get("type") == "action" and raw.keys() <= ACTION_FIELDS:
        seq, action, version = raw.get("seq"), raw.get("action"), raw.get("version")
        if type(seq) is int and type(action) is dict and (version is None or type(version) is int):
            return ActionMessage(seq, action, version)
    return parse_other(raw)


def parse_other(raw: Any) -> ClientMessage:
    if not isinstance(raw, dict):
        raise BadMessage("bad_message", "a message must be a JSON object")
    seq = raw.get("seq")
    seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
    kind = raw.get("type")
    if kind not in KNOWN_TYPES:
        raise BadMessage(
            "unknown_type", f"type must be one of {', '.join(KNOWN_TYPES)}, got {kind!r}", seq
        )
    if kind == "action":
        raise BadMessage("bad_message", f"action: {action_fault(raw)}", seq)
    try:
        return _adapter.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        raise BadMessage("bad_message", f"{kind}: {where}: {first['msg']}", seq) from exc


def action_fault(raw: dict[str, Any]) -> str:
    """What is wrong with an action message, in pydantic's words."""
    for key in raw:
        if key not in ACTION_FIELDS:
            return f"{key}: Extra inputs are not permitted"
    for key in ("seq", "action"):
        if key not in raw:
            return f"{key}: Field required"
    if type(raw["seq"]) is not int:
        return "seq: Input should be a valid integer"
    if type(raw["action"]) is not dict:
        return "action: Input should be a valid dictionary"
    return "version: Input should be a valid integer"
