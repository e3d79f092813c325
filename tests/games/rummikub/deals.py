"""Building explicit tile orders for tests: racks written in tile notation."""

from __future__ import annotations

from app.games.rummikub import ALL_TILES, Rummikub


def deck(*racks: str, pool: str = "", size: int = 14) -> list[str]:
    """A full deck whose racks start with the given tiles and whose pool starts with `pool`.

    Racks are filled up to `size` with numbered tiles nobody named; jokers not named go to
    the end of the pool.
    """
    named = [tile for text in (*racks, pool) for tile in text.split()]
    assert len(named) == len(set(named)), "a tile is named twice"
    spare = [tile for tile in reversed(ALL_TILES) if tile not in named and tile[0] != "J"]
    order: list[str] = []
    for text in racks:
        rack = text.split()
        while len(rack) < size:
            rack.append(spare.pop(0))
        order += rack
    order += pool.split()
    jokers = [tile for tile in ("J1", "J2") if tile not in named]
    return order + spare + jokers


def game(*racks: str, pool: str = "", **config: int) -> Rummikub:
    """A match dealt from `deck`; seat 0 starts."""
    size = config.get("tiles_per_player", 14)
    return Rummikub.new(config, len(racks), deck=deck(*racks, pool=pool, size=size))


def tiles(text: str) -> list[str]:
    return text.split()


def table(text: str) -> list[list[str]]:
    """`"R5a R6a R7a | K3a K3b"` -> two melds."""
    return [meld.split() for meld in text.split("|") if meld.strip()]
