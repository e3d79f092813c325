"""The variant options of a Rummikub match and their validation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.games.engine import Config, IllegalAction

MIN_PLAYERS, MAX_PLAYERS = 2, 4
STANDARD_TURN_TIMER_S = 60

OPTIONS: list[dict[str, Any]] = [
    {
        "name": "initial_meld_points",
        "type": "int",
        "default": 30,
        "min": 1,
        "max": 100,
        "description": "Points the first play from one's own rack must reach",
    },
    {
        "name": "rounds",
        "type": "int",
        "default": 1,
        "min": 0,
        "max": 50,
        "description": "Rounds in a match; 0 means no limit (then a target score is needed)",
    },
    {
        "name": "target_score",
        "type": "int",
        "default": 0,
        "min": 0,
        "max": 10_000,
        "description": "The match ends when a running total reaches this; 0 turns it off",
    },
    {
        "name": "turn_timer_s",
        "type": "int",
        "default": 0,
        "min": 0,
        "max": 600,
        "description": f"Seconds per turn, 0 = no timer ({STANDARD_TURN_TIMER_S} is standard)",
    },
    {
        "name": "timeout_penalty_tiles",
        "type": "int",
        "default": 3,
        "min": 0,
        "max": 10,
        "description": "Tiles drawn by a player whose turn timed out",
    },
    {
        "name": "tiles_per_player",
        "type": "int",
        "default": 14,
        "min": 7,
        "max": 20,
        "description": "Tiles dealt to each player",
    },
]


def validate_config(raw: Mapping[str, Any], players: int) -> Config:
    """Defaults filled in and every value checked; raises IllegalAction("bad_config")."""
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise IllegalAction(
            "bad_config", f"Rummikub needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}"
        )
    known = {option["name"] for option in OPTIONS}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise IllegalAction("bad_config", f"unknown option {unknown[0]!r}")
    config: Config = {}
    for option in OPTIONS:
        name = option["name"]
        value = raw.get(name, option["default"])
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalAction("bad_config", f"{name} must be an integer, got {value!r}")
        if not option["min"] <= value <= option["max"]:
            raise IllegalAction(
                "bad_config", f"{name} must be {option['min']}..{option['max']}, got {value}"
            )
        config[name] = value
    if config["rounds"] == 0 and config["target_score"] == 0:
        raise IllegalAction("bad_config", "rounds 0 (no limit) needs a target_score")
    if 0 < config["turn_timer_s"] < 10:
        raise IllegalAction("bad_config", "turn_timer_s must be 0 (off) or at least 10")
    return config
