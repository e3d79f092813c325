"""Seeded random full games: tiles kept, tables valid, scores by the rules, no leaks, replay."""

from __future__ import annotations

import json
import random
from itertools import combinations
from typing import Any

import pytest

from app.bots.rummikub.basic import BasicRummikubBot
from app.games.rummikub import ALL_TILES, IllegalAction, Rummikub, is_valid_meld, rack_value
from tests.games.views import parts_of, shared_parts

MAX_ACTIONS = 4000


def strings_in(value: Any) -> set[str]:
    """Every string anywhere in a JSON value, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(strings_in(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(strings_in(item) for item in value))
    return set()


def random_step(engine: Rummikub, seat: int, rng: random.Random) -> dict[str, Any]:
    """A random edit of the table in progress, legal or not."""
    view = engine.view(seat)
    shown = view["tentative"]["table"] if view["tentative"] else view["table"]
    melds = [meld["tiles"] for meld in shown]
    kind = rng.choice(["move", "move", "split", "merge", "return", "reset", "declare"])
    anywhere = view["rack"] + [tile for meld in melds for tile in meld]
    target: Any = rng.choice(["new", *range(len(melds))])
    if kind == "move" and anywhere:
        return {"type": "move", "tile": rng.choice(anywhere), "to": target}
    if kind == "split" and melds:
        index = rng.randrange(len(melds))
        return {"type": "split", "meld": index, "at": rng.randrange(1, len(melds[index]) + 1)}
    if kind == "merge" and len(melds) > 1:
        index, into = rng.sample(range(len(melds)), 2)
        return {"type": "merge", "meld": index, "into": into}
    if kind == "return" and view["tentative"] and view["tentative"]["laid"]:
        return {"type": "return", "tile": rng.choice(view["tentative"]["laid"])}
    if kind == "declare":
        return {
            "type": "declare",
            "joker": rng.choice(["J1", "J2"]),
            "as": f"R{rng.randint(1, 13)}",
        }
    return {"type": "reset"}


def as_steps(committed: list[list[str]], target: list[list[str]]) -> list[dict[str, Any]]:
    """The moves that turn the table into a bot's play (extensions at the ends, new melds)."""
    steps: list[dict[str, Any]] = []
    for index, meld in enumerate(target):
        if index < len(committed):
            old = committed[index]
            start = next(at for at in range(len(meld)) if meld[at : at + len(old)] == old)
            for pos, tile in enumerate(meld[start + len(old) :], start=len(old)):
                steps.append({"type": "move", "tile": tile, "to": index, "pos": pos})
            for tile in reversed(meld[:start]):
                steps.append({"type": "move", "tile": tile, "to": index, "pos": 0})
            continue
        steps.append({"type": "move", "tile": meld[0], "to": "new"})
        for pos, tile in enumerate(meld[1:], start=1):
            steps.append({"type": "move", "tile": tile, "to": index, "pos": pos})
    return [*steps, {"type": "end_turn"}]


def check_invariants(engine: Rummikub) -> None:
    seats = range(engine.players)
    spectator = engine.view(None)
    committed = [meld["tiles"] for meld in spectator["table"]]
    assert all(meld["valid"] for meld in spectator["table"])
    assert all(is_valid_meld(meld) for meld in committed)
    shown = spectator["tentative"]["table"] if spectator["tentative"] else spectator["table"]
    on_table = [tile for meld in shown for tile in meld["tiles"]]
    if engine.phase == "playing":
        racks = [engine.view(seat)["rack"] for seat in seats]
        everything = on_table + [tile for rack in racks for tile in rack]
        assert len(everything) == len(set(everything))
        assert len(everything) + spectator["pool_size"] == len(ALL_TILES)
        assert [len(rack) for rack in racks] == [s["rack_size"] for s in spectator["seats"]]
    for seat in [*seats, None]:
        view = engine.view(seat)
        leaked = strings_in(view) & engine.hidden_from(seat)
        assert not leaked, f"view of seat {seat} shows hidden tiles {sorted(leaked)}"
        json.dumps(view)
        if seat is not None:
            named = strings_in(engine.legal_actions(seat)) & engine.hidden_from(seat)
            assert not named, f"legal actions of seat {seat} name hidden tiles {sorted(named)}"
    check_views_rebuilt_and_shared(engine)


