"""Rule 3: groups, runs, and what a joker stands for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games.rummikub import IllegalAction, is_valid_meld, meld_value, read_meld

from .deals import tiles


@pytest.mark.parametrize(
    "meld",
    [
        "R5a B5a K5b",
        "R5a B5a K5b Y5a",
        "R1a R2a R3a",
        "K11a K12b K13a",
        "Y1a Y2a Y3a Y4a Y5a Y6a Y7a Y8a Y9a Y10a Y11a Y12a Y13a",
    ],
)
def test_groups_of_three_or_four_colours_and_runs_of_one_colour_are_melds(meld: str) -> None:
    assert is_valid_meld(tiles(meld))


@pytest.mark.parametrize(
    ("meld", "reason"),
    [
        ("R5a R6a", "a meld needs at least 3 tiles, this one has 2"),
        ("R5a B5a B5b", "group repeats colour B"),
        ("R5a B5a K5a Y5a R5b", "a group holds at most 4 tiles, this one has 5"),
        ("R7a R9a R10a", "run has a gap between R7 and R9"),
        ("R7a R6a R5a", "run is out of order: R7 before R6"),
        ("R5a R5b R6a", "run repeats R5"),
        ("R12a R13a R1a", "run is out of order: R13 before R1"),
        ("R5a B6a K7a", "neither a group (numbers differ) nor a run (colours differ)"),
        ("R4a J1 J2 R6a", "run has 2 jokers between R4 and R6, where only 1 number is missing"),
        ("R2a J1 R3a", "run has a joker between R2 and R3, where no number is missing"),
        ("J1 J2", "a meld needs at least 3 tiles, this one has 2"),
    ],
)
def test_invalid_melds_say_exactly_why(meld: str, reason: str) -> None:
    reading = read_meld(tiles(meld))
    assert not reading.valid
    assert reading.error == reason


def test_a_joker_between_two_consecutive_numbers_belongs_at_an_end_of_the_run() -> None:
    assert not is_valid_meld(tiles("R2a J1 R3a"))
    assert is_valid_meld(tiles("R2a R3a J1"))
    assert is_valid_meld(tiles("J1 R2a R3a"))


def test_a_run_may_not_wrap_from_13_to_1() -> None:
    assert not is_valid_meld(tiles("R12a R13a J1"))
    assert read_meld(tiles("R12a R13a J1")).error == (
        "run would need a number above 13 (no wrap from 13 to 1)"
    )
    assert read_meld(tiles("J1 R1a R2a")).error == "run would need a number below 1 (1 is low only)"


def test_a_joker_in_a_run_stands_for_the_number_of_its_place() -> None:
    reading = read_meld(tiles("R4a J1 R6a"))
    assert reading.kind == "run"
    assert reading.stands_for[1] == ("R5",)
    assert meld_value(tiles("R4a J1 R6a")) == 15
    assert read_meld(tiles("J1 R5a R6a")).stands_for[0] == ("R4",)


def test_a_joker_in_a_group_of_three_stands_for_either_missing_colour() -> None:
    reading = read_meld(tiles("R5a J1 K5a"))
    assert reading.kind == "group"
    assert reading.stands_for[1] == ("B5", "Y5")
    assert reading.value == 15


def test_one_tile_and_two_jokers_read_the_way_worth_more() -> None:
    assert read_meld(tiles("R5a J1 J2")).kind == "run"
    assert meld_value(tiles("R5a J1 J2")) == 18
    assert read_meld(tiles("J1 J2 R5a")).kind == "group"
    assert meld_value(tiles("J1 J2 R5a")) == 15


def test_a_tie_between_run_and_group_reads_as_a_group() -> None:
    assert read_meld(tiles("J1 R5a J2")).kind == "group"


def test_two_jokers_before_a_one_can_only_be_a_group() -> None:
    assert read_meld(tiles("J1 J2 R1a")).kind == "group"
    assert meld_value(tiles("J1 J2 R1a")) == 3


def test_a_declaration_settles_an_ambiguous_meld() -> None:
    assert read_meld(tiles("J1 R5a J2"), {"J1": "R4"}).kind == "run"
    assert meld_value(tiles("J1 J2 R5a"), {"J1": "R3"}) == 12
    reading = read_meld(tiles("J1 R5a J2"), {"J1": "B5"})
    assert reading.stands_for == (("B5",), ("R5",), ("K5", "Y5"))


def test_a_declaration_the_meld_contradicts_is_refused() -> None:
    assert read_meld(tiles("R4a J1 R6a"), {"J1": "R7"}).error == (
        "joker declared as R7 stands for R5 in this run"
    )
    assert read_meld(tiles("R5a J1 K5a"), {"J1": "K5"}).error == (
        "joker declared as K5 repeats colour K in the group"
    )
    assert read_meld(tiles("J1 R5a J2"), {"J1": "B6"}).error == (
        "joker declared as B6 in a group of 5s"
    )


def test_the_value_of_an_invalid_meld_is_refused_with_its_reason() -> None:
    with pytest.raises(IllegalAction) as refusal:
        meld_value(tiles("R7a R9a R10a"))
    assert refusal.value.code == "invalid_meld"
    assert refusal.value.message == "run has a gap between R7 and R9"


def test_faces_without_copy_letters_read_like_ids() -> None:
    assert is_valid_meld(["R5", "R6", "J"])
    assert not is_valid_meld(["R5", "R6", "X7"])


FACES = [f"{colour}{number}" for colour in "RBKY" for number in range(1, 14)]


def natural_meld(faces: list[str]) -> bool:
    """The rules' definition, on faces without jokers: a group or an ascending run."""
    colours = [face[0] for face in faces]
    numbers = [int(face[1:]) for face in faces]
    group = 3 <= len(faces) <= 4 and len(set(numbers)) == 1 and len(set(colours)) == len(faces)
    run = (
        3 <= len(faces) <= 13
        and len(set(colours)) == 1
        and numbers == list(range(numbers[0], numbers[0] + len(faces)))
    )
    return group or run


