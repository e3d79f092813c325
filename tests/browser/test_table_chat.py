"""The table's chat on a phone: hostile lines stay text, the page stays 390 px wide, reactions
and lines reach the other seat, mutes work, and a hidden tab is told; in English and Chinese."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from tests.browser.conftest import meldhall_server, screenshot
from tests.browser.flows import create_room, join_by_link, room_id
from tests.browser.phone import PHONE, assert_no_sideways_scroll, assert_on_screen

HOSTILE = [
    '<img src=x onerror="window.__pwned = 1; alert(1)">',
    '<a href="javascript:window.__pwned = 2">click me</a> javascript:alert(2)',
    "left \u202eright-to-left spoof\u202c done",
    "before NUL\x00after NUL",
    "W" * 300,
]
TOO_LONG = "a" * 10_000


@pytest.fixture(scope="module")
def chat_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose seats may say a burst of lines at once (the default pace is 5)."""
    with meldhall_server(
        Path(tmp_path_factory.mktemp("meldhall-chat")),
        "app.main:create_app",
        MELDHALL_CHAT_BURST="50",
    ) as url:
        yield url


def join_as(base: str, room: str, name: str) -> str:
    joined = httpx.post(f"{base}/api/rooms/{room}/join", json={"name": name})
    assert joined.status_code == 201, joined.text
    token: str = joined.json()["token"]
    return token


def say_over_socket(base: str, room: str, token: str, lines: list[dict[str, Any]]) -> list[str]:
    """Each line from a socket of the seat; the codes of those refused."""
    refused = []
    with connect(f"{base.replace('http', 'ws')}/ws/rooms/{room}") as socket:
        socket.send(json.dumps({"type": "hello", "token": token}))
        for seq, line in enumerate(lines):
            socket.send(json.dumps({"type": "chat", "seq": seq, **line}))
            while True:
                message = json.loads(socket.recv(timeout=30))
                if message["type"] == "chat" and message["from"]["seat"] == 1:
                    break
                if message["type"] == "error" and message["seq"] == seq:
                    refused.append(message["code"])
                    break
    return refused


