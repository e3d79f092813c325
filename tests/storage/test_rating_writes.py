"""A rated match end updates ratings in its own transaction; a rebuild gives the same numbers.

Run on SQLite and PostgreSQL: two stores on one PostgreSQL database stand for two cluster
nodes ending matches at the same moment.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from sqlalchemy import select

from app.players import standings
from app.players.identity import Identities
from app.players.rating_math import SeatAtEnd, mode_of, places, rated_sides
from app.players.rebuild import rebuild_ratings
from app.players.standings import Standings
from app.storage.circle_sizes import all_circles
from app.storage.models import (
    CIRCLE_SIZES,
    MATCHES,
    PLAYER_PAIRS,
    RATING_EVENTS,
    RATING_TOTALS,
    RATINGS,
    SEATS,
)
from app.storage.pair_counts import all_pairs
from app.storage.sql_store import SqlMatchStore
from app.storage.store import FINISHED, RatingUpdate, SeatRecord, StoreError


async def people(store: SqlMatchStore, *names: str) -> list[str]:
    identities = Identities(store.engine)
    return [(await identities.create(name))[0].id for name in names]


def scored(scores: list[int]) -> dict[str, Any]:
    """A result by scores, as Rummikub and Gin Rummy at two or three give it: the best win."""
    best = max(scores)
    winners = [seat for seat, score in enumerate(scores) if score == best]
    return {"scores": scores, "winners": winners, "winner": winners[0], "rounds": 1}


async def play_and_end(
    store: SqlMatchStore,
    match_id: str,
    seats: list[SeatAtEnd],
    result: dict[str, Any],
    *,
    game: str = "rummikub",
    rated: bool = True,
    public: bool = True,
) -> None:
    """A match (Rummikub unless `game` says) as a room makes it: created with its seats, then
    ended and rated."""
    records = [
        SeatRecord(
            seat=s.seat,
            name=f"seat {s.seat}",
            kind=s.kind,
            level=s.level,
            token_hash=None,
            player_id=s.player_id,
        )
        for s in seats
    ]
    await store.create_match(
        match_id=match_id,
        room_id=f"room-{match_id}",
        game=game,
        config={},
        seed=1,
        players=len(seats),
        seats=records,
        room_meta={"public": public, "rated": rated},
    )
    sides = rated_sides(game, result, seats)
    update = RatingUpdate(match_id, mode_of(game, len(seats)), tuple(sides), public)
    await store.finish_match(
        match_id=match_id,
        status=FINISHED,
        result=result,
        final_scores=result["scores"],
        places=places(result, seats),
        rating=update if sides and rated else None,
    )


async def ratings_of(store: SqlMatchStore) -> dict[tuple[str, str], tuple[float, float, int]]:
    async with store.engine.connect() as connection:
        rows = await connection.execute(select(RATINGS))
        return {(r.player_id, r.mode): (r.mu, r.sigma, r.matches) for r in rows}


async def events_of(store: SqlMatchStore) -> list[tuple[Any, ...]]:
    async with store.engine.connect() as connection:
        rows = await connection.execute(
            select(RATING_EVENTS).order_by(RATING_EVENTS.c.seq, RATING_EVENTS.c.player_id)
        )
        return [
            (r.match_id, r.player_id, r.seq, r.mu_before, r.mu_after, r.sigma_after) for r in rows
        ]


async def pairs_of(store: SqlMatchStore) -> dict[tuple[str, str], tuple[int, ...]]:
    """Each ordered pair's (shared, shared_public, duels, wins, losses, and the same public)."""
    async with store.engine.connect() as connection:
        rows = await connection.execute(select(PLAYER_PAIRS))
        return {(r.player_id, r.other_id): tuple(r[2:]) for r in rows}


async def totals_of(store: SqlMatchStore) -> dict[str, int]:
    async with store.engine.connect() as connection:
        rows = await connection.execute(select(RATING_TOTALS))
        return {r.mode: r.players for r in rows if r.players}


async def circles_of(store: SqlMatchStore) -> dict[tuple[str, str], tuple[int, int]]:
    """Each (player, mode)'s circle size kept, and the same counted afresh from the pairs."""
    async with store.engine.connect() as connection:
        rows = await connection.execute(select(CIRCLE_SIZES))
        sizes = {(r.player_id, r.mode): (r.members, r.members_public) for r in rows}
        counted = await connection.execute(all_circles())
        assert {(r.player_id, r.mode): (r.members, r.members_public) for r in counted} == sizes
    return sizes


def person(seat: int, player_id: str | None) -> SeatAtEnd:
    return SeatAtEnd(seat, player_id, "human", None)