def some_meaning_works(meld: list[str]) -> bool:
    """Brute force: whether some faces for the jokers make a natural meld."""
    places = [place for place, tile in enumerate(meld) if tile in ("J1", "J2")]
    faces = [tile[:-1] for tile in meld]
    if not places:
        return natural_meld(faces)
    for first in FACES:
        faces[places[0]] = first
        for second in FACES if len(places) > 1 else [""]:
            if second:
                faces[places[1]] = second
            if natural_meld(faces):
                return True
    return False


melds = st.lists(
    st.sampled_from(
        [f"{face}{copy}" for face in FACES for copy in "ab" if 4 <= int(face[1:]) <= 8]
        + ["J1", "J2"]
    ),
    min_size=3,
    max_size=5,
    unique=True,
)


@settings(max_examples=150, deadline=None)
@given(melds)
def test_a_meld_is_valid_exactly_when_some_meaning_of_its_jokers_makes_it_one(
    meld: list[str],
) -> None:
    assert is_valid_meld(meld) == some_meaning_works(meld)


@settings(max_examples=300, deadline=None)
@given(melds)
def test_a_valid_meld_read_with_its_jokers_replaced_is_still_valid_and_worth_the_same(
    meld: list[str],
) -> None:
    reading = read_meld(meld)
    if not reading.valid:
        return
    faces = [options[0] for options in reading.stands_for]
    if reading.kind == "group":
        # Two open jokers of a group stand for two different missing colours.
        seen: set[str] = set()
        faces = []
        for options in reading.stands_for:
            choice = next(face for face in options if face not in seen)
            seen.add(choice)
            faces.append(choice)
    assert natural_meld(faces)
    assert reading.value == sum(int(face[1:]) for face in faces)
