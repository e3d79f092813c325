"""The baseline Gin Rummy bot takes what helps, throws its worst card and knocks at once."""

from __future__ import annotations

import random

import pytest

from app.bots.gin_rummy.basic import BasicGinBot
from app.games.gin_rummy import GinRummy
from tests.games.gin_rummy.deals import rigged, seats

RUNS = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
LOOSE = "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13"


def choice(match: GinRummy, seat: int) -> dict[str, object]:
    return BasicGinBot(seed=1).choose(match.view(seat), match.legal_actions(seat))


def test_it_takes_the_upcard_when_that_lowers_its_deadwood() -> None:
    match = rigged(RUNS, LOOSE, "D10")
    first, _ = seats(match)
    assert choice(match, first) == {"type": "take_upcard"}


def test_it_passes_an_upcard_that_does_not_help() -> None:
    match = rigged(RUNS, LOOSE, "H12")
    first, _ = seats(match)
    assert choice(match, first) == {"type": "pass"}


def after_dealer_discards(card: str) -> tuple[GinRummy, int]:
    """The dealer takes the upcard H12 and throws `card`; the non-dealer is to draw."""
    match = rigged(RUNS, LOOSE, "H12")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "take_upcard"})
    match.apply(second, {"type": "discard", "card": card})
    return match, first


def test_it_draws_from_the_stock_when_the_discard_does_not_help() -> None:
    match, first = after_dealer_discards("H11")
    assert choice(match, first) == {"type": "draw", "source": "stock"}


def test_it_takes_a_discard_that_lowers_its_deadwood() -> None:
    match, first = after_dealer_discards("C1")
    assert choice(match, first) == {"type": "draw", "source": "discard"}


def test_it_takes_a_discard_that_completes_a_meld() -> None:
    match, first = after_dealer_discards("D6")
    assert choice(match, first) == {"type": "draw", "source": "discard"}


def test_it_discards_its_worst_deadwood_card() -> None:
    match = rigged("H1 H2 H3 S4 S5 S6 D7 D8 C2 C13", LOOSE, "H12")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert choice(match, first) == {"type": "discard", "card": "C13"}


def test_it_knocks_whenever_it_may() -> None:
    match = rigged(RUNS, LOOSE, "C2")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert choice(match, first) == {"type": "knock", "card": "C13"}


def test_it_goes_gin_rather_than_knock() -> None:
    match = rigged(RUNS, LOOSE, "D10")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert choice(match, first) == {"type": "gin", "card": "C13"}


def test_it_goes_big_gin_when_all_eleven_cards_meld() -> None:
    match = rigged("H1 H2 H3 S4 S5 S6 D7 D8 D9 D10", LOOSE, "D11")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert choice(match, first) == {"type": "big_gin"}


def play(players: int, seed: int, bots: dict[int, BasicGinBot | None]) -> GinRummy:
    """A whole match; seats without a bot play uniformly random legal actions."""
    rng = random.Random(seed)
    match = GinRummy.new({}, players, seed=seed)
    while not match.is_over():
        if match.phase == "hand_over":
            match.apply(None, {"type": "next_hand"})
            continue
        seat = rng.choice(match.to_act())
        legal = match.legal_actions(seat)
        bot = bots.get(seat)
        action = bot.choose(match.view(seat), legal) if bot else rng.choice(legal)
        assert action in legal
        match.apply(seat, action)
    return match


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_finish_whole_matches_with_legal_actions_only(players: int) -> None:
    match = play(players, 5, {seat: BasicGinBot(seed=seat) for seat in range(players)})
    assert match.result() is not None


def test_it_beats_a_random_player_nearly_always() -> None:
    wins = sum(
        play(2, seed, {0: BasicGinBot(seed=seed), 1: None}).result()["winner_side"] == 0  # type: ignore[index]
        for seed in range(10)
    )
    assert wins >= 9
