"""Client messages parsed strictly: the action of every move, and each fault with its code."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.api.messages import ActionMessage, BadMessage, Hello, HintMessage, Ping, parse


def test_an_action_parses_with_or_without_its_version() -> None:
    action = {"type": "discard", "card": "7H"}
    text = json.dumps({"type": "action", "seq": 4, "version": 17, "action": action})
    assert parse(text) == ActionMessage(4, action, 17)
    assert parse(json.dumps({"type": "action", "seq": 5, "action": action})) == ActionMessage(
        5, action, None
    )


def test_the_other_messages_parse_to_their_models() -> None:
    assert parse('{"type":"ping"}') == Ping(type="ping")
    assert parse('{"type":"hello","token":null}') == Hello(type="hello", token=None)


def test_a_hint_parses_with_or_without_its_seq() -> None:
    assert parse('{"type":"hint","seq":9}') == HintMessage(type="hint", seq=9)
    assert parse('{"type":"hint"}') == HintMessage(type="hint", seq=None)
    assert parse('{"type":"hint","seq":null}') == HintMessage(type="hint", seq=None)


@pytest.mark.parametrize(
    ("raw", "code", "seq", "words"),
    [
        ("{", "bad_json", None, "not JSON"),
        ([1, 2], "bad_message", None, "JSON object"),
        ({"type": "fly", "seq": 3}, "unknown_type", 3, "got 'fly'"),
        ({"type": "action", "seq": 2, "action": {}, "seat": 1}, "bad_message", 2, "seat: Extra"),
        ({"type": "action", "action": {}}, "bad_message", None, "seq: Field required"),
        ({"type": "action", "seq": 2}, "bad_message", 2, "action: Field required"),
        ({"type": "action", "seq": True, "action": {}}, "bad_message", None, "seq: Input"),
        ({"type": "action", "seq": 2.0, "action": {}}, "bad_message", None, "seq: Input"),
        ({"type": "action", "seq": 2, "action": []}, "bad_message", 2, "action: Input"),
        ({"type": "action", "seq": 2, "action": {}, "version": "1"}, "bad_message", 2, "version"),
        ({"type": "ping", "seq": 6}, "bad_message", 6, "ping: seq: Extra"),
        ({"type": "hint", "seq": "6"}, "bad_message", None, "hint: seq: Input"),
        ({"type": "hint", "seq": True}, "bad_message", None, "hint: seq: Input"),
        ({"type": "hint", "seq": 6.0}, "bad_message", None, "hint: seq: Input"),
        ({"type": "hint", "seq": 6, "seat": 1}, "bad_message", 6, "hint: seat: Extra"),
    ],
)
def test_each_fault_has_its_code_and_keeps_the_seq(
    raw: Any, code: str, seq: int | None, words: str
) -> None:
    with pytest.raises(BadMessage) as caught:
        parse(raw if isinstance(raw, str) else json.dumps(raw))
    assert (caught.value.code, caught.value.seq) == (code, seq)
    assert words in caught.value.message
