"""The circles' sizes kept by rated match ends and by forgetting are the ones counted afresh.

Three ways to the same numbers, for every player and mode: the sizes kept (circle_sizes), the
query a rebuild and the migration fill them with, and a circle's total counted from the pairs
joined to the ratings, as a leaderboard read did before the sizes were kept. Run on SQLite and
PostgreSQL; two stores on one PostgreSQL database stand for two nodes ending matches at once.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from sqlalchemy import and_, func, literal, select, union_all

from app.players.identity import Identities
from app.players.rating_math import SeatAtEnd, bot_player_id
from app.players.rebuild import rebuild_ratings
from app.players.standings import Standings
from app.storage.models import PLAYER_PAIRS, PLAYERS, RATINGS
from app.storage.sql_store import SqlMatchStore
from tests.storage.test_rating_writes import (
    circles_of,
    people,
    person,
    play_and_end,
    scored,
)

Sizes = dict[tuple[str, str], tuple[int, int]]


def bot(seat: int, level: str) -> SeatAtEnd:
    return SeatAtEnd(seat, None, "bot", level)


def partnership(first_side_wins: bool) -> dict[str, Any]:
    """A four-player Gin Rummy result: seats 0 and 2 against 1 and 3."""
    totals = [120, 40] if first_side_wins else [40, 120]
    return {
        "sides": [
            {"side": 0, "seats": [0, 2], "total": totals[0]},
            {"side": 1, "seats": [1, 3], "total": totals[1]},
        ],
        "totals": totals,
        "scores": [totals[0], totals[1], totals[0], totals[1]],
        "winner_side": 0 if first_side_wins else 1,
        "winners": [0, 2] if first_side_wins else [1, 3],
    }


def read_before(circle_of: str, mode: str, public: bool) -> Any:
    """A circle's total as a leaderboard counted it before the sizes were kept: the player's
    pairs and the player, joined to their ratings in the mode."""
    pairs = PLAYER_PAIRS.c
    shared = pairs.shared_public if public else pairs.shared
    members = union_all(
        select(pairs.other_id.label("player_id")).where(pairs.player_id == circle_of, shared > 0),
        select(literal(circle_of, PLAYERS.c.id.type).label("player_id")),
    ).subquery("members")
    rated = (
        select(RATINGS.c.player_id)
        .select_from(members)
        .join(RATINGS, and_(RATINGS.c.player_id == members.c.player_id, RATINGS.c.mode == mode))
        .subquery("rated")
    )
    return select(func.count()).select_from(rated)


async def assert_circles_hold(store: SqlMatchStore) -> Sizes:
    """The sizes kept equal the ones counted afresh, and every circle's total on a leaderboard
    (for the player and for anyone else) equals the one counted as before."""
    sizes = await circles_of(store)
    assert all(members >= public and members > 0 for members, public in sizes.values())
    board = Standings(store.engine)
    async with store.engine.connect() as connection:
        players = list(await connection.scalars(select(PLAYERS.c.id)))
        modes = list(await connection.scalars(select(RATINGS.c.mode).distinct()))
        for pid in players:
            for mode in modes:
                for reader in (pid, None):
                    before = await connection.scalar(read_before(pid, mode, reader is None))
                    _, total = await board.leaderboard(
                        mode=mode, circle_of=pid, reader_id=reader, limit=1, offset=0
                    )
                    assert total == before, (pid, mode, reader)
    return sizes


async def forget(store: SqlMatchStore, player_id: str) -> None:
    identities = Identities(store.engine)
    player = await identities.get(player_id)
    assert player is not None
    await identities.forget(player)


async def test_each_kind_of_match_end_grows_the_circles_it_should(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob, cy, dee, eve = await people(sql_store, "Ann", "Bob", "Cy", "Dee", "Eve")
    rk2, rk3, gin4 = "rummikub:2", "rummikub:3", "gin_rummy:4"
    easy = bot_player_id("rummikub", "easy")
    await play_and_end(sql_store, "m1", [person(0, ann), person(1, bob)], scored([5, -5]))
    assert await assert_circles_hold(sql_store) == {(ann, rk2): (1, 1), (bob, rk2): (1, 1)}
    # Cy's first rated match is private, with a bot and an anonymous guest.
    seats = [person(0, bob), person(1, cy), bot(2, "easy"), person(3, None)]
    await play_and_end(sql_store, "m2", seats[:3], scored([3, 9, -12]), public=False)
    sizes = await assert_circles_hold(sql_store)
    assert sizes[(bob, rk3)] == (2, 0)
    assert sizes[(easy, rk2)] == (1, 0)  # Bob, rated in rummikub:2
    # Cy, who already had friends, is rated in rummikub:2 for the first time.
    await play_and_end(sql_store, "m3", [person(0, cy), person(1, dee)], scored([1, -1]))
    sizes = await assert_circles_hold(sql_store)
    assert sizes[(bob, rk2)] == (2, 1)
    assert sizes[(easy, rk2)] == (2, 0)
    # A private match of players who had only public ones, and a public one of players who had
    # only private ones.
    await play_and_end(
        sql_store, "m4", [person(0, ann), person(1, bob)], scored([2, 8]), public=False
    )
    await play_and_end(sql_store, "m5", [person(0, cy), person(1, bob)], scored([2, 8]))
    sizes = await assert_circles_hold(sql_store)
    assert sizes[(bob, rk2)] == (2, 2)
    # A Gin partnership at four; an unrated room; a match a guest leaves alone rates nothing.
    seats = [person(0, ann), person(1, dee), person(2, eve), person(3, cy)]
    await play_and_end(sql_store, "g1", seats, partnership(True), game="gin_rummy")
    await play_and_end(sql_store, "g2", seats, partnership(False), game="gin_rummy", rated=False)
    await play_and_end(sql_store, "g3", [person(0, eve), person(1, None)], scored([4, -4]))
    sizes = await assert_circles_hold(sql_store)
    assert sizes[(eve, gin4)] == (3, 3)
    assert sizes[(eve, rk2)] == (3, 3)  # Ann, Dee and Cy are rated in rummikub:2
    await rebuild_ratings(sql_store.engine)
    assert await circles_of(sql_store) == sizes
    await forget(sql_store, cy)
    sizes = await assert_circles_hold(sql_store)
    assert sizes[(bob, rk2)] == (1, 1)
    assert (cy, rk2) not in sizes
    await forget(sql_store, bob)
    await assert_circles_hold(sql_store)
    # Rebuilt without them, their matches rate fewer players (or none): the circles follow.
    await rebuild_ratings(sql_store.engine)
    await assert_circles_hold(sql_store)


async def test_random_ends_and_forgets_keep_the_circles_as_a_rebuild_counts_them(
    sql_store: SqlMatchStore,
) -> None:
    players = await people(sql_store, *(f"P{n}" for n in range(8)))
    chooser = random.Random(11)
    for index in range(60):
        game = chooser.choice(["rummikub", "gin_rummy"])
        count = chooser.choice([2, 3, 4] if game == "rummikub" else [2, 4])
        pool: list[str | None] = [*players, None]
        seats = [person(seat, pid) for seat, pid in enumerate(chooser.sample(pool, count))]
        if chooser.random() < 0.3:
            seats[-1] = bot(count - 1, chooser.choice(["easy", "hard"]))
        if game == "gin_rummy" and count == 4:
            result = partnership(chooser.random() < 0.5)
        else:
            result = scored([chooser.randint(-40, 40) for _ in seats])
        await play_and_end(
            sql_store,
            f"m{index:02d}",
            seats,
            result,
            game=game,
            rated=chooser.random() < 0.85,
            public=chooser.random() < 0.6,
        )
        if index == 29:
            # Halfway, rebuilt: the same sizes, and the later ends go on from them.
            live = await assert_circles_hold(sql_store)
            assert any(members != public for members, public in live.values())
            await rebuild_ratings(sql_store.engine)
            assert await circles_of(sql_store) == live
        if index >= 30 and index % 10 == 9:
            gone = players.pop(chooser.randrange(len(players)))
            await forget(sql_store, gone)
            await assert_circles_hold(sql_store)
    await assert_circles_hold(sql_store)
    await rebuild_ratings(sql_store.engine)
    await assert_circles_hold(sql_store)


@pytest.mark.postgres
async def test_ends_on_two_nodes_at_once_keep_the_circles(
    postgres_nodes: list[SqlMatchStore],
) -> None:
    first = postgres_nodes[0]
    players = await people(first, *(f"P{n}" for n in range(6)))
    chooser = random.Random(5)
    ends = []
    for index in range(30):
        node = postgres_nodes[index % 2]
        chosen = chooser.sample(players, chooser.choice([2, 3]))
        seats = [person(seat, pid) for seat, pid in enumerate(chosen)]
        result = scored([chooser.randint(-40, 40) for _ in seats])
        public = chooser.random() < 0.6
        ends.append(play_and_end(node, f"m{index:02d}", seats, result, public=public))
    await asyncio.gather(*ends[:20])
    live = await assert_circles_hold(first)
    await rebuild_ratings(first.engine)
    assert await circles_of(first) == live
    # The rest, with a player forgotten meanwhile.
    await asyncio.gather(*ends[20:], forget(first, players[5]))
    await assert_circles_hold(first)
