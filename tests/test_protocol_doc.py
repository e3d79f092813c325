"""docs/protocol.md lists every error code, action and view field, its examples are real
messages, and its timings are the server's defaults."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from app.api import contract
from app.api.contract import gin_rummy, rummikub
from app.api.contract.actions import GIN_RUMMY_ACTIONS, RUMMIKUB_ACTIONS
from app.api.error_codes import ERROR_CODES
from app.settings import Settings
from tests.api.contract import Contract

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    return DOC.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def json_examples(text: str) -> list[dict[str, Any]]:
    """Each line of the json blocks that is a whole JSON object by itself."""
    found = []
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


@pytest.fixture(scope="module")
def schemas() -> Contract:
    return Contract({"components": {"schemas": contract.components()}})


def test_every_error_code_is_listed_with_its_status() -> None:
    table = section("Error codes")
    for code, entry in ERROR_CODES.items():
        assert f"| `{code}` | {entry.status} |" in table, code


def action_types(models: tuple[type[BaseModel], ...]) -> set[str]:
    return {get_args(model.model_fields["type"].annotation)[0] for model in models}


def test_every_action_of_both_games_has_an_example() -> None:
    actions = section("Actions")
    gin = actions.split("### Gin Rummy", 1)[1].split("### Rummikub", 1)[0]
    rummikub_part = actions.split("### Rummikub", 1)[1]
    shown_gin = {example["type"] for example in json_examples(gin)}
    shown_rummikub = {example["type"] for example in json_examples(rummikub_part)}
    system = {"next_hand", "next_round", "timeout"}
    assert action_types(GIN_RUMMY_ACTIONS) - system == shown_gin
    assert action_types(RUMMIKUB_ACTIONS) - system == shown_rummikub
    for kind in system:
        assert f'{{"type": "{kind}"}}' in actions


def test_every_action_example_is_a_real_action(schemas: Contract) -> None:
    actions = section("Actions")
    gin = actions.split("### Gin Rummy", 1)[1].split("### Rummikub", 1)[0]
    for example in json_examples(gin):
        schemas.check("GinRummyAction", example)
    for example in json_examples(actions.split("### Rummikub", 1)[1]):
        schemas.check("RummikubAction", example)


def test_every_message_example_that_is_whole_is_a_real_message(schemas: Contract) -> None:
    examples = [example for example in json_examples(DOC) if "type" in example]
    assert len(examples) > 30
    for example in examples:
        names = ("Action", "ClientMessage", "ServerMessage")
        assert any(not schemas.problems(name, example) for name in names), example


VIEW_PARTS = [
    gin_rummy.GinRummyView, gin_rummy.GinRummyConfig, gin_rummy.GinTable,
    gin_rummy.TablePlayer, gin_rummy.HandRecord, gin_rummy.HandPlayer, gin_rummy.Layoff,
    gin_rummy.HandSummary, gin_rummy.GinMe, gin_rummy.Arrangement, gin_rummy.GinRummyResult,
    gin_rummy.SideResult, rummikub.RummikubView, rummikub.RummikubConfig, rummikub.Meld,
    rummikub.Tentative, rummikub.Problem, rummikub.Turn, rummikub.RummikubSeat,
    rummikub.RoundSummary, rummikub.LastRound, rummikub.RummikubResult,
]  # fmt: skip


@pytest.mark.parametrize("model", VIEW_PARTS, ids=lambda model: model.__name__)
def test_every_view_field_is_explained(model: type[BaseModel]) -> None:
    views = section("Views")
    missing = [name for name in model.model_fields if f"`{name}`" not in views]
    assert missing == []


UNITS = {"ms": 0.001, "s": 1, "h": 3600}


def test_the_timings_are_the_servers_defaults() -> None:
    defaults = Settings()
    rows = [
        row
        for row in section("WebSocket `/ws/rooms/{room_id}`").splitlines()
        if "`MELDHALL_" in row
    ]
    timed = [row for row in rows if re.search(r"\| \d+ (ms|s|h) \|", row)]
    assert len(timed) == 5
    for row in timed:
        amount, unit = re.search(r"\| (\d+) (ms|s|h) \|", row).groups()  # type: ignore[union-attr]
        variable = re.search(r"`MELDHALL_([A-Z_]+)`", row)[1]  # type: ignore[index]
        name = variable.lower()
        value = getattr(defaults, name)
        seconds = value / 1000 if name.endswith("_ms") else value
        assert math.isclose(int(amount) * UNITS[unit], seconds), row
