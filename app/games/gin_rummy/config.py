"""The variant options of Gin Rummy, their defaults and their validation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.games.engine import Config, IllegalAction

SHUTOUT_RULES = ("double", "plus_100", "none")
# "choose": after a knock the defender chooses which cards to lay off (the rules say it may);
# "auto": the engine lays off the defender's best at once.
LAY_OFF_RULES = ("choose", "auto")

# name -> (default, lowest, highest, description); bounds keep scores sane, not rule-bound.
_INTEGER_OPTIONS: dict[str, tuple[int, int, int, str]] = {
    "knock_limit": (10, 0, 10, "Highest deadwood a player may knock with (0: gin only)"),
    "gin_bonus": (25, 0, 100, "Bonus for gin (the how-to also names 10 and 20)"),
    "big_gin_bonus": (31, 0, 100, "Bonus for big gin, all 11 cards melded; 0 turns big gin off"),
    "undercut_bonus": (25, 0, 100, "Bonus for the defender when the knocker is undercut"),
    "target": (100, 1, 10_000, "Total that ends the match"),
    "game_bonus": (100, 0, 1_000, "Bonus for the side that reaches the target"),
    "line_bonus": (25, 0, 1_000, "Bonus at match end for every hand a side won"),
}


def options() -> list[dict[str, Any]]:
    """Each option: name, type, default, bounds or choices, description."""
    described: list[dict[str, Any]] = [
        {
            "name": name,
            "type": "int",
            "default": default,
            "min": low,
            "max": high,
            "description": text,
        }
        for name, (default, low, high, text) in _INTEGER_OPTIONS.items()
    ]
    described.append(
        {
            "name": "shutout",
            "type": "choice",
            "default": "double",
            "choices": list(SHUTOUT_RULES),
            "description": "When the winner won every hand and none was drawn: double every "
            "hand's points, add 100, or nothing",
        }
    )
    described.append(
        {
            "name": "oklahoma",
            "type": "bool",
            "default": False,
            "description": "Knock limit of each hand is the value of its first upcard; an ace "
            "upcard means gin only",
        }
    )
    described.append(
        {
            "name": "lay_offs",
            "type": "choice",
            "default": "choose",
            "choices": list(LAY_OFF_RULES),
            "description": "After a knock the defender chooses which cards to lay off, or the "
            "server lays off the defender's best at once",
        }
    )
    return described


def _checked_int(name: str, value: object) -> int:
    _default, low, high, _text = _INTEGER_OPTIONS[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalAction("bad_config", f"{name} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise IllegalAction("bad_config", f"{name} must be between {low} and {high}, got {value}")
    return value


def validate_config(raw: Mapping[str, Any], players: int) -> Config:
    """Defaults filled in and every value checked; raises IllegalAction("bad_config")."""
    if not isinstance(raw, Mapping):
        raise IllegalAction("bad_config", "the config must be an object")
    if isinstance(players, bool) or players not in (2, 3, 4):
        raise IllegalAction("bad_config", f"gin rummy is for 2 to 4 players, got {players!r}")
    known = {*_INTEGER_OPTIONS, "shutout", "oklahoma", "lay_offs"}
    unknown = sorted(str(key) for key in raw if key not in known)
    if unknown:
        raise IllegalAction("bad_config", f"unknown option {', '.join(unknown)}")
    config: Config = {
        name: _checked_int(name, raw.get(name, spec[0])) for name, spec in _INTEGER_OPTIONS.items()
    }
    shutout = raw.get("shutout", "double")
    if shutout not in SHUTOUT_RULES:
        raise IllegalAction(
            "bad_config", f"shutout must be one of {', '.join(SHUTOUT_RULES)}, got {shutout!r}"
        )
    oklahoma = raw.get("oklahoma", False)
    if not isinstance(oklahoma, bool):
        raise IllegalAction("bad_config", f"oklahoma must be true or false, got {oklahoma!r}")
    lay_offs = raw.get("lay_offs", "choose")
    if lay_offs not in LAY_OFF_RULES:
        raise IllegalAction(
            "bad_config", f"lay_offs must be one of {', '.join(LAY_OFF_RULES)}, got {lay_offs!r}"
        )
    config["shutout"] = shutout
    config["oklahoma"] = oklahoma
    config["lay_offs"] = lay_offs
    return config
