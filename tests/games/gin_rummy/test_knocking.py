"""Rules 6 to 9: knock, lay-offs, undercut, gin and big gin, and who deals next."""

from __future__ import annotations

import pytest

from app.games.gin_rummy import GinRummy, IllegalAction
from tests.games.gin_rummy.deals import (
    answer_knock,
    knocked,
    outcome,
    player_record,
    rigged,
    seats,
    table,
)

KNOCKER = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"


def knock_after_taking(
    upcard: str, defender: str, card: str = "C13", knocker: str = KNOCKER, **config: object
) -> tuple[GinRummy, int, int]:
    """The non-dealer takes the upcard and knocks with `card`, and the defender lays off its
    best where it may choose: (match, knocker, defender)."""
    match, first, second = knocked(knocker, defender, upcard, card, **config)
    answer_knock(match)
    return match, first, second


def meld_index(record: dict[str, object], seat: int, cards: list[str]) -> int:
    melds = player_record(record, seat)["melds"]
    return [sorted(meld) for meld in melds].index(sorted(cards))


def test_a_knock_scores_the_deadwood_difference_after_lay_offs() -> None:
    defender = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"
    match, knocker, loser = knock_after_taking("C2", defender)
    record = outcome(match)
    assert record["ending"] == "knock"
    assert player_record(record, knocker)["deadwood_points"] == 2
    assert player_record(record, loser)["deadwood_points"] == 30
    assert (record["winner"], record["points"], record["bonus"]) == (knocker, 28, 0)
    assert match.view(None)["scores"][knocker] == 28


def test_the_defender_lays_off_onto_either_end_of_a_run_and_card_after_card() -> None:
    defender = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"
    match, knocker, loser = knock_after_taking("C2", defender)
    record = outcome(match)
    layoffs = {entry["card"]: entry["meld"] for entry in player_record(record, loser)["layoffs"]}
    hearts = meld_index(record, knocker, ["H1", "H2", "H3"])
    spades = meld_index(record, knocker, ["S4", "S5", "S6"])
    diamonds = meld_index(record, knocker, ["D7", "D8", "D9"])
    assert layoffs == {"H4": hearts, "H5": hearts, "S3": spades, "D10": diamonds}
    assert player_record(record, loser)["melds"] == [["C7", "C8", "C9"]]


def test_the_defender_lays_off_the_fourth_card_of_a_set() -> None:
    knocker = "H8 S8 D8 C1 C2 C3 D11 D12 D13 S13"
    defender = "C8 H2 H4 H6 S9 S11 D1 D3 D5 H10"
    match, _, loser = knock_after_taking("S2", defender, card="S13", knocker=knocker)
    layoffs = [entry["card"] for entry in player_record(outcome(match), loser)["layoffs"]]
    assert layoffs == ["C8"]


def test_a_card_worth_more_in_the_defenders_own_meld_is_not_laid_off() -> None:
    knocker = "H8 S8 D8 C1 C2 C3 D11 D12 D13 S13"
    defender = "C6 C7 C8 H2 H4 S9 S11 D1 D3 H10"
    match, _, loser = knock_after_taking("S2", defender, card="S13", knocker=knocker)
    mine = player_record(outcome(match), loser)
    assert mine["layoffs"] == []
    assert ["C6", "C7", "C8"] in mine["melds"]


def test_the_knocker_never_lays_off() -> None:
    defender = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"
    match, knocker, _ = knock_after_taking("C2", defender)
    # C2 would extend nothing of the defender's anyway; the knocker's record has no lay-offs.
    assert player_record(outcome(match), knocker)["layoffs"] == []


def test_the_knock_card_is_set_aside_face_down() -> None:
    defender = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"
    match, knocker, loser = knock_after_taking("C2", defender)
    assert "C13" not in table(match)["discard_pile"]
    assert "C13" in match.hidden_from(loser)
    assert "C13" in match.hidden_from(None)
    assert "C13" not in match.hidden_from(knocker)


def test_a_knock_needs_deadwood_within_the_limit() -> None:
    knocker = "H1 H2 H3 S4 S5 S6 D7 D8 C13 C4"
    defender = "C1 C3 C5 C7 C9 D2 D4 D6 H11 S13"
    match = rigged(knocker, defender, "D3")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert not [a for a in match.legal_actions(first) if a["type"] == "knock"]
    before = match.to_json()
    with pytest.raises(IllegalAction) as caught:
        match.apply(first, {"type": "knock", "card": "C13"})
    assert (caught.value.code, caught.value.message) == ("deadwood_too_high", "deadwood 22 > 10")
    assert match.to_json() == before


