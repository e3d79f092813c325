"""The match store's contract, run against every store implementation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.storage.store import MatchStore, SeatRecord, StoreError


def seats(*names: str) -> list[SeatRecord]:
    return [
        SeatRecord(seat=i, name=name, kind="human", level=None, token_hash=f"hash-{i}")
        for i, name in enumerate(names)
    ]


async def create(
    store: MatchStore, match_id: str = "m1", game: str = "gin_rummy", **kw: Any
) -> None:
    await store.create_match(
        match_id=match_id,
        room_id=kw.get("room_id", f"room-{match_id}"),
        game=game,
        config=kw.get("config", {"target": 100}),
        seed=kw.get("seed", 7),
        players=2,
        seats=kw.get("seats", seats("ann", "bob")),
        room_meta=kw.get("room_meta", {"public": True, "spectators": True}),
    )


async def test_a_created_match_is_unfinished_with_its_seats_and_room_meta(
    store: MatchStore,
) -> None:
    await create(store, room_meta={"public": False, "options": {"bots": 1}})
    (match,) = await store.unfinished_matches()
    assert match.match_id == "m1"
    assert match.status == "active"
    assert match.config == {"target": 100}
    assert match.seed == 7
    assert match.room_meta == {"public": False, "options": {"bots": 1}}
    assert [s.name for s in match.seats] == ["ann", "bob"]
    assert match.seats[1].token_hash == "hash-1"
    assert match.actions == []


async def test_creating_a_match_twice_is_refused(store: MatchStore) -> None:
    await create(store)
    with pytest.raises(StoreError) as refused:
        await create(store)
    assert refused.value.code == "duplicate_match"


async def test_actions_come_back_in_log_order_with_their_seats(store: MatchStore) -> None:
    await create(store)
    await store.append_action(match_id="m1", index=0, seat=None, action={"type": "deal"})
    await store.append_action(match_id="m1", index=1, seat=0, action={"type": "draw", "n": [1]})
    await store.append_action(match_id="m1", index=2, seat=1, action={"type": "pass"})
    (match,) = await store.unfinished_matches()
    assert [(a.index, a.seat, a.action["type"]) for a in match.actions] == [
        (0, None, "deal"),
        (1, 0, "draw"),
        (2, 1, "pass"),
    ]
    assert match.actions[1].action == {"type": "draw", "n": [1]}
    assert match.actions[0].at.tzinfo is not None


async def test_a_duplicate_action_index_is_refused_and_the_first_is_kept(
    store: MatchStore,
) -> None:
    await create(store)
    await store.append_action(match_id="m1", index=0, seat=0, action={"type": "draw"})
    with pytest.raises(StoreError) as refused:
        await store.append_action(match_id="m1", index=0, seat=1, action={"type": "pass"})
    assert refused.value.code == "duplicate_action"
    (match,) = await store.unfinished_matches()
    assert [(a.seat, a.action) for a in match.actions] == [(0, {"type": "draw"})]


async def test_an_action_for_an_unknown_match_is_refused(store: MatchStore) -> None:
    with pytest.raises(StoreError) as refused:
        await store.append_action(match_id="nope", index=0, seat=0, action={"type": "draw"})
    assert refused.value.code == "unknown_match"


async def test_concurrent_appends_from_many_matches_are_all_kept_in_order(
    store: MatchStore,
) -> None:
    for m in range(8):
        await create(store, match_id=f"m{m}")

    async def play(match_id: str) -> None:
        for i in range(25):
            await store.append_action(match_id=match_id, index=i, seat=i % 2, action={"i": i})

    await asyncio.gather(*(play(f"m{m}") for m in range(8)))
    matches = await store.unfinished_matches()
    assert len(matches) == 8
    for match in matches:
        assert [a.action["i"] for a in match.actions] == list(range(25))


# Documents that a JSON encoder, a driver or the database's own JSON handling could change.
AWKWARD_DOCUMENTS: list[dict[str, Any]] = [
    {"type": "discard", "card": "H10"},
    {},
    {"text": 'quote " backslash \\ slash / tab \t newline \n', "unicode": "\u00e9\u4e2d\U0001f0a1"},
    {"looks_like_json": '{"a": [1]}', "looks_like_number": "10", "empty": ""},
    {"nested": {"lists": [[1, 2], [], [None, True, False]], "deep": {"x": {"y": [0.5]}}}},
    {"big": 2**62, "negative": -(2**62), "float": 1.25, "zero": 0, "none": None},
    {"a" * 300: "b" * 3000},
]


async def test_actions_come_back_exactly_as_logged(store: MatchStore) -> None:
    await create(store)
    for index, action in enumerate(AWKWARD_DOCUMENTS):
        await store.append_action(match_id="m1", index=index, seat=None, action=action)
    match = await store.load_match(match_id="m1")
    assert match is not None
    assert [a.action for a in match.actions] == AWKWARD_DOCUMENTS
    assert [a.seat for a in match.actions] == [None] * len(AWKWARD_DOCUMENTS)


async def test_actions_logged_together_come_back_exactly(store: MatchStore) -> None:
    """Appends made at once share commits, so their documents travel in one batch."""
    for m in range(3):
        await create(store, match_id=f"m{m}")
    await asyncio.gather(
        *(
            store.append_action(match_id=f"m{m}", index=i, seat=m - 1 or None, action=action)
            for m in range(3)
            for i, action in enumerate(AWKWARD_DOCUMENTS)
        )
    )
    for m in range(3):
        match = await store.load_match(match_id=f"m{m}")
        assert match is not None
        assert [a.action for a in match.actions] == AWKWARD_DOCUMENTS
        assert {a.seat for a in match.actions} == {m - 1 or None}


async def test_hand_results_and_room_meta_come_back_exactly(store: MatchStore) -> None:
    await create(store, room_meta=AWKWARD_DOCUMENTS[2])
    for index, result in enumerate(AWKWARD_DOCUMENTS):
        await store.record_hand(match_id="m1", hand_index=index, result=result)
    detail = await store.match_detail(match_id="m1")
    match = await store.load_match(match_id="m1")
    assert detail is not None
    assert match is not None
    assert [h.result for h in detail.hands] == AWKWARD_DOCUMENTS
    assert match.room_meta == AWKWARD_DOCUMENTS[2]


async def test_a_flood_of_appends_at_once_is_kept_whole(store: MatchStore) -> None:
    """More actions at once than one statement of the log takes: all kept, each in order."""
    for m in range(4):
        await create(store, match_id=f"m{m}")
    await asyncio.gather(
        *(
            store.append_action(match_id=f"m{m}", index=i, seat=i % 2, action={"i": i})
            for i in range(300)
            for m in range(4)
        )
    )
    for m in range(4):
        match = await store.load_match(match_id=f"m{m}")
        assert match is not None
        assert [(a.index, a.action["i"]) for a in match.actions] == [(i, i) for i in range(300)]


async def test_one_bad_append_in_a_batch_does_not_sink_the_others(store: MatchStore) -> None:
    await create(store)
    await store.append_action(match_id="m1", index=0, seat=0, action={"type": "draw"})
    results = await asyncio.gather(
        store.append_action(match_id="m1", index=1, seat=0, action={"type": "a"}),
        store.append_action(match_id="m1", index=0, seat=0, action={"type": "dup"}),
        store.append_action(match_id="m1", index=2, seat=1, action={"type": "b"}),
        return_exceptions=True,
    )
    assert results[0] is None
    assert isinstance(results[1], StoreError)
    assert results[1].code == "duplicate_action"
    assert results[2] is None
    match = await store.load_match(match_id="m1")
    assert match is not None
    assert [a.action["type"] for a in match.actions] == ["draw", "a", "b"]


async def test_a_match_and_its_first_actions_made_together_are_kept_in_order(
    store: MatchStore,
) -> None:
    # Nothing is awaited in between, so the SQL stores commit all of it in one batch, where the
    # match row must still come before the actions that refer to it.
    await asyncio.gather(
        create(store, match_id="m1"),
        store.append_action(match_id="m1", index=0, seat=0, action={"type": "draw"}),
        store.record_hand(match_id="m1", hand_index=0, result={"winner": 0}),
        store.append_action(match_id="m1", index=1, seat=0, action={"type": "discard"}),
        store.finish_match(match_id="m1", status="finished", result=None, final_scores=[3, 0]),
    )
    match = await store.load_match(match_id="m1")
    assert match is not None
    assert match.status == "finished"
    assert [a.action["type"] for a in match.actions] == ["draw", "discard"]
    assert [s.final_score for s in match.seats] == [3, 0]


async def test_every_write_for_an_unknown_match_is_refused_as_such(store: MatchStore) -> None:
    # The SQL stores write seats and hand results as upserts, which learn of a missing match
    # only from its foreign key; the caller must still hear "unknown_match", and nothing else
    # in the same batch may fail with it.
    await create(store, match_id="m1")
    bot = SeatRecord(seat=1, name="Bot", kind="bot", level="easy", token_hash=None)
    writes = [
        store.update_seat(match_id="nope", seat=bot),
        store.record_hand(match_id="nope", hand_index=0, result={}),
        store.update_room_meta(match_id="nope", room_meta={}),
        store.finish_match(match_id="nope", status="finished", result=None, final_scores=[1, 2]),
        store.append_action(match_id="m1", index=0, seat=0, action={"type": "draw"}),
    ]
    results = await asyncio.gather(*writes, return_exceptions=True)
    assert [getattr(r, "code", r) for r in results] == ["unknown_match"] * 4 + [None]


async def test_a_seat_update_replaces_that_seat_only(store: MatchStore) -> None:
    await create(store, seats=seats("ann"))
    bot = SeatRecord(seat=1, name="Bot", kind="bot", level="hard", token_hash=None)
    await store.update_seat(match_id="m1", seat=bot)
    renamed = SeatRecord(seat=0, name="Ann", kind="human", level=None, token_hash="new")
    await store.update_seat(match_id="m1", seat=renamed)
    (match,) = await store.unfinished_matches()
    assert match.seats == [renamed, bot]


async def test_room_meta_can_be_replaced(store: MatchStore) -> None:
    await create(store)
    await store.update_room_meta(match_id="m1", room_meta={"public": False})
    (match,) = await store.unfinished_matches()
    assert match.room_meta == {"public": False}


async def test_a_finished_match_is_no_longer_unfinished_and_keeps_final_scores(
    store: MatchStore,
) -> None:
    await create(store)
    await create(store, match_id="m2")
    await store.finish_match(
        match_id="m1", status="finished", result={"winner": 1}, final_scores=[40, 130]
    )
    assert [m.match_id for m in await store.unfinished_matches()] == ["m2"]
    match = await store.load_match(match_id="m1")
    assert match is not None
    assert match.status == "finished"
    assert match.finished_at is not None
    assert match.result == {"winner": 1}
    assert [s.final_score for s in match.seats] == [40, 130]


async def test_a_match_cannot_finish_with_an_unknown_status(store: MatchStore) -> None:
    await create(store)
    with pytest.raises(StoreError) as refused:
        await store.finish_match(match_id="m1", status="won", result=None, final_scores=None)
    assert refused.value.code == "bad_status"


async def test_recording_a_hand_again_replaces_it(store: MatchStore) -> None:
    await create(store)
    await store.record_hand(match_id="m1", hand_index=1, result={"outcome": "gin"})
    await store.record_hand(match_id="m1", hand_index=0, result={"outcome": "knock"})
    await store.record_hand(match_id="m1", hand_index=0, result={"outcome": "undercut"})
    detail = await store.match_detail(match_id="m1")
    assert detail is not None
    assert [(h.hand_index, h.result["outcome"]) for h in detail.hands] == [
        (0, "undercut"),
        (1, "gin"),
    ]


async def test_matches_are_listed_newest_first_filtered_and_paged(store: MatchStore) -> None:
    await create(store, match_id="g1", seats=seats("ann", "bob"))
    await create(store, match_id="r1", game="rummikub", seats=seats("ann", "cy"))
    await create(store, match_id="g2", seats=seats("cy", "dee"))
    await store.finish_match(match_id="g1", status="finished", result=None, final_scores=None)

    items, total = await store.list_matches()
    assert ([m.match_id for m in items], total) == (["g2", "r1", "g1"], 3)
    items, total = await store.list_matches(game="gin_rummy")
    assert ([m.match_id for m in items], total) == (["g2", "g1"], 2)
    items, total = await store.list_matches(player="ann")
    assert ([m.match_id for m in items], total) == (["r1", "g1"], 2)
    items, total = await store.list_matches(status="finished")
    assert ([m.match_id for m in items], total) == (["g1"], 1)
    items, total = await store.list_matches(player="cy", game="rummikub", status="active")
    assert ([m.match_id for m in items], total) == (["r1"], 1)
    items, total = await store.list_matches(limit=1, offset=1)
    assert ([m.match_id for m in items], total) == (["r1"], 3)
    items, total = await store.list_matches(player="nobody")
    assert (items, total) == ([], 0)


async def test_match_detail_has_seats_config_seed_and_action_count(store: MatchStore) -> None:
    await create(store, config={"target": 50}, seed=99)
    await store.append_action(match_id="m1", index=0, seat=0, action={"type": "draw"})
    detail = await store.match_detail(match_id="m1")
    assert detail is not None
    assert detail.summary.game == "gin_rummy"
    assert [s.name for s in detail.summary.seats] == ["ann", "bob"]
    assert (detail.config, detail.seed, detail.action_count) == ({"target": 50}, 99, 1)
    assert await store.match_detail(match_id="missing") is None


def gin_hand(ending: str, knocker: int, winner: int | None, deadwood: list[int]) -> dict[str, Any]:
    """A Gin Rummy hand record shaped like the engine's hand_results()."""
    return {
        "ending": ending,
        "knocker": knocker,
        "winner": winner,
        "seats": [0, 1],
        "players": [{"seat": s, "deadwood_points": d} for s, d in enumerate(deadwood)],
    }


