"""Seeded Rummikub mid-game states (a table of valid melds and a rack) for the solver's bench.

Five kinds, each a function of a `random.Random`:
- `played`: a seat's table and rack at a turn of a seeded game between bots, after its
  initial meld (the positions a real game reaches);
- `large_rack`: a random table of 30-70 tiles and a rack of 20-30 of the other tiles;
- `jokers_on_table`: a random table of 40-70 tiles with both jokers in its melds, a rack of
  10-30;
- `long_runs`: a table mostly of runs of 6-13 tiles, a rack of 10-30;
- `slow_class`: about 54 table tiles with both jokers on the table and a 24-tile rack that
  can all be placed (the table and rack are cut from one table of valid melds), the kind of
  state the solver once took 200-360 ms on.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from app.bots.rummikub.basic import BasicRummikubBot
from app.bots.rummikub.solver._melds import COLOURS, JOKER, catalogue, type_name
from app.games.rummikub import Rummikub

State = tuple[list[list[str]], list[str]]


def full_set() -> list[str]:
    tiles = [f"{c}{n}{copy}" for c in COLOURS for n in range(1, 14) for copy in "ab"]
    return [*tiles, "J1", "J2"]


class _Pool:
    """The 106 tiles, shuffled, handed out by name ("R5" or "J")."""

    def __init__(self, rng: random.Random) -> None:
        tiles = full_set()
        rng.shuffle(tiles)
        self.by_name: dict[str, list[str]] = {}
        for tile in tiles:
            self.by_name.setdefault("J" if tile.startswith("J") else tile[:-1], []).append(tile)

    def take(self, names: list[str]) -> list[str] | None:
        if any(len(self.by_name.get(n, [])) < names.count(n) for n in set(names)):
            return None
        return [self.by_name[n].pop() for n in names]

    def rest(self, rng: random.Random) -> list[str]:
        tiles = [t for tiles in self.by_name.values() for t in tiles]
        rng.shuffle(tiles)
        return tiles


def _names(layout: tuple[int, ...]) -> list[str]:
    return ["J" if t == JOKER else type_name(t) for t in layout]


def _random_table(rng: random.Random, pool: _Pool, size: int, table: list[list[str]]) -> None:
    """Add random catalogue melds the pool still holds until the table has `size` tiles."""
    melds = [m for m in catalogue() if JOKER not in m.layout]
    for _ in range(5000):
        if sum(map(len, table)) >= size:
            return
        meld = pool.take(_names(rng.choice(melds).layout))
        if meld is not None:
            table.append(meld)


def _jokers_first(rng: random.Random, pool: _Pool, table: list[list[str]]) -> None:
    """Both jokers into melds of the table."""
    with_jokers = [m for m in catalogue() if JOKER in m.layout]
    while pool.by_name["J"]:
        names = _names(rng.choice(with_jokers).layout)
        if names.count("J") <= len(pool.by_name["J"]):
            meld = pool.take(names)
            if meld is not None:
                table.append(meld)


def large_rack(rng: random.Random) -> State:
    pool = _Pool(rng)
    table: list[list[str]] = []
    _random_table(rng, pool, rng.randint(30, 70), table)
    return table, pool.rest(rng)[: rng.randint(20, 30)]


def jokers_on_table(rng: random.Random) -> State:
    pool = _Pool(rng)
    table: list[list[str]] = []
    _jokers_first(rng, pool, table)
    _random_table(rng, pool, rng.randint(40, 70), table)
    return table, pool.rest(rng)[: rng.randint(10, 30)]


def long_runs(rng: random.Random) -> State:
    pool = _Pool(rng)
    table: list[list[str]] = []
    target = rng.randint(40, 70)
    for _ in range(500):
        if sum(map(len, table)) >= target:
            break
        length = rng.randint(6, 13)
        start = rng.randint(1, 14 - length)
        colour = rng.choice(COLOURS)
        names = [f"{colour}{n}" for n in range(start, start + length)]
        if pool.by_name["J"] and rng.random() < 0.3:
            names[rng.randrange(length)] = "J"
        run = pool.take(names)
        if run is not None:
            table.append(run)
    _random_table(rng, pool, target, table)
    return table, pool.rest(rng)[: rng.randint(10, 30)]


def slow_class(rng: random.Random) -> State:
    """A table of about 78 tiles in valid melds with both jokers, then 24 non-joker tiles
    taken off it as the rack: whole melds, and tiles whose meld stays valid without them
    (a run's end, a group's fourth), so that the rest is still a valid table."""
    while True:
        pool = _Pool(rng)
        whole: list[list[str]] = []
        _jokers_first(rng, pool, whole)
        _random_table(rng, pool, 78, whole)
        rack: list[str] = []
        table: list[list[str]] = []
        rng.shuffle(whole)
        for meld in whole:
            if len(rack) + len(meld) <= 24 and not any(t.startswith("J") for t in meld):
                rack += meld
                continue
            meld = list(meld)
            while len(meld) > 3 and len(rack) < 24 and not meld[-1].startswith("J"):
                rack.append(meld.pop())
            table.append(meld)
        if len(rack) == 24 and 50 <= sum(map(len, table)) <= 58:
            return table, rack


def played(rng: random.Random) -> State:
    """A seat's table and rack at a random turn of a seeded game between baseline bots,
    after that seat's initial meld."""
    while True:
        players = rng.randint(2, 4)
        game = Rummikub.new({}, players, seed=rng.randrange(2**31))
        bots = [BasicRummikubBot(rng.randrange(2**31)) for _ in range(players)]
        stop_at = rng.randint(10, 80)
        for turn in range(400):
            seats = game.to_act()
            if game.is_over() or not seats:
                break
            seat = seats[0]
            view = game.view(seat)
            if turn >= stop_at and view["seats"][seat]["initial_meld_done"] and view["table"]:
                return [list(m["tiles"]) for m in view["table"]], list(view["rack"])
            game.apply(seat, bots[seat].choose(view, game.legal_actions(seat)))


KINDS: dict[str, Callable[[random.Random], State]] = {
    "played": played,
    "large_rack": large_rack,
    "jokers_on_table": jokers_on_table,
    "long_runs": long_runs,
    "slow_class": slow_class,
}


def mixed_states(count: int, seed: int) -> list[tuple[str, State]]:
    """`count` states: two fifths played, the rest the four other kinds in equal shares."""
    rng = random.Random(seed)
    shares = {"played": 0.4, "large_rack": 0.15, "jokers_on_table": 0.15, "long_runs": 0.15}
    counts = {kind: int(count * share) for kind, share in shares.items()}
    counts["slow_class"] = count - sum(counts.values())
    return [(kind, KINDS[kind](rng)) for kind, n in counts.items() for _ in range(n)]