def test_the_knocker_may_lay_out_their_own_melds() -> None:
    # Best is H1-H3, H4 S4 D4, C5-C7 (deadwood 1); the knocker keeps the long run instead.
    knocker = "H1 H2 H3 H4 S4 D4 C5 C6 C7 S13"
    defender = "H5 C9 C11 D2 D6 S9 S11 D12 C12 H10"
    match = rigged(knocker, defender, "S1")
    first, second = seats(match)
    match.apply(first, {"type": "take_upcard"})
    melds = [["H1", "H2", "H3", "H4"], ["C5", "C6", "C7"]]
    match.apply(first, {"type": "knock", "card": "S13", "melds": melds})
    answer_knock(match)
    record = outcome(match)
    assert player_record(record, first)["deadwood"] == ["D4", "S1", "S4"]
    assert [e["card"] for e in player_record(record, second)["layoffs"]] == ["H5"]
    assert (record["ending"], record["points"]) == ("knock", 76 - 9)


def test_a_submitted_meld_must_be_a_set_or_a_run_of_cards_kept() -> None:
    knocker = "H4 H5 H6 H7 S7 D7 C1 C2 C3 S13"
    defender = "H8 C9 C11 D2 D4 D6 S9 S11 D12 C12"
    match = rigged(knocker, defender, "S1")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    cases = {
        "H4 H5 H7 is neither a set nor a run": [["H4", "H5", "H7"]],
        "S11 S12 S13 uses a card you do not keep": [["S11", "S12", "S13"]],
        "D7 H7 S7 reuses a card of another meld": [["H4", "H5", "H6", "H7"], ["H7", "S7", "D7"]],
        "C1 C1 C1 names a card twice": [["H4", "H5", "H6", "H7"], ["C1", "C1", "C1"]],
    }
    for message, melds in cases.items():
        with pytest.raises(IllegalAction) as caught:
            match.apply(first, {"type": "knock", "card": "C3", "melds": melds})
        assert (caught.value.code, caught.value.message) == ("invalid_meld", message)


def test_an_undercut_gives_the_defender_the_bonus_and_the_difference() -> None:
    defender = "C3 C4 C5 D1 D2 D3 S11 S12 S13 H5"
    match, knocker, undercutter = knock_after_taking("C10", defender)
    record = outcome(match)
    assert record["ending"] == "undercut"
    assert record["knocker"] == knocker
    assert (record["winner"], record["bonus"], record["points"]) == (undercutter, 25, 25 + 5)
    assert match.view(None)["scores"][knocker] == 0


def test_equal_deadwood_is_an_undercut_too() -> None:
    defender = "C3 C4 C5 D1 D2 D3 S11 S12 S13 H10"
    match, _, undercutter = knock_after_taking("C10", defender)
    record = outcome(match)
    assert (record["ending"], record["winner"], record["points"]) == ("undercut", undercutter, 25)


def test_gin_scores_the_bonus_plus_all_the_opponents_deadwood_without_lay_offs() -> None:
    defender = "H4 S3 C1 C5 C9 S12 D12 H12 C7 H9"
    match = rigged(KNOCKER, defender, "D10")
    first, second = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert {"type": "gin", "card": "C13"} in match.legal_actions(first)
    match.apply(first, {"type": "gin", "card": "C13"})
    record = outcome(match)
    assert player_record(record, second)["layoffs"] == []
    assert player_record(record, second)["deadwood_points"] == 38
    assert (record["ending"], record["winner"], record["points"]) == ("gin", first, 25 + 38)


def test_a_knock_with_no_deadwood_is_a_gin_and_is_never_undercut() -> None:
    defender = "C3 C4 C5 D1 D2 D3 S11 S12 S13 C10"
    match = rigged(KNOCKER, defender, "D10")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "knock", "card": "C13"})
    assert (outcome(match)["ending"], outcome(match)["winner"]) == ("gin", first)


def test_gin_is_refused_while_deadwood_remains() -> None:
    match = rigged(KNOCKER, "C3 C4 C5 D1 D2 D3 S11 S12 S13 C10", "H5")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    with pytest.raises(IllegalAction) as caught:
        match.apply(first, {"type": "gin", "card": "C13"})
    assert (caught.value.code, caught.value.message) == (
        "not_gin",
        "deadwood 5 after discarding C13",
    )


def test_big_gin_melds_all_eleven_cards_without_a_discard() -> None:
    knocker = "H1 H2 H3 S4 S5 S6 D7 D8 D9 D10"
    defender = "H4 S3 C1 C5 C9 S12 D12 H12 C7 H9"
    match = rigged(knocker, defender, "D11")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert {"type": "big_gin"} in match.legal_actions(first)
    match.apply(first, {"type": "big_gin"})
    record = outcome(match)
    assert (record["ending"], record["bonus"], record["points"]) == ("big_gin", 31, 31 + 38)
    assert len(table(match)["players"][0]["cards"]) == 11


def test_big_gin_can_be_turned_off() -> None:
    knocker = "H1 H2 H3 S4 S5 S6 D7 D8 D9 D10"
    match = rigged(knocker, "H4 S3 C1 C5 C9 S12 D12 H12 C7 H9", "D11", config={"big_gin_bonus": 0})
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    assert {"type": "big_gin"} not in match.legal_actions(first)
    with pytest.raises(IllegalAction) as caught:
        match.apply(first, {"type": "big_gin"})
    assert caught.value.code == "big_gin_disabled"
    assert {"type": "gin", "card": "D7"} in match.legal_actions(first)


