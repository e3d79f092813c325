"""Rule 8 of 000: after a knock the defender *may* lay off its loose cards onto the knocker's
melds. With lay_offs "choose" (the default) it chooses which; with "auto" the engine lays off
its best at once."""

from __future__ import annotations

from typing import Any

import pytest

from app.games.gin_rummy import GinRummy, IllegalAction
from tests.games.gin_rummy import deals
from tests.games.gin_rummy.deals import outcome, player_record, rigged, seats, table

KNOCKER = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
# Lays off D10 onto D7-D9, H4 H5 onto H1-H3 and S3 onto S4-S6 at best; melds C7-C9.
DEFENDER = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"


def knocked(
    defender: str = DEFENDER, upcard: str = "C2", **config: object
) -> tuple[GinRummy, int, int]:
    """KNOCKER takes the upcard and knocks with C13: (match, knocker, defender)."""
    return deals.knocked(KNOCKER, defender, upcard, **config)


def onto(match: GinRummy, card: str, *meld: str) -> dict[str, Any]:
    """A lay-off of `card` onto the knocker's meld of `meld`, by its index in the layout."""
    melds = [sorted(cards) for cards in table(match)["knock"]["melds"]]
    return {"card": card, "meld": melds.index(sorted(meld))}


def test_a_knock_waits_for_the_defender_with_the_knockers_cards_laid_open() -> None:
    match, knocker, defender = knocked()
    view = table(match)
    assert (view["phase"], view["turn"], match.to_act()) == ("lay_off", defender, [defender])
    assert view["outcome"] is None
    assert match.hand_results() == []
    assert view["knock"] == {
        "seat": knocker,
        "melds": [["D7", "D8", "D9"], ["H1", "H2", "H3"], ["S4", "S5", "S6"]],
        "deadwood": ["C2"],
        "deadwood_points": 2,
    }
    by_seat = {player["seat"]: player["cards"] for player in view["players"]}
    assert sorted(by_seat[knocker]) == sorted([*KNOCKER.split()[:9], "C2"])
    assert by_seat[defender] is None
    # The defender's cards stay hidden from the knocker and from spectators until it answers;
    # the knock card stays face down.
    for viewer in (knocker, None):
        assert set(DEFENDER.split()) <= match.hidden_at(viewer, 0)
    assert "C13" in match.hidden_at(None, 0)
    assert "C13" not in match.hidden_at(knocker, 0)
    assert not set(KNOCKER.split()[:9]) & match.hidden_at(defender, 0)
    assert "C13" in match.hidden_at(defender, 0)
    assert match.legal_actions(knocker) == []
    best, nothing = match.legal_actions(defender)
    assert best == {
        "type": "lay_off",
        "layoffs": [
            onto(match, "D10", "D7", "D8", "D9"),
            onto(match, "H4", "H1", "H2", "H3"),
            onto(match, "H5", "H1", "H2", "H3"),
            onto(match, "S3", "S4", "S5", "S6"),
        ],
    }
    assert nothing == {"type": "lay_off", "layoffs": []}


@pytest.mark.parametrize(
    ("layoffs", "laid_off", "defender_points"),
    [
        (None, ["D10", "H4", "H5", "S3"], 30),
        ([], [], 52),
        ([("S3", "S4 S5 S6")], ["S3"], 49),
        ([("H4", "H1 H2 H3"), ("H5", "H1 H2 H3")], ["H4", "H5"], 43),
    ],
)
def test_the_defender_lays_off_what_it_chooses(
    layoffs: list[tuple[str, str]] | None, laid_off: list[str], defender_points: int
) -> None:
    match, knocker, defender = knocked()
    action: dict[str, Any] = {"type": "lay_off"}
    if layoffs is not None:
        action["layoffs"] = [onto(match, card, *meld.split()) for card, meld in layoffs]
    match.apply(defender, action)
    record = outcome(match)
    answer = player_record(record, defender)
    assert [entry["card"] for entry in answer["layoffs"]] == laid_off
    assert answer["melds"] == [["C7", "C8", "C9"]]
    assert answer["deadwood_points"] == defender_points
    assert (record["ending"], record["winner"]) == ("knock", knocker)
    assert record["points"] == defender_points - 2
    assert table(match)["phase"] == "over"
    assert table(match)["knock"] is None
    assert match.phase == "hand_over"
    assert set(DEFENDER.split()).isdisjoint(match.hidden_at(knocker, 0))


def test_lay_offs_decide_an_undercut() -> None:
    # The knocker keeps C9 (9 points); the defender holds 15 loose points, 6 after laying
    # off H4 and S3 then S2.
    defender = "H4 S3 S2 C5 C6 C7 D11 D12 D13 H6"
    match, knocker, seat = knocked(defender, upcard="C9")
    match.apply(seat, {"type": "lay_off"})
    record = outcome(match)
    assert (record["ending"], record["winner"], record["points"]) == ("undercut", seat, 25 + 3)

    match, knocker, seat = knocked(defender, upcard="C9")
    match.apply(seat, {"type": "lay_off", "layoffs": []})
    record = outcome(match)
    assert (record["ending"], record["winner"], record["points"]) == ("knock", knocker, 15 - 9)


