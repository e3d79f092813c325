"""Display names: cleaned like every text people type, 1-32 characters, unique ignoring case."""

from __future__ import annotations

from app.players.errors import PlayerError
from app.untrusted_text import clean_text

NAME_MAX = 32
# What a forgotten player's past seats are called.
FORGOTTEN_NAME = "Former player"


def clean_name(raw: str) -> str:
    """The name as it will be kept and shown; PlayerError name_empty or name_too_long."""
    name = clean_text(raw)
    if not name:
        raise PlayerError("name_empty", "a name needs at least one visible character")
    if len(name) > NAME_MAX:
        raise PlayerError(
            "name_too_long", f"a name is at most {NAME_MAX} characters, this one is {len(name)}"
        )
    return name


def name_key(name: str) -> str:
    """What two names must differ in: "Ann", "ANN" and "ann" are one name."""
    return name.casefold()