def test_big_gin_is_refused_with_deadwood() -> None:
    match = rigged(KNOCKER, "H4 S3 C1 C5 C9 S12 D12 H12 C7 H9", "D10")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    with pytest.raises(IllegalAction) as caught:
        match.apply(first, {"type": "big_gin"})
    assert caught.value.code == "not_gin"


def test_the_loser_of_a_hand_deals_the_next() -> None:
    defender = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"
    match, knocker, loser = knock_after_taking("C2", defender)
    assert match.phase == "hand_over"
    match.apply(None, {"type": "next_hand"})
    assert table(match)["dealer"] == loser
    assert match.to_act() == [knocker]


def test_after_an_undercut_the_knocker_deals() -> None:
    match, knocker, _ = knock_after_taking("C10", "C3 C4 C5 D1 D2 D3 S11 S12 S13 H5")
    match.apply(None, {"type": "next_hand"})
    assert table(match)["dealer"] == knocker


def test_a_knock_lays_both_hands_open() -> None:
    defender = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"
    match, knocker, loser = knock_after_taking("C2", defender)
    for viewer in (None, knocker, loser):
        cards = {p["seat"]: p["cards"] for p in table(match, viewer)["players"]}
        assert sorted(cards[loser]) == sorted(defender.split())
        assert "C2" in cards[knocker]


def test_the_engine_lays_out_the_knocker_to_leave_the_fewest_lay_offs() -> None:
    # Three runs D7-D9, H7-H9, S7-S9 or three sets 7-7-7, 8-8-8, 9-9-9 both leave C10; the
    # runs would take six cards at their ends (the defender's D10 among them), the sets
    # only C7, C8 and C9.
    knocker = "D7 D8 D9 H7 H8 H9 S7 S8 S9 S13"
    defender = "D10 C1 C3 C5 D2 D4 H11 H13 S12 C12"
    match, first, second = knock_after_taking("C10", defender, card="S13", knocker=knocker)
    record = outcome(match)
    assert ["D7", "H7", "S7"] in player_record(record, first)["melds"]
    assert player_record(record, second)["layoffs"] == []
    assert record["points"] == 65 - 10


# C1 C2 D6 D7 D8 H2 S1 S2 S3 S5 has deadwood 10 laid out as 2-2-2 and D6-D8 (C1 S1 S3 S5
# loose) or as S1-S3 and D6-D8 (C1 C2 H2 S5 loose): the first offers the defender D2 to lay
# off, the second S4 (the knocker holds S5, which ends that run's chance).
TWO_LAYOUTS = "C1 C2 D6 D7 D8 H2 S1 S2 S3 C13"
TWOS = [["C2", "H2", "S2"], ["D6", "D7", "D8"]]
LOW_SPADES = [["D6", "D7", "D8"], ["S1", "S2", "S3"]]


def knocker_melds(match: GinRummy, seat: int) -> list[list[str]]:
    return sorted(sorted(meld) for meld in player_record(outcome(match), seat)["melds"])


@pytest.mark.parametrize(
    "defender",
    [
        "D2 C4 C6 C8 H10 H12 S11 S13 D11 D13",  # could lay D2 off onto 2-2-2
        "S4 C4 C6 C8 H10 H12 S11 S13 D11 D13",  # could lay S4 off onto S1-S3
        "C4 C6 C8 H10 H12 S11 S13 D11 D13 H13",  # neither
    ],
)
def test_the_automatic_layout_does_not_depend_on_the_defenders_hidden_cards(
    defender: str,
) -> None:
    # The 2s offer D2 (2 points), the spades S4 (4 points), each as likely to be held.
    match, knocker, _ = knock_after_taking("S5", defender, knocker=TWO_LAYOUTS)
    assert knocker_melds(match, knocker) == TWOS


def test_a_card_the_defender_was_seen_taking_counts_as_held() -> None:
    # The dealer takes the upcard D2 in view of all: now 2-2-2 would surely take it, and the
    # knocker lays out S1-S3 instead.
    defender = "C4 C6 C8 H10 H12 S11 S13 D11 D13 H13"
    match = rigged(TWO_LAYOUTS, defender, "D2", stock="S5")
    first, second = seats(match)
    match.apply(first, {"type": "pass"})
    match.apply(second, {"type": "take_upcard"})
    match.apply(second, {"type": "discard", "card": "H13"})
    match.apply(first, {"type": "draw", "source": "stock"})
    match.apply(first, {"type": "knock", "card": "C13"})
    assert knocker_melds(match, first) == LOW_SPADES
    assert [e["card"] for e in player_record(outcome(match), second)["layoffs"]] == []


def test_the_knocker_may_choose_either_layout_of_equal_deadwood() -> None:
    defender = "D2 C4 C6 C8 H10 H12 S11 S13 D11 D13"
    match = rigged(TWO_LAYOUTS, defender, "S5")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    match.apply(first, {"type": "knock", "card": "C13", "melds": LOW_SPADES})
    assert knocker_melds(match, first) == LOW_SPADES
    assert player_record(outcome(match), first)["deadwood_points"] == 10
