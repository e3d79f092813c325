"""The simple player of the Gin Rummy competitions: it picks up only what completes a meld,
throws its highest loose card, knocks as soon as it may and never lays off."""

from __future__ import annotations

import pytest

from app.bots.gin_rummy.simple import SimpleGinBot
from app.bots.registry import make_bot
from app.games.gin_rummy import GinRummy
from tests.bots.test_strong_bots import discards, gin_view, play_out
from tests.games.gin_rummy.deals import knocked, rigged, seats

RUNS = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
LOOSE = "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13"


def choice(match: GinRummy, seat: int) -> dict[str, object]:
    return SimpleGinBot(seed=1).choose(match.view(seat), match.legal_actions(seat))


def test_it_takes_the_upcard_that_completes_a_meld() -> None:
    match = rigged(RUNS, LOOSE, "D10")  # D7 D8 D9 D10
    first, _ = seats(match)
    assert choice(match, first) == {"type": "take_upcard"}


def test_it_passes_an_upcard_that_only_lowers_its_deadwood() -> None:
    # C1 would replace C13 in the deadwood (a lower deadwood) but completes no meld.
    match = rigged(RUNS, LOOSE, "C2")
    first, _ = seats(match)
    assert choice(match, first) == {"type": "pass"}


def test_it_draws_from_the_stock_unless_the_top_completes_a_meld() -> None:
    hand = ["H4", "H5", "C1", "D1", "S2", "C9", "D12", "S13", "H11", "C10"]
    legal = [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]
    bot = SimpleGinBot(0)
    assert bot.choose(gin_view(hand, ["S3", "H6"], [], "draw"), legal) == legal[1]
    assert bot.choose(gin_view(hand, ["S3", "S12"], [], "draw"), legal) == legal[0]


def test_it_throws_its_highest_loose_card_even_from_a_pair() -> None:
    # S13 and D13 make a pair, but a pair is no meld: a king goes.
    hand = ["H4", "H5", "H6", "C1", "D1", "S1", "S13", "D13", "C2", "D3", "S9"]
    thrown = SimpleGinBot(0).choose(gin_view(hand, ["S3"], [], "discard"), discards(hand))
    assert thrown["card"] in ("S13", "D13")


def test_it_knocks_as_soon_as_it_may() -> None:
    hand = ["H1", "H2", "H3", "C4", "C5", "C6", "D2", "S2", "C2", "S9", "D7"]
    legal = [*discards(hand), {"type": "knock", "card": "S9"}, {"type": "knock", "card": "D7"}]
    action = SimpleGinBot(0).choose(gin_view(hand, ["S3"], [], "discard"), legal)
    assert action == {"type": "knock", "card": "S9"}


def knocked_against(defender: str) -> tuple[GinRummy, int]:
    """RUNS takes the upcard C2 and knocks with C13 (deadwood 2): (match, the defender)."""
    match, _, second = knocked(RUNS, defender, "C2")
    return match, second


def test_it_never_lays_off_while_the_other_bots_lay_off_their_best() -> None:
    # H4 H5 fit H1-H3, S3 fits S4-S6 and D10 fits D7-D9.
    match, defender = knocked_against("H4 H5 D10 S3 C7 C8 C9 S11 D12 C12")
    assert match.view(None)["tables"][0]["phase"] == "lay_off"
    legal = match.legal_actions(defender)
    assert choice(match, defender) == {"type": "lay_off", "layoffs": []}
    for level in ("easy", "normal", "hard"):
        bot = make_bot("gin_rummy", level, 3)
        assert bot.choose(match.view(defender), legal) == legal[0]
    assert len(legal[0]["layoffs"]) == 4  # type: ignore[arg-type]
    match.apply(defender, choice(match, defender))
    record = match.view(None)["tables"][0]["outcome"]
    assert record["players"][1 if record["players"][1]["seat"] == defender else 0]["layoffs"] == []


@pytest.mark.parametrize("players", [2, 3, 4])
def test_it_finishes_whole_matches_with_only_legal_actions(players: int) -> None:
    bots = [SimpleGinBot(seat) for seat in range(players)]
    play_out(GinRummy.new({"target": 60}, players, seed=players), bots)
