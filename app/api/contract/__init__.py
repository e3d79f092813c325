"""The published contract beyond REST bodies: actions, views, the state document, socket messages.

These models describe what the server sends and accepts; they are not used to build or check
messages at run time (the engines and the socket parser do that). `/openapi.json` carries their
JSON Schemas under components/schemas, every object closed to undocumented fields, and
tests/api/test_contract.py checks whole matches of both games against them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from app.api.contract.actions import Action, GinRummyAction, RummikubAction
from app.api.contract.document import GameView, StateDocument
from app.api.contract.socket import ClientMessage, ServerMessage

PUBLISHED: tuple[type[BaseModel], ...] = (
    Action,
    GinRummyAction,
    RummikubAction,
    GameView,
    StateDocument,
    ServerMessage,
    ClientMessage,
)
REF = "#/components/schemas/{model}"


def components() -> dict[str, Any]:
    """The JSON Schemas of the published models and every part of them, by name."""
    _, schema = models_json_schema([(model, "validation") for model in PUBLISHED], ref_template=REF)
    definitions: dict[str, Any] = schema["$defs"]
    return definitions
