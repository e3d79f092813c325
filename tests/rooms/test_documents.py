"""The patch between two documents turns the first into the second, exactly."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
from hypothesis import given
from hypothesis import strategies as st

from app.games.engine import SeatView
from app.rooms.documents import Shared, make_patch

# Documents keep one JSON type per field, so the values here never put True where 1 was.
scalars = st.none() | st.integers(-5, 5) | st.sampled_from(["H1", "R5a", "", "~/"])
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(["a", "b", "c/d", "e~f", "0"]), inner, max_size=4)
    ),
    max_leaves=25,
)


@given(documents, documents)
def test_applying_the_patch_to_the_old_document_gives_the_new_one(old: Any, new: Any) -> None:
    patch = make_patch(old, new)
    assert jsonpatch.apply_patch(copy.deepcopy(old), patch) == new


@given(documents)
def test_a_document_compared_with_itself_needs_no_patch(doc: Any) -> None:
    assert make_patch(doc, copy.deepcopy(doc)) == []


def test_a_card_drawn_onto_the_end_of_a_hand_is_one_add() -> None:
    old = {"hand": ["H1", "H2"]}
    assert make_patch(old, {"hand": ["H1", "H2", "S9"]}) == [
        {"op": "add", "path": "/hand/-", "value": "S9"}
    ]


def test_a_field_that_turns_from_one_to_true_is_replaced() -> None:
    assert make_patch({"x": 1}, {"x": True}) == [{"op": "replace", "path": "/x", "value": True}]


views = st.dictionaries(st.sampled_from(["a", "b", "seat", "me", "x/y"]), documents, max_size=5)
owns = st.dictionaries(st.sampled_from(["seat", "me", "b", "x/y"]), documents, max_size=2)


@given(views, views, owns, owns)
def test_seat_views_diffed_through_their_public_views_patch_exactly(
    public_old: Any, public_new: Any, own_old: Any, own_new: Any
) -> None:
    """Two seats' views of one change share the diff of the public views; each patch is exact,
    whether or not the seats' own keys are the same or shadow changing public values."""
    shared: Shared = {}
    seats = [(own_old, own_new), ({**own_old}, {**own_old, **own_new})]
    for before, after in seats:
        old = {"game": SeatView(public_old, before)}
        new = {"game": SeatView(public_new, after)}
        patch = make_patch(old, new, shared)
        assert jsonpatch.apply_patch(copy.deepcopy(old), patch) == new
    assert make_patch(SeatView(public_old, own_old), SeatView(public_old, own_old)) == []


def test_a_seat_view_against_a_plain_object_is_diffed_key_by_key() -> None:
    old = {"game": {"seat": 0, "a": [1]}}
    new = {"game": SeatView({"seat": None, "a": [1, 2]}, {"seat": 0})}
    assert make_patch(old, new) == [{"op": "add", "path": "/game/a/-", "value": 2}]
