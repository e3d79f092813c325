"""The JSON text the stores keep and the sockets get (`json_text`, the fan-out's `dumps`)."""

from __future__ import annotations

import json
import math
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rooms.fanout import dumps
from app.storage.records import json_text

SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
KEYS = st.text(max_size=6) | st.integers(-5, 5)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


def as_json_would(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(DOCUMENTS)
def test_the_text_is_compact_json_with_int_keys_as_strings(value: Any) -> None:
    # json makes int keys strings too; where a dict holds both 1 and "1", both texts keep
    # both keys, in the dict's order.
    assert json_text(value) == as_json_would(value)


def test_int_keys_become_strings_at_any_depth() -> None:
    value = {"scores": {0: 12, 1: 30}, "hands": [{2: ["7H", "名"]}]}
    assert json_text(value) == '{"scores":{"0":12,"1":30},"hands":[{"2":["7H","名"]}]}'
    assert json.loads(json_text(value)) == {
        "scores": {"0": 12, "1": 30},
        "hands": [{"2": ["7H", "名"]}],
    }


def test_nan_becomes_null() -> None:
    assert json_text({"x": math.nan, 1: math.inf}) == '{"x":null,"1":null}'


@pytest.mark.parametrize("value", [2**64, {1: 2**64}, {"x": object()}, {(1, 2): 3}])
def test_what_json_cannot_hold_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        json_text(value)


def test_the_sockets_get_the_same_text() -> None:
    message = {"type": "patch", "from": 1, "version": 2, "patch": [{"op": "add", "path": "/a"}]}
    assert dumps(message) == json_text(message) == orjson.dumps(message).decode()
