"""The strong Gin Rummy bot, the solver Rummikub bot and hints, through engines and views."""

from __future__ import annotations

from typing import Any

import pytest

from app.bots.gin_rummy.basic import BasicGinBot
from app.bots.gin_rummy.memory import SeatMemory
from app.bots.gin_rummy.strong import StrongGinBot
from app.bots.hints import NoHint, hint
from app.bots.rummikub.basic import BasicRummikubBot
from app.bots.rummikub.strong import SolverRummikubBot
from app.games.gin_rummy import GinRummy
from app.games.gin_rummy.cards import CARD_INDEX
from app.games.rummikub import Rummikub, check_play


def play_out(game: Any, bots: list[Any], max_steps: int = 20_000) -> int:
    """Plays a match to its end; every bot action must be one the engine accepts."""
    steps = 0
    while not game.is_over() and steps < max_steps:
        steps += 1
        seats = game.to_act()
        if not seats:
            game.apply(None, game.legal_actions(None)[0])
            continue
        for seat in seats:
            legal = game.legal_actions(seat)
            action = bots[seat].choose(game.view(seat), legal)
            if action["type"] != "play":
                assert action in legal
            game.apply(seat, action)  # raises IllegalAction on an illegal move
    assert game.is_over(), "the match did not finish"
    return steps


@pytest.mark.parametrize("seed", range(3))
def test_the_hard_gin_bot_plays_legal_moves_through_whole_matches(seed: int) -> None:
    bots = [StrongGinBot(seed, "hard"), BasicGinBot(seed)]
    play_out(GinRummy.new({}, 2, seed=seed), bots if seed % 2 else bots[::-1])


def test_normal_and_hard_gin_bots_finish_a_four_player_match() -> None:
    bots = [StrongGinBot(1, "hard"), StrongGinBot(2, "normal")] * 2
    play_out(GinRummy.new({"target": 50}, 4, seed=11), bots)


def test_a_gin_bot_created_fresh_for_every_decision_still_plays_legally() -> None:
    game = GinRummy.new({"target": 50}, 3, seed=5)
    steps = 0
    while not game.is_over() and steps < 5_000:
        steps += 1
        seats = game.to_act()
        if not seats:
            game.apply(None, game.legal_actions(None)[0])
            continue
        seat = seats[0]
        action = StrongGinBot(steps, "hard").choose(game.view(seat), game.legal_actions(seat))
        game.apply(seat, action)
    assert game.is_over()


def gin_view(hand: list[str], pile: list[str], taken: list[str], phase: str) -> dict[str, Any]:
    """A two-player view in the engine's shape, seat 0 to act at table 0."""
    players = [
        {"seat": 0, "card_count": len(hand), "taken_from_discard": [], "cards": hand},
        {"seat": 1, "card_count": 10, "taken_from_discard": taken, "cards": None},
    ]
    table = {
        "table": 0,
        "hand": 1,
        "seats": [0, 1],
        "phase": phase,
        "stock_count": 20,
        "discard_pile": pile,
        "knock_limit": 10,
        "players": players,
    }
    me = {"seat": 0, "table": 0, "hand": hand}
    return {"hand_number": 1, "tables": [table], "me": me}


def discards(hand: list[str]) -> list[dict[str, Any]]:
    return [{"type": "discard", "card": card} for card in hand]