async def test_player_stats_count_finished_matches_won_and_gin_hands(store: MatchStore) -> None:
    await create(store, match_id="g1", seats=seats("ann", "bob"))
    for index, hand in enumerate(
        [
            gin_hand("knock", knocker=0, winner=0, deadwood=[6, 30]),
            gin_hand("undercut", knocker=0, winner=1, deadwood=[8, 5]),
            gin_hand("gin", knocker=0, winner=0, deadwood=[0, 44]),
            gin_hand("draw", knocker=None, winner=None, deadwood=[]),
        ]
    ):
        await store.record_hand(match_id="g1", hand_index=index, result=hand)
    await store.finish_match(
        match_id="g1", status="finished", result={"winners": [0]}, final_scores=[100, 30]
    )
    await create(store, match_id="r1", game="rummikub", seats=seats("bob", "ann"))
    await store.record_hand(match_id="r1", hand_index=0, result={"round": 1, "winner": 1})
    await store.finish_match(
        match_id="r1", status="finished", result={"winner": 0, "winners": [0]}, final_scores=None
    )
    await create(store, match_id="g2", seats=seats("ann", "bob"))

    ann = await store.player_stats(name="ann")
    assert (ann.matches_played, ann.matches_won) == (2, 1)
    assert ann.matches_by_game == {"gin_rummy": 1, "rummikub": 1}
    assert (ann.gin_rummy.hands_played, ann.gin_rummy.hands_won) == (4, 2)
    assert (ann.gin_rummy.knocks, ann.gin_rummy.gins, ann.gin_rummy.undercut_against) == (3, 1, 1)
    assert ann.gin_rummy.average_deadwood_at_knock == pytest.approx((6 + 8 + 0) / 3, abs=0.01)
    assert (ann.rummikub.rounds_played, ann.rummikub.rounds_won) == (1, 1)
    bob = await store.player_stats(name="bob")
    assert (bob.matches_played, bob.matches_won) == (2, 1)
    assert (bob.gin_rummy.undercuts, bob.gin_rummy.knocks, bob.rummikub.rounds_won) == (1, 0, 0)
    nobody = await store.player_stats(name="nobody")
    assert (nobody.matches_played, nobody.gin_rummy.average_deadwood_at_knock) == (0, None)
