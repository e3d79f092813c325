"""Seeded random full matches for 2, 3 and 4 players, checked against the rules at every step:
cards conserved, no view shows a hidden card, scores add up, and a serialised state replays."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from itertools import combinations
from typing import Any

import pytest

from app.games.gin_rummy import GinRummy, min_deadwood
from app.games.gin_rummy.cards import CARD_NAMES
from tests.games.gin_rummy.deals import seeded_move
from tests.games.views import parts_of, shared_parts

ALL_CARDS = set(CARD_NAMES)
Log = list[tuple[int | None, dict[str, Any]]]


def strings_in(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield str(key)
            yield from strings_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings_in(item)


def assert_no_leak(match: GinRummy, seat: int | None) -> None:
    view = match.view(seat)
    json.dumps(view)
    for index, table in enumerate(view["tables"]):
        assert not set(strings_in(table)) & match.hidden_at(seat, index)
    if view["me"] is not None:
        hidden = match.hidden_at(seat, view["me"]["table"])
        assert not set(strings_in(view["me"])) & hidden
        assert seat is not None
        assert not set(strings_in(match.legal_actions(seat))) & hidden
    rest = {key: value for key, value in view.items() if key not in ("tables", "me")}
    assert not set(strings_in(rest)) & ALL_CARDS


def assert_views_rebuilt_and_shared(match: GinRummy) -> None:
    """Views kept between calls are those of the state rebuilt from scratch, and what two
    viewers' views share shows nothing hidden from either of them."""
    viewers = [None, *range(match.players)]
    views = {viewer: match.view(viewer) for viewer in viewers}
    rebuilt = GinRummy.from_json(json.loads(json.dumps(match.to_json())))
    for viewer in viewers:
        assert views[viewer] == rebuilt.view(viewer)
    for first, second in combinations(viewers, 2):
        for index in range(len(views[first]["tables"])):
            hidden = match.hidden_at(first, index) | match.hidden_at(second, index)
            ours, theirs = (parts_of(views[v]["tables"][index]) for v in (first, second))
            for part in shared_parts(ours, theirs):
                assert not set(strings_in(part)) & hidden, f"{first} and {second} share {part}"
        for one, other in ((first, second), (second, first)):
            me = views[one]["me"]
            if me is not None:
                hidden = match.hidden_at(other, me["table"])
                for part in shared_parts(parts_of(me), parts_of(views[other])):
                    assert not set(strings_in(part)) & hidden, f"{one} shares {part}"


def assert_cards_accounted_for(match: GinRummy) -> None:
    for index, table in enumerate(match.view(None)["tables"]):
        visible = list(table["discard_pile"])
        for player in table["players"]:
            visible += player["cards"] or player["taken_from_discard"]
        assert len(visible) == len(set(visible))
        hidden = match.hidden_at(None, index)
        assert not hidden & set(visible)
        assert hidden | set(visible) == ALL_CARDS
        ending = (table["outcome"] or {}).get("ending")
        knock_card = table["phase"] == "lay_off" or ending in ("knock", "undercut", "gin")
        counted = sum(p["card_count"] for p in table["players"]) + len(table["discard_pile"])
        assert counted + table["stock_count"] + knock_card == 52


def card_points(cards: list[str]) -> int:
    return sum(min(int(card[1:]), 10) for card in cards)


