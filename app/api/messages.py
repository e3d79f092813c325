"""WebSocket messages from clients: parsed strictly, each failure with its own stable code."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, ValidationError


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Hello(Message):
    type: Literal["hello"]
    token: str | None


class ActionMessage(Message):
    type: Literal["action"]
    seq: StrictInt
    action: dict[str, Any]
    version: StrictInt | None = None


class Ready(Message):
    type: Literal["ready"]


class Resync(Message):
    type: Literal["resync"]


class Ping(Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    Hello | ActionMessage | Ready | Resync | Ping, Field(discriminator="type")
]
KNOWN_TYPES = ("hello", "action", "ready", "resync", "ping")
_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


class BadMessage(Exception):
    def __init__(self, code: str, message: str, seq: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.seq = seq


def parse(text: str) -> ClientMessage:
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise BadMessage("bad_json", f"the message is not JSON: {exc.msg}") from exc
    if not isinstance(raw, dict):
        raise BadMessage("bad_message", "a message must be a JSON object")
    seq = raw.get("seq")
    seq = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
    kind = raw.get("type")
    if kind not in KNOWN_TYPES:
        raise BadMessage(
            "unknown_type", f"type must be one of {', '.join(KNOWN_TYPES)}, got {kind!r}", seq
        )
    try:
        return _adapter.validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        raise BadMessage("bad_message", f"{kind}: {where}: {first['msg']}", seq) from exc