def open_phone(new_page: Any, locale: str) -> tuple[Any, list[str]]:
    page = new_page(locale, viewport=PHONE, is_mobile=True, has_touch=True)
    dialogs: list[str] = []

    def dismiss(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", dismiss)
    return page, dialogs


def test_hostile_lines_stay_text_and_the_phone_stays_its_width(
    new_page: Any, chat_server_url: str
) -> None:
    page, dialogs = open_phone(new_page, "en-US")
    create_room(page, chat_server_url, game="gin_rummy", name="Ann")
    room = room_id(page)
    bea = join_as(chat_server_url, room, "Bea \u202eevil")
    page.wait_for_selector('.seats-panel [data-seat="1"]')
    # The chat is folded away until opened.
    assert page.locator("#chat-panel").is_hidden()

    refused = say_over_socket(
        chat_server_url,
        room,
        bea,
        [*({"text": text} for text in HOSTILE), {"text": TOO_LONG}, {"reaction": "good_game"}],
    )
    assert refused == ["chat_too_long"]
    # Six lines came while folded: the button counts them, and the last shows at Bea's seat.
    page.wait_for_function(
        "document.querySelector('#chat-toggle .chat-unread')?.textContent === '6'"
    )
    page.wait_for_selector('.seats-panel [data-seat="1"] .chat-bubble')
    assert_no_sideways_scroll(page)
    screenshot(page, "chat-phone-folded-en", full_page=False)

    page.click("#chat-toggle")
    page.wait_for_selector("#chat-lines .chat-line >> nth=5")
    lines = page.locator("#chat-lines .chat-text").all_text_contents()
    assert lines == [
        '<img src=x onerror="window.__pwned = 1; alert(1)">',
        '<a href="javascript:window.__pwned = 2">click me</a> javascript:alert(2)',
        "left right-to-left spoof done",
        "before NULafter NUL",
        "W" * 300,
        "Good game!",
    ]
    names = page.locator("#chat-lines .chat-name").all_text_contents()
    assert set(names) == {"Bea evil"}
    # Nothing a line held became markup, ran, or asked anything of the person.
    assert page.locator("#chat-lines img, #chat-lines a, .chat-bubble *").count() == 0
    page.click("#chat-lines .chat-line >> nth=1")
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    assert page.evaluate(
        "[...document.querySelectorAll('.chat-name, .chat-text')].every("
        "(el) => el.tagName === 'BDI' && getComputedStyle(el).unicodeBidi === 'isolate')"
    )
    assert_no_sideways_scroll(page)
    assert_on_screen(page, "#chat-panel")
    long_word = page.locator("#chat-lines .chat-line >> nth=4").bounding_box()
    assert long_word is not None
    assert long_word["x"] + long_word["width"] <= PHONE["width"]
    screenshot(page, "chat-phone-hostile-en", full_page=False)


def test_two_seats_talk_react_and_mute_in_both_languages(
    new_page: Any, chat_server_url: str
) -> None:
    page, dialogs = open_phone(new_page, "en-US")
    create_room(page, chat_server_url, game="gin_rummy", name="Ann")
    room = room_id(page)
    bea_page, _ = open_phone(new_page, "zh-CN")
    join_by_link(bea_page, f"{chat_server_url}/r/{room}", "小贝")
    bea_page.wait_for_selector(".seat-row")

    # Ann: a quick reaction is one tap after unfolding, then a typed line.
    page.click("#chat-toggle")
    page.click('.chat-reaction[data-reaction="hello"]')
    page.fill("#chat-input", "Hi Bea, good luck")
    page.press("#chat-input", "Enter")
    page.wait_for_function("document.querySelectorAll('#chat-lines .chat-line').length === 2")
    # Bea (in Chinese) gets both, the reaction in her language, and a bubble at Ann's seat.
    bea_page.wait_for_function(
        "document.querySelector('#chat-toggle .chat-unread')?.textContent === '2'"
    )
    bea_page.wait_for_selector('.seats-panel [data-seat="0"] .chat-bubble')
    bea_page.click("#chat-toggle")
    texts = bea_page.locator("#chat-lines .chat-text").all_text_contents()
    assert texts == ["你好！", "Hi Bea, good luck"]
    bea_page.click('.chat-reaction[data-reaction="thanks"]')
    bea_page.fill("#chat-input", "谢谢，祝你好运！")
    bea_page.click("#chat-send")
    page.wait_for_function("document.querySelectorAll('#chat-lines .chat-line').length === 4")
    assert page.locator("#chat-lines .chat-text").all_text_contents()[2:] == [
        "Thanks!",
        "谢谢，祝你好运！",
    ]
    for each in (page, bea_page):
        assert_no_sideways_scroll(each)
    screenshot(page, "chat-phone-en", full_page=False)
    screenshot(bea_page, "chat-phone-zh-CN", full_page=False)

    # A hidden tab: the title is marked for a new line, and the mark goes once it is seen.
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => true})"
    )
    bea_page.fill("#chat-input", "你在吗？")
    bea_page.click("#chat-send")
    page.wait_for_function("document.title.startsWith('💬 1')")
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    page.wait_for_function("!document.title.startsWith('💬')")

    # Ann mutes Bea for herself: Bea's lines go from her page (and only hers).
    page.click(".chat-seats summary")
    page.click('.chat-seat[data-seat="1"] .mute-me')
    page.wait_for_function("document.querySelectorAll('#chat-lines .chat-line').length === 2")
    assert bea_page.locator("#chat-lines .chat-line").count() == 5
    page.click('.chat-seat[data-seat="1"] .mute-me')
    # Ann created the room, so she is its host: she mutes Bea for everyone.
    page.click('.chat-seat[data-seat="1"] .mute-all')
    bea_page.wait_for_selector(".chat-note:not([hidden])")
    assert bea_page.locator("#chat-input").is_hidden()
    assert bea_page.locator(".chat-note").inner_text() == "房主已禁止你发言。"
    bea_page.click(".chat-seats summary")
    bea_page.wait_for_selector('.chat-seat[data-seat="0"] .badge')
    screenshot(bea_page, "chat-phone-muted-zh-CN", full_page=False)
    assert dialogs == []
    assert page.console_errors == []
    assert bea_page.console_errors == []
