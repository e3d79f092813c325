"""What the hard Gin Rummy bot learns of its opponent, and its guesses at the opponent's hand."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from app.bots.gin_rummy.memory import SeatMemory
from app.bots.gin_rummy.opponent import OpponentModel, completes, sample_hands
from app.games.gin_rummy.cards import CARD_INDEX
from tests.bots.test_strong_bots import gin_view

HAND = ["H1", "H2", "H3", "C4", "C5", "C6", "D2", "S2", "C2", "S10"]


def hands(*names: str) -> Any:
    return np.array([sum(1 << CARD_INDEX[c] for c in hand.split()) for hand in names], np.uint64)


def test_a_card_completes_a_meld_with_two_of_its_rank_or_two_that_run_with_it() -> None:
    guesses = hands("H4 H5 C9", "H5 H7 C9", "H7 H8 C9", "S6 D6 C9", "S6 C9 C10", "H4 H7 S6")
    assert completes(guesses, CARD_INDEX["H6"]).tolist() == [True, True, True, True, False, False]


def chance_of_taking(memory: SeatMemory, model: OpponentModel, view: Any, card: str) -> float:
    seen = memory.update(view)
    assert seen is not None
    guesses, weights = sample_hands(seen[0], seen[1], model, 2000, random.Random(3))
    return float(weights @ completes(guesses, CARD_INDEX[card]))


def test_guesses_keep_the_cards_the_opponent_took_and_their_weights_sum_to_one() -> None:
    memory = SeatMemory()
    seen = memory.update(gin_view(HAND, ["D13", "S12"], ["D10", "H10"], "draw"))
    assert seen is not None
    guesses, weights = sample_hands(seen[0], seen[1], OpponentModel(), 64, random.Random(1))
    taken = (1 << CARD_INDEX["D10"]) | (1 << CARD_INDEX["H10"])
    assert all(int(g) & taken == taken for g in guesses)
    assert all(int(g).bit_count() == 10 for g in guesses)
    assert abs(float(weights.sum()) - 1) < 1e-9
    # Holding two tens, the opponent surely takes the third.
    assert chance_of_taking(
        SeatMemory(), OpponentModel(), gin_view(HAND, ["D13"], ["D10", "H10"], "draw"), "S10"
    ) == pytest.approx(1.0)


def test_a_card_passed_over_makes_its_partners_unlikely_the_more_the_model_trusts_it() -> None:
    # The opponent left S7 on the pile: it holds no two cards that make a meld with S7, so
    # it is less likely to hold both D7 and C7, which the seat's H7 would complete.
    view = gin_view([*HAND[:9], "H7"], ["S13", "S7", "D12"], [], "draw")
    blank = chance_of_taking(
        SeatMemory(), OpponentModel(), gin_view([*HAND[:9], "H7"], ["S13", "D12"], [], "draw"), "H7"
    )
    trusting = OpponentModel()
    trusting.habits["keeps"].seen(True, 50)
    doubting = OpponentModel()
    doubting.habits["keeps"].seen(False, 50)
    trusted = chance_of_taking(SeatMemory(), trusting, view, "H7")
    doubted = chance_of_taking(SeatMemory(), doubting, view, "H7")
    assert trusted < doubted
    assert trusted < blank


def history_view(records: list[dict[str, Any]]) -> dict[str, Any]:
    view = gin_view(HAND, ["S3"], [], "draw")
    view["history"] = records
    view["config"] = {"knock_limit": 10}
    return view


def test_the_model_learns_how_soon_the_opponent_knocks_from_its_knocks_and_gins() -> None:
    early, patient = OpponentModel(), OpponentModel()
    before = early.trust("eager")
    knocks = [
        {"hand": n, "table": 0, "ending": "knock", "knocker": 1, "winner": 1, "points": 12}
        for n in range(1, 6)
    ]
    gins = [
        {"hand": n, "table": 0, "ending": "gin", "knocker": 1, "winner": 1, "points": 50}
        for n in range(1, 6)
    ]
    for n in range(1, 6):
        # The seat held 20 points of deadwood: a knock scoring 12 was made with 8.
        early.new_hand(history_view(knocks[:n]), 0, (n, 0), 20)
        patient.new_hand(history_view(gins[:n]), 0, (n, 0), 20)
    assert early.trust("eager") > before > patient.trust("eager")


def test_the_model_learns_whether_the_opponent_keeps_what_it_picks_up() -> None:
    memory, model = SeatMemory(), OpponentModel()
    before = model.trust("keeps")
    seen = memory.update(gin_view(HAND, ["S3", "D12"], ["C9"], "draw"))
    assert seen is not None
    model.watch(*seen)
    seen = memory.update(gin_view(HAND, ["S3", "D12", "C9"], [], "draw"))
    assert seen is not None
    model.watch(*seen)
    assert model.trust("keeps") < before


def test_the_model_learns_whether_the_opponent_throws_high_cards_first() -> None:
    high, low = OpponentModel(), OpponentModel()
    before = high.trust("high")
    for model, pile in ((high, ["S3", "D12", "C13", "H11"]), (low, ["S3", "D1", "C2", "H3"])):
        memory = SeatMemory()
        memory.update(gin_view(HAND, pile[:1], [], "upcard_offer"))
        seen = memory.update(gin_view(HAND, pile, [], "draw"))
        assert seen is not None
        model.watch(*seen)
    assert high.trust("high") > before > low.trust("high")