def check_views_rebuilt_and_shared(engine: Rummikub) -> None:
    """Views kept between calls are those of the state rebuilt from scratch, and what two
    viewers' views share shows nothing hidden from either of them."""
    viewers = [*range(engine.players), None]
    views = {viewer: engine.view(viewer) for viewer in viewers}
    rebuilt = Rummikub.from_json(engine.to_json())
    for viewer in viewers:
        assert views[viewer] == rebuilt.view(viewer)
    parts = {viewer: parts_of(views[viewer]) for viewer in viewers}
    for first, second in combinations(viewers, 2):
        hidden = engine.hidden_from(first) | engine.hidden_from(second)
        for part in shared_parts(parts[first], parts[second]):
            assert not strings_in(part) & hidden, f"seats {first} and {second} share {part}"


def check_round_scores(record: dict[str, Any], players: int) -> None:
    values = record["rack_values"]
    winner = record["winner"]
    assert values == [rack_value(rack) for rack in record["racks"]]
    for seat in range(players):
        if seat != winner:
            assert record["points"][seat] == -values[seat]
    if record["reason"] == "empty_rack":
        assert values[winner] == 0
        assert record["points"][winner] == sum(values)
    else:
        assert values[winner] == min(values)
        assert record["points"][winner] == sum(value - values[winner] for value in values)


def play_out(
    engine: Rummikub, seed: int, log: list[tuple[int | None, dict[str, Any]]]
) -> dict[str, Any] | None:
    """Play to the end with bots and random steps; returns a mid-game snapshot."""
    rng = random.Random(seed)
    bots = [BasicRummikubBot(seed * 7 + seat) for seat in range(engine.players)]
    snapshot = None
    queued: list[dict[str, Any]] = []
    for count in range(MAX_ACTIONS):
        if engine.is_over():
            return snapshot
        if count == 40:
            snapshot = json.loads(json.dumps(engine.to_json()))
            log.append((-1, {}))  # marks where the snapshot was taken
        scripted = False
        if engine.phase == "round_over":
            action, seat = {"type": "next_round"}, None
        elif engine.config["turn_timer_s"] and rng.random() < 0.03:
            action, seat, queued = {"type": "timeout"}, None, []
        elif queued:
            action, seat = queued.pop(0), engine.to_act()[0]
            scripted = True
        else:
            seat = engine.to_act()[0]
            legal = engine.legal_actions(seat)
            if {"type": "end_turn"} in legal and rng.random() < 0.5:
                action = {"type": "end_turn"}
            elif rng.random() < 0.3:
                action = random_step(engine, seat, rng)
            else:
                view = engine.view(seat)
                action = bots[seat].choose(view, legal)
                if action["type"] == "play" and rng.random() < 0.5:
                    # Lay the same play step by step from a clean table in progress.
                    committed = [meld["tiles"] for meld in view["table"]]
                    queued = as_steps(committed, action["table"])
                    action = {"type": "reset"}
        before = json.dumps(engine.to_json())
        try:
            engine.apply(seat, action)
        except IllegalAction:
            assert json.dumps(engine.to_json()) == before, f"refused {action} changed the state"
            assert not scripted, f"a step of a legal play was refused: {action}"
            continue
        log.append((seat, action))
        if engine.phase != "playing":
            check_round_scores(engine.hand_results()[-1], engine.players)
        check_invariants(engine)
    raise AssertionError(f"no end after {MAX_ACTIONS} actions")


SHORT = {"rounds": 2, "tiles_per_player": 7, "initial_meld_points": 10}
# Seeds chosen so that each player count also sees a round won by emptying a rack.
CASES = [
    case
    for players, short_seed in ((2, 1), (3, 2), (4, 9))
    for case in (
        (players, 1, {}),
        (players, 2, {"rounds": 2, "turn_timer_s": 60}),
        (players, short_seed, SHORT),
    )
]


@pytest.mark.parametrize(("players", "seed", "config"), CASES)
def test_a_seeded_random_game_keeps_every_rule_and_replays_exactly(
    players: int, seed: int, config: dict[str, int]
) -> None:
    engine = Rummikub.new(config, players, seed=seed)
    check_invariants(engine)
    log: list[tuple[int | None, dict[str, Any]]] = []
    snapshot = play_out(engine, seed, log)
    final = engine.to_json()
    results = engine.hand_results()
    totals = [sum(record["points"][seat] for record in results) for seat in range(players)]
    assert engine.result()["scores"] == totals
    assert max(totals) == engine.result()["scores"][engine.result()["winners"][0]]

    replayed = Rummikub.new(config, players, seed=seed)
    resumed = Rummikub.from_json(snapshot) if snapshot is not None else None
    marked = False
    for seat, action in log:
        if seat == -1:
            marked = True
            continue
        replayed.apply(seat, action)
        if marked and resumed is not None:
            resumed.apply(seat, action)
    assert replayed.to_json() == final
    assert resumed is None or resumed.to_json() == final