async def test_a_match_end_rates_its_players_and_records_the_change(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob = await people(sql_store, "Ann", "Bob")
    seats = [person(0, ann), person(1, bob), SeatAtEnd(2, None, "bot", "hard")]
    await play_and_end(sql_store, "m1", seats, scored([30, -10, -20]))
    ratings = await ratings_of(sql_store)
    assert set(ratings) == {
        (ann, "rummikub:3"),
        (bob, "rummikub:3"),
        ("bot-rummikub-hard", "rummikub:3"),
    }
    assert ratings[(ann, "rummikub:3")][0] > 25 > ratings[("bot-rummikub-hard", "rummikub:3")][0]
    events = await events_of(sql_store)
    assert [e[2] for e in events] == [1, 1, 1]
    detail = await sql_store.match_detail(match_id="m1")
    assert detail is not None
    assert [s.place for s in detail.summary.seats] == [0, 1, 2]
    assert [s.player_id for s in detail.summary.seats] == [ann, bob, None]


async def test_a_match_end_counts_each_pair_of_players_public_and_private_apart(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob = await people(sql_store, "Ann", "Bob")
    hard = "bot-rummikub-hard"
    seats = [person(0, ann), person(1, bob), SeatAtEnd(2, None, "bot", "hard")]
    await play_and_end(sql_store, "m1", seats, scored([30, -10, -20]))
    await play_and_end(sql_store, "m2", seats, scored([-30, 10, -20]), public=False)
    # Unrated: a duel, but no rated match shared.
    await play_and_end(sql_store, "m3", seats[:2], scored([5, -5]), rated=False)
    pairs = await pairs_of(sql_store)
    # shared, shared_public, duels, wins, losses, duels_public, wins_public, losses_public
    assert pairs[(ann, bob)] == (2, 1, 3, 2, 1, 2, 2, 0)
    assert pairs[(bob, ann)] == (2, 1, 3, 1, 2, 2, 0, 2)
    assert pairs[(hard, ann)] == (2, 1, 2, 1, 1, 1, 0, 1)
    assert len(pairs) == 6
    assert await totals_of(sql_store) == {"rummikub:3": 3}


async def test_a_player_forgotten_while_seated_stays_forgotten_when_the_room_saves_the_seat(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob = await people(sql_store, "Ann", "Bob")
    identities = Identities(sql_store.engine)
    seats = [person(0, ann), person(1, bob)]
    records = [
        SeatRecord(s.seat, f"seat {s.seat}", s.kind, None, None, player_id=s.player_id)
        for s in seats
    ]
    await sql_store.create_match(
        match_id="m1", room_id="r1", game="rummikub", config={}, seed=1, players=2,
        seats=records, room_meta={"public": True, "rated": True},
    )  # fmt: skip
    forgotten = await identities.get(bob)
    assert forgotten is not None
    await identities.forget(forgotten)
    # The room still seats Bob and saves his seat (he came back from a bot, say), then a
    # rematch starts with the same seats: neither write brings his id back.
    await sql_store.update_seat(match_id="m1", seat=records[1])
    await sql_store.create_match(
        match_id="m2", room_id="r1", game="rummikub", config={}, seed=2, players=2,
        seats=records, room_meta={"public": True, "rated": True},
    )  # fmt: skip
    async with sql_store.engine.connect() as connection:
        rows = await connection.execute(
            select(SEATS.c.match_id, SEATS.c.player_id, SEATS.c.name)
            .where(SEATS.c.seat == 1)
            .order_by(SEATS.c.match_id)
        )
        assert [tuple(row) for row in rows] == [
            ("m1", None, "Former player"),
            ("m2", None, "Former player"),
        ]
    result = scored([5, -5])
    sides = rated_sides("rummikub", result, seats)
    await sql_store.finish_match(
        match_id="m1",
        status=FINISHED,
        result=result,
        final_scores=result["scores"],
        places=places(result, seats),
        rating=RatingUpdate("m1", "rummikub:2", tuple(sides), public=True),
    )
    assert await ratings_of(sql_store) == {}
    assert await pairs_of(sql_store) == {}
    assert (await sql_store.match_detail(match_id="m1")) is not None


async def test_forgetting_a_player_takes_their_pairs_and_their_place_in_the_totals(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob, cy = await people(sql_store, "Ann", "Bob", "Cy")
    await play_and_end(sql_store, "m1", [person(0, ann), person(1, bob)], scored([5, -5]))
    await play_and_end(sql_store, "m2", [person(0, bob), person(1, cy)], scored([5, -5]))
    assert await totals_of(sql_store) == {"rummikub:2": 3}
    forgotten = await Identities(sql_store.engine).get(bob)
    assert forgotten is not None
    await Identities(sql_store.engine).forget(forgotten)
    assert await totals_of(sql_store) == {"rummikub:2": 2}
    assert await pairs_of(sql_store) == {}
    assert await circles_of(sql_store) == {}
    # Rebuilt, each match has one rated side left and rates nobody: the totals follow.
    await rebuild_ratings(sql_store.engine)
    assert await ratings_of(sql_store) == {}
    assert await totals_of(sql_store) == {}
    assert await pairs_of(sql_store) == {}


async def test_an_unrated_room_and_a_lone_rated_side_rate_nothing(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob = await people(sql_store, "Ann", "Bob")
    await play_and_end(
        sql_store, "m1", [person(0, ann), person(1, bob)], scored([5, -5]), rated=False
    )
    await play_and_end(sql_store, "m2", [person(0, ann), person(1, None)], scored([5, -5]))
    assert await ratings_of(sql_store) == {}


async def test_a_failed_match_end_rates_nothing(sql_store: SqlMatchStore) -> None:
    ann, bob = await people(sql_store, "Ann", "Bob")
    seats = [person(0, ann), person(1, bob)]
    sides = rated_sides("rummikub", scored([5, -5]), seats)
    with pytest.raises(StoreError) as refused:
        await sql_store.finish_match(
            match_id="no-such-match",
            status=FINISHED,
            result=scored([5, -5]),
            final_scores=[5, -5],
            rating=RatingUpdate("no-such-match", "rummikub:2", tuple(sides), public=True),
        )
    assert refused.value.code == "unknown_match"
    assert await ratings_of(sql_store) == {}


async def test_a_forgotten_player_is_not_rated_by_a_match_that_ends_later(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob, cy = await people(sql_store, "Ann", "Bob", "Cy")
    identities = Identities(sql_store.engine)
    forgotten = await identities.get(bob)
    assert forgotten is not None
    await identities.forget(forgotten)
    seats = [person(0, ann), person(1, bob), person(2, cy)]
    await play_and_end(sql_store, "m1", seats, scored([9, -4, -5]))
    assert {pid for pid, _ in await ratings_of(sql_store)} == {ann, cy}


async def test_rebuilding_gives_exactly_the_numbers_the_live_updates_gave(
    sql_store: SqlMatchStore,
) -> None:
    players = await people(sql_store, "Ann", "Bob", "Cy", "Dee")
    chooser = random.Random(4)
    for index in range(30):
        count = chooser.choice([2, 3, 4])
        pool: list[str | None] = [*players, None, None]
        chosen = chooser.sample(pool, count)
        seats = [person(seat, pid) for seat, pid in enumerate(chosen)]
        if chooser.random() < 0.3:
            seats[-1] = SeatAtEnd(count - 1, None, "bot", chooser.choice(["easy", "hard"]))
        if chooser.random() < 0.2 and seats[0].player_id is not None:
            seats[0] = SeatAtEnd(0, seats[0].player_id, "bot", "normal")  # left mid-match
        scores = [chooser.randint(-40, 40) for _ in seats]
        await play_and_end(
            sql_store,
            f"m{index:02d}",
            seats,
            scored(scores),
            rated=chooser.random() < 0.8,
            public=chooser.random() < 0.7,
        )
    live_ratings, live_events = await ratings_of(sql_store), await events_of(sql_store)
    live_pairs, live_totals = await pairs_of(sql_store), await totals_of(sql_store)
    live_circles = await circles_of(sql_store)
    assert len(live_ratings) >= 8
    assert len(live_pairs) >= 12
    assert any(counts[0] != counts[1] for counts in live_pairs.values())
    # The migration's backfill counts the same by the live ends' query, over every match.
    async with sql_store.engine.connect() as connection:
        every = await connection.execute(all_pairs())
        assert {(r.player_id, r.other_id): tuple(r[2:]) for r in every} == live_pairs
    rebuilt = await rebuild_ratings(sql_store.engine)
    assert rebuilt.ratings == len(live_ratings)
    assert await ratings_of(sql_store) == live_ratings
    assert await events_of(sql_store) == live_events
    assert await pairs_of(sql_store) == live_pairs
    assert await totals_of(sql_store) == live_totals
    assert await circles_of(sql_store) == live_circles


@pytest.mark.postgres
async def test_matches_ending_at_once_on_two_nodes_are_all_rated(
    postgres_nodes: list[SqlMatchStore],
) -> None:
    first = postgres_nodes[0]
    ann, bob, cy = await people(first, "Ann", "Bob", "Cy")
    trios = [[ann, bob, cy], [bob, cy, ann], [cy, ann, bob]]
    ends = []
    for index in range(24):
        node = postgres_nodes[index % 2]
        order = trios[index % 3]
        seats = [person(seat, pid) for seat, pid in enumerate(order)]
        scores = [10, -4, -6] if index % 2 else [-3, 8, -5]
        ends.append(play_and_end(node, f"m{index:02d}", seats, scored(scores)))
    await asyncio.gather(*ends)
    ratings = await ratings_of(first)
    # Every end counted, once: each player played all 24.
    assert {key: value[2] for key, value in ratings.items()} == {
        (ann, "rummikub:3"): 24,
        (bob, "rummikub:3"): 24,
        (cy, "rummikub:3"): 24,
    }
    async with first.engine.connect() as connection:
        seqs = sorted(
            row.rating_seq for row in await connection.execute(select(MATCHES.c.rating_seq))
        )
    assert seqs == list(range(1, 25))
    live_events, live_pairs = await events_of(first), await pairs_of(first)
    assert live_pairs[(ann, bob)][:3] == (24, 24, 24)
    live_circles = await circles_of(first)
    assert live_circles[(ann, "rummikub:3")] == (2, 2)
    await rebuild_ratings(first.engine)
    assert await ratings_of(first) == ratings
    assert await events_of(first) == live_events
    assert await pairs_of(first) == live_pairs
    assert await circles_of(first) == live_circles


async def test_a_circle_reads_the_same_walking_the_board_or_sorting_its_members(
    sql_store: SqlMatchStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = await people(sql_store, "Ann", "Bob", "Cy", "Dee", "Eve")
    chooser = random.Random(7)
    for index in range(24):
        chosen = chooser.sample(players, chooser.choice([2, 3]))
        seats = [person(seat, pid) for seat, pid in enumerate(chosen)]
        scores = [chooser.randint(-40, 40) for _ in seats]
        await play_and_end(
            sql_store,
            f"m{index:02d}",
            seats,
            scored(scores),
            public=chooser.random() < 0.6,
        )
    board = Standings(sql_store.engine)

    async def circles() -> list[Any]:
        found = []
        for pid in players:
            for reader in (None, pid):
                for mode in ("rummikub:2", "rummikub:3"):
                    for offset in (0, 1, 3):
                        found.append(
                            await board.leaderboard(
                                mode=mode, circle_of=pid, reader_id=reader, limit=2, offset=offset
                            )
                        )
        return found

    sorted_members = await circles()
    monkeypatch.setattr(standings, "LARGE_CIRCLE", 0)
    walked = await circles()
    assert walked == sorted_members
    assert any(total > 2 for _, total in walked)


async def test_partners_share_a_match_but_are_not_each_others_opponents(
    sql_store: SqlMatchStore,
) -> None:
    ann, bob, cy, dee = await people(sql_store, "Ann", "Bob", "Cy", "Dee")
    seats = [person(0, ann), person(1, bob), person(2, cy), person(3, dee)]
    result = {
        "sides": [
            {"side": 0, "seats": [0, 2], "total": 120},
            {"side": 1, "seats": [1, 3], "total": 40},
        ],
        "totals": [120, 40],
        "scores": [120, 40, 120, 40],
        "winner_side": 0,
        "winners": [0, 2],
    }
    records = [
        SeatRecord(s.seat, f"seat {s.seat}", "human", None, None, player_id=s.player_id)
        for s in seats
    ]
    await sql_store.create_match(
        match_id="g4", room_id="r", game="gin_rummy", config={}, seed=1, players=4,
        seats=records, room_meta={"public": True, "rated": True},
    )  # fmt: skip
    sides = rated_sides("gin_rummy", result, seats)
    await sql_store.finish_match(
        match_id="g4",
        status=FINISHED,
        result=result,
        final_scores=result["scores"],  # type: ignore[arg-type]
        places=places(result, seats),
        rating=RatingUpdate("g4", "gin_rummy:4", tuple(sides), public=True),
    )
    live = await pairs_of(sql_store)
    # shared, shared_public, duels, wins, losses, duels_public, wins_public, losses_public
    assert live[(ann, cy)] == (1, 1, 0, 0, 0, 0, 0, 0)
    assert live[(ann, bob)] == (1, 1, 1, 1, 0, 1, 1, 0)
    assert live[(dee, cy)] == (1, 1, 1, 0, 1, 1, 0, 1)
    assert len(live) == 12
    circles = await circles_of(sql_store)
    assert circles[(ann, "gin_rummy:4")] == (3, 3)
    await rebuild_ratings(sql_store.engine)
    assert await pairs_of(sql_store) == live
    assert await circles_of(sql_store) == circles
