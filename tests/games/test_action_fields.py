"""Both engines refuse an action carrying a field its type does not take, and change nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.games.engine import Engine, IllegalAction, known_fields
from app.games.registry import GAMES, engine_for


def fresh(game: str) -> Engine:
    engine_cls = engine_for(game)
    config = engine_cls.validate_config({}, 2)
    return engine_cls.new(config, 2, seed=7)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_legal_action_with_an_extra_field_is_refused_and_changes_nothing(game: str) -> None:
    engine = fresh(game)
    rng = random.Random(1)
    for _ in range(40):
        seat = engine.to_act()[0]
        legal = engine.legal_actions(seat)
        before = engine.to_json()
        for action in legal:
            with pytest.raises(IllegalAction) as refused:
                engine.apply(seat, {**action, "x": 1})
            assert refused.value.code == "bad_action"
            assert "'x'" in refused.value.message
            assert engine.to_json() == before
        playable = [a for a in legal if a["type"] in ("draw", "pass", "discard", "take_upcard")]
        engine.apply(seat, rng.choice(playable or legal))
        if not engine.to_act():
            break


@pytest.mark.parametrize(
    ("game", "action", "unknown"),
    [
        ("gin_rummy", {"type": "pass", "x": 1}, "x"),
        ("gin_rummy", {"type": "draw", "source": "stock", "card": "H1"}, "card"),
        ("rummikub", {"type": "draw", "tiles": 3}, "tiles"),
        ("rummikub", {"type": "play", "table": [], "joker": {}}, "joker"),
    ],
)
def test_a_misspelt_or_extra_field_is_named_in_the_refusal(
    game: str, action: dict[str, Any], unknown: str
) -> None:
    engine = fresh(game)
    seat = engine.to_act()[0]
    with pytest.raises(IllegalAction) as refused:
        engine.apply(seat, action)
    assert refused.value.code == "bad_action"
    assert refused.value.message.startswith(f"{action['type']} takes only ")
    assert refused.value.message.endswith(f"unknown: {unknown!r}")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_action_type_the_engine_takes_has_its_fields_listed(game: str) -> None:
    fields = engine_for(game).action_fields
    assert all("type" in allowed for allowed in fields.values())
    engine = fresh(game)
    with pytest.raises(IllegalAction) as refused:
        engine.apply(engine.to_act()[0], {"type": "no_such_type"})
    assert refused.value.code == "bad_action"


def test_a_logged_action_with_a_field_no_rule_reads_replays_without_it() -> None:
    fields = engine_for("gin_rummy").action_fields
    assert known_fields({"type": "pass", "x": 1}, fields) == {"type": "pass"}
    assert known_fields({"type": "odd", "x": 1}, fields) == {"type": "odd", "x": 1}
    assert known_fields({"type": ["not", "a", "name"]}, fields) == {"type": ["not", "a", "name"]}
