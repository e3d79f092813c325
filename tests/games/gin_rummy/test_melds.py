"""Rule 1 and 2: card points, sets, runs, and an exact (never greedy) deadwood count."""

from __future__ import annotations

import itertools
import random

import pytest

from app.games.gin_rummy import best_arrangement, min_deadwood
from app.games.gin_rummy.cards import CARD_INDEX, CARD_NAMES, to_mask
from app.games.gin_rummy.melds import arrangement_names, best_arrangement_mask


def is_meld(cards: list[str]) -> bool:
    return min_deadwood(cards) == 0 and len(cards) >= 3


def test_an_ace_is_one_point_and_faces_are_ten() -> None:
    assert min_deadwood(["H1"]) == 1
    assert min_deadwood(["S7"]) == 7
    assert min_deadwood(["D11"]) == min_deadwood(["C12"]) == min_deadwood(["H13"]) == 10


def test_no_cards_have_no_deadwood() -> None:
    assert min_deadwood([]) == 0


def test_h1_h2_h3_is_a_run() -> None:
    assert is_meld(["H1", "H2", "H3"])


def test_c6_to_c10_is_one_run() -> None:
    assert is_meld(["C6", "C7", "C8", "C9", "C10"])


def test_s12_s13_s1_is_not_a_run() -> None:
    assert min_deadwood(["S12", "S13", "S1"]) == 21


def test_q_k_a_2_does_not_wrap() -> None:
    assert min_deadwood(["S12", "S13", "S1", "S2"]) == 23


def test_h8_s8_d8_is_a_set_and_so_are_four_queens() -> None:
    assert is_meld(["H8", "S8", "D8"])
    assert is_meld(["H12", "S12", "D12", "C12"])


def test_two_cards_of_a_rank_are_not_a_set() -> None:
    assert min_deadwood(["H8", "S8"]) == 16


def test_mixed_suits_in_sequence_are_not_a_run() -> None:
    assert min_deadwood(["H4", "S5", "H6"]) == 15


def test_a_card_belongs_to_at_most_one_meld() -> None:
    # H8 would complete both 8-8-8 and H7-H8-H9; only one of them can have it.
    assert min_deadwood(["H8", "S8", "D8", "H7", "H9"]) == 16


def test_h7_goes_to_the_set_when_the_run_can_spare_it() -> None:
    # Greedy (longest run first) would keep H4-H7 and leave S7 D7: 14 points.
    assert min_deadwood(["H4", "H5", "H6", "H7", "S7", "D7"]) == 0


def test_unknown_or_repeated_cards_are_refused() -> None:
    for bad in (["H0"], ["H14"], ["X5"], ["h5"], ["H1", "H1"]):
        with pytest.raises(ValueError, match="card"):
            min_deadwood(bad)


def test_best_arrangement_shows_melds_and_deadwood() -> None:
    arrangement = best_arrangement(["H1", "H2", "H3", "C9", "D9", "S9", "S13", "D2"])
    melds = sorted(sorted(meld) for meld in arrangement.to_json()["melds"])
    assert melds == [["C9", "D9", "S9"], ["H1", "H2", "H3"]]
    assert arrangement.to_json()["deadwood"] == ["D2", "S13"]
    assert arrangement.deadwood_points == 12


def every_meld(cards: list[str]) -> list[frozenset[str]]:
    held = set(cards)
    melds = []
    for rank in range(1, 14):
        group = [f"{suit}{rank}" for suit in "CDHS" if f"{suit}{rank}" in held]
        for size in (3, 4):
            melds.extend(frozenset(combo) for combo in itertools.combinations(group, size))
    for suit in "CDHS":
        for low in range(1, 12):
            for high in range(low + 2, 14):
                run = [f"{suit}{rank}" for rank in range(low, high + 1)]
                if held.issuperset(run):
                    melds.append(frozenset(run))
    return melds


def points(cards: frozenset[str] | list[str]) -> int:
    return sum(min(int(card[1:]), 10) for card in cards)


def brute_force(cards: list[str]) -> int:
    """Every collection of disjoint melds, the obvious way."""
    melds = every_meld(cards)
    total = points(cards)
    best = total

    def search(start: int, used: frozenset[str], melded: int) -> None:
        nonlocal best
        best = min(best, total - melded)
        for index in range(start, len(melds)):
            if not melds[index] & used:
                search(index + 1, used | melds[index], melded + points(melds[index]))

    search(0, frozenset(), 0)
    return best


def random_hands(count: int) -> list[list[str]]:
    rng = random.Random(20261129)
    hands = []
    for index in range(count):
        size = rng.randint(0, 11)
        if index % 2:
            low = rng.randint(1, 10)
            pool = [f"{suit}{rank}" for suit in "CDHS" for rank in range(low, low + 4)]
        else:
            pool = list(CARD_NAMES)
        hands.append(rng.sample(pool, min(size, len(pool))))
    return hands


def test_min_deadwood_equals_brute_force_on_thousands_of_random_hands() -> None:
    mismatches = [hand for hand in random_hands(4000) if min_deadwood(hand) != brute_force(hand)]
    assert mismatches == []


def test_best_arrangement_is_valid_and_as_good_as_brute_force() -> None:
    for hand in random_hands(1500):
        arrangement = best_arrangement(hand).to_json()
        melded = [card for meld in arrangement["melds"] for card in meld]
        assert sorted(melded + arrangement["deadwood"]) == sorted(hand)
        assert len(set(melded)) == len(melded)
        assert all(is_meld(meld) for meld in arrangement["melds"])
        assert arrangement["deadwood_points"] == points(arrangement["deadwood"])
        assert arrangement["deadwood_points"] == brute_force(hand)


def test_the_views_names_are_the_best_arrangement_itself() -> None:
    # The own view names its arrangement straight from the masks; the same melds, in the same
    # order, as the arrangement the scoring and the bots use. Hands dense in sets and runs
    # (the odd ones) reach the choices between a set and a run.
    for hand in random_hands(3000):
        mask = to_mask(CARD_INDEX[name] for name in hand)
        arrangement = best_arrangement_mask(mask)
        melds, deadwood, deadwood_points, loose = arrangement_names(mask)
        assert melds == [[CARD_NAMES[card] for card in meld] for meld in arrangement.melds]
        assert deadwood == [CARD_NAMES[card] for card in arrangement.deadwood]
        assert deadwood_points == arrangement.deadwood_points
        assert loose == to_mask(arrangement.deadwood)
        assert all(type(meld) is list for meld in melds)