def test_the_gin_bot_takes_a_discard_that_completes_a_run() -> None:
    hand = ["H4", "H5", "C1", "D1", "S2", "C9", "D12", "S13", "H11", "C10"]
    view = gin_view(hand, ["S3", "H6"], [], "draw")
    legal = [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    for level in ("normal", "hard"):
        assert StrongGinBot(0, level).choose(view, legal) == legal[1]


def test_the_gin_bot_draws_from_the_stock_when_the_top_card_is_useless() -> None:
    hand = ["H4", "H5", "H6", "C1", "D1", "S1", "S2", "S3", "C2", "D3"]
    view = gin_view(hand, ["S3", "C13"], [], "draw")
    legal = [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    assert StrongGinBot(0, "hard").choose(view, legal) == legal[0]


def test_the_gin_bot_keeps_a_pair_and_throws_a_lone_high_card() -> None:
    hand = ["H4", "H5", "H6", "C1", "D1", "S1", "S7", "S8", "C2", "D3", "C13"]
    view = gin_view(hand, ["S3"], [], "discard")
    assert StrongGinBot(0, "hard").choose(view, discards(hand)) == {
        "type": "discard",
        "card": "C13",
    }


def test_the_hard_gin_bot_will_not_feed_a_set_the_opponent_is_known_to_hold() -> None:
    # S10 is our worst loose card, but the opponent took D10 and H10 from the pile.
    hand = ["H1", "H2", "H3", "C4", "C5", "C6", "D2", "S2", "C2", "S10", "C9"]
    legal = discards(hand)
    unknown = gin_view(hand, ["D13", "S12"], [], "discard")
    known = gin_view(hand, ["D13", "S12"], ["D10", "H10"], "discard")
    assert StrongGinBot(0, "normal").choose(known, legal)["card"] == "S10"
    assert StrongGinBot(0, "hard").choose(unknown, legal)["card"] == "S10"
    assert StrongGinBot(0, "hard").choose(known, legal)["card"] == "C9"


def test_the_gin_bot_goes_gin_whenever_it_can() -> None:
    hand = ["H1", "H2", "H3", "C4", "C5", "C6", "D2", "S2", "C2", "S9", "D9"]
    view = gin_view(hand, ["S3"], [], "discard")
    legal = [*discards(hand), {"type": "gin", "card": "S9"}, {"type": "knock", "card": "S9"}]
    assert StrongGinBot(0, "hard").choose(view, legal) == {"type": "gin", "card": "S9"}


def test_the_hard_gin_bot_plays_on_for_gin_with_little_deadwood_and_a_long_stock() -> None:
    hand = ["H1", "H2", "H3", "C4", "C5", "C6", "D7", "S7", "C7", "S2", "D13"]
    legal = [*discards(hand), {"type": "knock", "card": "D13"}]
    view = gin_view(hand, ["S3"], [], "discard")
    assert StrongGinBot(0, "normal").choose(view, legal) == {"type": "knock", "card": "D13"}
    assert StrongGinBot(0, "hard").choose(view, legal) == {"type": "discard", "card": "D13"}
    view["tables"][0]["stock_count"] = 5
    assert StrongGinBot(0, "hard").choose(view, legal) == {"type": "knock", "card": "D13"}


def test_memory_sees_a_card_the_opponent_left_on_the_pile() -> None:
    memory = SeatMemory()
    hand = ["H4", "H5", "C1", "D1", "S2", "C9", "D12", "S13", "H11", "C10", "H13"]
    first = memory.update(gin_view(hand, ["S3"], [], "discard"))
    assert first is not None
    first[0].record_discard(CARD_INDEX["H13"])
    after = memory.update(gin_view(hand[:10], ["S3", "H13", "C7"], [], "draw"))
    assert after is not None
    assert CARD_INDEX["H13"] in after[0].refused  # left on the pile: passed over
    assert CARD_INDEX["C7"] in after[0].refused  # the opponent's discard
    assert CARD_INDEX["S2"] not in after[0].refused


@pytest.mark.parametrize(("players", "level"), [(2, "hard"), (3, "normal"), (4, "hard")])
def test_the_solver_bot_plays_legal_turns_through_whole_rounds(players: int, level: str) -> None:
    game = Rummikub.new({}, players, seed=players)
    bots: list[Any] = [SolverRummikubBot(players, level)]  # type: ignore[arg-type]
    bots += [BasicRummikubBot(seat) for seat in range(1, players)]
    play_out(game, bots)


def rummikub_view(rack: list[str], table: list[list[str]], melded: bool) -> dict[str, Any]:
    seats = [
        {"seat": 0, "rack_size": len(rack), "initial_meld_done": melded, "score": 0},
        {"seat": 1, "rack_size": 9, "initial_meld_done": True, "score": 0},
    ]
    return {
        "seat": 0,
        "rack": rack,
        "table": [{"tiles": meld, "declared": {}} for meld in table],
        "seats": seats,
        "config": {"initial_meld_points": 30},
        "pool_size": 40,
        "tentative": None,
    }


RUMMIKUB_LEGAL = [{"type": "play", "table": [], "jokers": {}}, {"type": "draw"}]


def test_the_hard_rummikub_bot_rearranges_the_table_to_go_out() -> None:
    table = [[f"R{n}a" for n in range(1, 8)]]
    view = rummikub_view(["K4a", "B4a"], table, melded=True)
    action = SolverRummikubBot(0, "hard").choose(view, RUMMIKUB_LEGAL)
    assert action["type"] == "play"
    assert sorted(check_play(table, action["table"], ["K4a", "B4a"], True)) == ["B4a", "K4a"]


def test_the_normal_rummikub_bot_sees_the_rearrangement_only_on_some_turns() -> None:
    table = [[f"R{n}a" for n in range(1, 8)]]
    view = rummikub_view(["K4a", "B4a"], table, melded=True)
    actions = [SolverRummikubBot(seed, "normal").choose(view, RUMMIKUB_LEGAL) for seed in range(60)]
    played = [action for action in actions if action["type"] == "play"]
    assert 0 < len(played) < len(actions)
    for action in played:
        assert sorted(check_play(table, action["table"], ["K4a", "B4a"], True)) == ["B4a", "K4a"]


def test_the_normal_rummikub_bot_leaves_the_melds_it_does_not_look_at_whole() -> None:
    table = [["R1a", "R2a", "R3a"], ["B5a", "B6a", "B7a"], ["K9a", "Y9a", "R9a"]]
    rack = ["R4a", "B8a", "B9a"]
    for seed in range(40):
        bot = SolverRummikubBot(seed, "normal")
        solution = bot.best_play(rummikub_view(rack, table, melded=True))
        changed = [meld for meld in table if meld not in solution.table]
        # Each laid tile changes at most the one meld it joins; nothing else moves.
        assert len(changed) <= len(solution.placed)
        assert solution.kept == len(table) - len(changed)


def test_the_hard_rummikub_bot_holds_its_joker_when_it_can_play_without_it() -> None:
    rack = ["Y7a", "Y8a", "Y9a", "J1", "B2a", "K11a"]
    view = rummikub_view(rack, [["R1a", "R2a", "R3a"]], melded=True)
    action = SolverRummikubBot(0, "hard").choose(view, RUMMIKUB_LEGAL)
    laid = {t for meld in action["table"] for t in meld}
    assert {"Y7a", "Y8a", "Y9a"} <= laid
    assert "J1" not in laid


def test_before_its_initial_meld_the_bot_draws_below_thirty_points() -> None:
    view = rummikub_view(["R1a", "R2a", "R3a", "B9a"], [], melded=False)
    assert SolverRummikubBot(0, "hard").choose(view, RUMMIKUB_LEGAL) == {"type": "draw"}


def test_a_rummikub_hint_is_the_best_play_without_holding_back() -> None:
    rack = ["Y7a", "Y8a", "Y9a", "J1", "B2a", "K11a"]
    view = rummikub_view(rack, [["R1a", "R2a", "R3a"]], melded=True)
    action = hint("rummikub", view, RUMMIKUB_LEGAL)
    laid = {t for meld in action["table"] for t in meld}
    assert {"Y7a", "Y8a", "Y9a", "J1"} <= laid


def test_a_gin_hint_is_a_legal_action() -> None:
    game = GinRummy.new({}, 2, seed=9)
    seat = game.to_act()[0]
    legal = game.legal_actions(seat)
    assert hint("gin_rummy", game.view(seat), legal) in legal


def test_no_hint_for_an_unknown_game_or_a_seat_with_nothing_to_do() -> None:
    with pytest.raises(NoHint):
        hint("chess", {}, [{"type": "draw"}])
    with pytest.raises(NoHint):
        hint("gin_rummy", {}, [])