def assert_hand_record_follows_the_rules(
    record: Mapping[str, Any], config: Mapping[str, Any]
) -> None:
    if record["ending"] == "draw":
        assert (record["winner"], record["points"], record["players"]) == (None, 0, [])
        return
    by_seat = {player["seat"]: player for player in record["players"]}
    knocker = by_seat[record["knocker"]]
    (defender,) = [p for seat, p in by_seat.items() if seat != record["knocker"]]
    for player in (knocker, defender):
        assert player["deadwood_points"] == card_points(player["deadwood"])
        assert all(len(meld) >= 3 and min_deadwood(meld) == 0 for meld in player["melds"])
    held = [card for meld in defender["melds"] for card in meld] + defender["deadwood"]
    laid_off = [entry["card"] for entry in defender["layoffs"]]
    assert len(held) + len(laid_off) == 10
    assert defender["deadwood_points"] <= min_deadwood(held + laid_off)
    for index, meld in enumerate(knocker["melds"]):
        extended = meld + [e["card"] for e in defender["layoffs"] if e["meld"] == index]
        assert min_deadwood(extended) == 0
    kept = sum(len(meld) for meld in knocker["melds"]) + len(knocker["deadwood"])
    mine, theirs = knocker["deadwood_points"], defender["deadwood_points"]
    assert mine <= record["knock_limit"]
    ending = record["ending"]
    if ending in ("gin", "big_gin"):
        bonus = config["gin_bonus"] if ending == "gin" else config["big_gin_bonus"]
        assert (mine, laid_off, kept) == (0, [], 10 if ending == "gin" else 11)
        assert (record["winner"], record["points"]) == (record["knocker"], bonus + theirs)
    elif ending == "undercut":
        assert theirs <= mine
        assert record["winner"] == defender["seat"]
        assert record["points"] == config["undercut_bonus"] + mine - theirs
    else:
        assert theirs > mine
        assert kept == 10
        assert (record["winner"], record["points"]) == (record["knocker"], theirs - mine)


def expected_result(match: GinRummy) -> list[int]:
    """Final totals recomputed from the hand records and the rules of 000 and 004."""
    view = match.view(None)
    config, history = view["config"], match.hand_results()
    points = [sum(r["points"] for r in history if r["winner"] in side) for side in view["sides"]]
    reached = points.index(max(points))
    totals = []
    for index, side in enumerate(view["sides"]):
        won = sum(1 for r in history if r["winner"] in side)
        total = points[index] + config["line_bonus"] * won
        if index == reached:
            assert points[index] >= config["target"]
            total += config["game_bonus"]
            if all(r["winner"] in side for r in history):
                total += {"double": points[index], "plus_100": 100, "none": 0}[config["shutout"]]
        totals.append(total)
    return totals


def play_match(
    players: int, seed: int, config: dict[str, Any], check_views: bool
) -> tuple[GinRummy, Log]:
    rng = random.Random(seed)
    match = GinRummy.new(config, players, seed=seed)
    log: Log = []
    while not match.is_over():
        actor, action = seeded_move(match, rng)
        match.apply(actor, action)
        log.append((actor, action))
        assert_cards_accounted_for(match)
        if check_views:
            for seat in [None, *range(players)]:
                assert_no_leak(match, seat)
            assert_views_rebuilt_and_shared(match)
    return match, log


CONFIGS = [
    {},
    {"shutout": "plus_100", "target": 60, "oklahoma": True},
    {"big_gin_bonus": 0, "gin_bonus": 10, "knock_limit": 7, "shutout": "none"},
]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_matches_keep_every_rule(players: int, seed: int) -> None:
    config = CONFIGS[seed % len(CONFIGS)]
    match, log = play_match(players, seed, config, check_views=seed != 3)
    history = match.hand_results()
    assert history
    for record in history:
        assert_hand_record_follows_the_rules(record, match.view(None)["config"])
    scores = match.view(None)["scores"]
    assert scores == [sum(r["points"] for r in history if r["winner"] == s) for s in range(players)]
    result = match.result()
    assert result is not None
    assert result["totals"] == expected_result(match)
    assert result["winner_side"] == result["totals"].index(max(result["totals"]))

    halfway = len(log) // 2
    replayed, _ = replay(players, seed, config, log[:halfway])
    restored = GinRummy.from_json(json.loads(json.dumps(replayed.to_json())))
    for actor, action in log[halfway:]:
        restored.apply(actor, action)
    assert restored.to_json() == match.to_json()
    assert restored.result() == result


def replay(players: int, seed: int, config: dict[str, Any], log: Log) -> tuple[GinRummy, Log]:
    match = GinRummy.new(config, players, seed=seed)
    for actor, action in log:
        match.apply(actor, action)
    return match, log