@pytest.mark.parametrize(
    ("layoffs", "message"),
    [
        ("H4", "layoffs must be a list of {card, meld}"),
        (["H4"], "each lay-off is an object {card, meld}"),
        ([{"card": "H4"}], "each lay-off is an object {card, meld}"),
        ([{"card": "H4", "meld": 1, "x": 0}], "each lay-off is an object {card, meld}"),
        ([{"card": "H4", "meld": True}], "meld must be an integer, got True"),
        ([{"card": "H4", "meld": "1"}], "meld must be an integer, got '1'"),
        ([{"card": "Z9", "meld": 1}], None),
        ([{"card": "H6", "meld": 1}], "H6 is not in your hand"),
        ([{"card": "H4", "meld": 3}], "the knocker has no meld 3"),
        ([{"card": "H4", "meld": -1}], "the knocker has no meld -1"),
        ([{"card": "H4", "meld": 1}, {"card": "H4", "meld": 1}], "H4 is laid off twice"),
        ([{"card": "H4", "meld": 0}], "H4 cannot be laid off onto D7 D8 D9"),
        ([{"card": "C12", "meld": 2}], "C12 cannot be laid off onto S4 S5 S6"),
        # Along a run a card fits only after the cards between it and the meld.
        ([{"card": "H5", "meld": 1}], "H5 cannot be laid off onto H1 H2 H3"),
    ],
)
def test_lay_offs_that_do_not_fit_are_refused_and_change_nothing(
    layoffs: object, message: str | None
) -> None:
    match, _, defender = knocked()
    before = match.to_json()
    with pytest.raises(IllegalAction) as caught:
        match.apply(defender, {"type": "lay_off", "layoffs": layoffs})
    assert caught.value.code == "invalid_layoff"
    if message is not None:
        assert caught.value.message == message
    assert match.to_json() == before


def test_only_the_defender_answers_and_only_with_lay_off() -> None:
    match, knocker, defender = knocked()
    before = match.to_json()
    with pytest.raises(IllegalAction) as caught:
        match.apply(knocker, {"type": "lay_off"})
    assert caught.value.code == "not_your_turn"
    for action in ({"type": "discard", "card": "H4"}, {"type": "draw", "source": "stock"}):
        with pytest.raises(IllegalAction) as caught:
            match.apply(defender, action)
        assert caught.value.code == "wrong_phase"
    with pytest.raises(IllegalAction) as caught:
        match.apply(None, {"type": "next_hand"})
    assert caught.value.code == "wrong_phase"
    with pytest.raises(IllegalAction) as caught:
        match.apply(defender, {"type": "lay_off", "melds": []})
    assert caught.value.code == "bad_action"
    assert match.to_json() == before


def test_no_lay_off_turn_when_nothing_would_lower_the_defenders_deadwood() -> None:
    match, _, defender = knocked("C7 C8 C9 S11 D12 C12 H10 S10 C10 C1")
    record = outcome(match)
    assert record is not None
    assert player_record(record, defender)["layoffs"] == []
    assert table(match)["phase"] == "over"


def test_no_lay_off_turn_after_gin() -> None:
    match = rigged(KNOCKER, "H4 H5 C3 S3 C7 C8 C9 S11 D12 C12", "D10")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "gin", "card": "C13"})
    assert outcome(match)["ending"] == "gin"


def test_with_automatic_lay_offs_the_engine_lays_off_the_best_at_once() -> None:
    match, knocker, defender = knocked(lay_offs="auto")
    record = outcome(match)
    laid_off = [entry["card"] for entry in player_record(record, defender)["layoffs"]]
    assert laid_off == ["D10", "H4", "H5", "S3"]
    assert (record["winner"], record["points"]) == (knocker, 28)


def test_the_lay_off_rule_is_checked() -> None:
    with pytest.raises(IllegalAction) as caught:
        GinRummy.validate_config({"lay_offs": "never"}, 2)
    assert caught.value.code == "bad_config"
    assert caught.value.message == "lay_offs must be one of choose, auto, got 'never'"


def test_a_state_waiting_for_lay_offs_survives_serialisation() -> None:
    match, _, defender = knocked()
    copy = GinRummy.from_json(match.to_json())
    for viewer in (None, 0, 1):
        assert copy.view(viewer) == match.view(viewer)
        assert copy.legal_actions(viewer) == match.legal_actions(viewer)
    copy.apply(defender, {"type": "lay_off", "layoffs": []})
    match.apply(defender, {"type": "lay_off", "layoffs": []})
    assert copy.hand_results() == match.hand_results()
