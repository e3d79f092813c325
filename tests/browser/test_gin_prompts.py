"""Gin Rummy's prompts and highlights follow the moves the server allows: after both players
pass the upcard the draw is from the stock only (the discard pile neither offered nor marked),
a refusal's message goes once a move is accepted, the hand's panel and its result show one
deadwood figure, and a new hand brings the table's top (the header and the players' names)
back into view."""

from __future__ import annotations

from typing import Any

import httpx

from app.games.gin_rummy.engine import first_dealer
from tests.browser.api_seats import Seat, play_gin_until
from tests.browser.conftest import UNMELDED_SEED, screenshot
from tests.browser.flows import join_by_link, press_ready, seat_token, version, wait_past
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, SETTLED, assert_on_screen

STOCK_ONLY = {
    "en-US": "Your turn: both players passed the upcard, so draw from the stock",
    "zh-CN": "轮到你：双方都跳过了明牌，请从牌库抽牌",
}


def digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def a_table_with_a_friend(base: str, page: Any) -> tuple[Seat, str]:
    """A two-player room: the friend (through the API) at the first hand's dealer seat, the
    page at the other, so the page is offered the upcard first; both ready."""
    http = httpx.Client(base_url=base, timeout=30)
    room = http.post("/api/rooms", json={"game": "gin_rummy", "players": 2}).json()["room_id"]
    dealer = first_dealer(UNMELDED_SEED, 0, [0, 1])
    joined = http.post(f"/api/rooms/{room}/join", json={"name": "Dealer Dan", "seat": dealer})
    assert joined.status_code == 201, joined.text
    friend = Seat(base, room, joined.json()["token"])
    join_by_link(page, f"{base}/r/{room}", "Nina")
    friend.ready()
    press_ready(page)
    page.wait_for_selector("#pass-upcard")
    return friend, room


@EVERY_LANGUAGE_AND_SIZE
def test_after_two_passes_only_the_stock_is_offered(
    seeded_server_url, new_page, locale, viewport
) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale, viewport=viewport)
    friend, _ = a_table_with_a_friend(seeded_server_url, page)
    before = version(page)
    page.click("#pass-upcard")
    wait_past(page, before)
    before = version(page)
    friend.act({"type": "pass"})
    wait_past(page, before)
    page.wait_for_selector("#stock.can-take")

    assert page.locator("#turn-line").inner_text().startswith(STOCK_ONLY[locale])
    assert "can-take" not in (page.locator("#discard-top").get_attribute("class") or "")
    screenshot(page, f"gin-stock-only-{locale}-{viewport['width']}", full_page=False)

    page.click("#discard-top")
    refusal = page.locator('.toast-error[data-code="must_draw_from_stock"]')
    refusal.wait_for()
    before = version(page)
    page.click("#stock")
    wait_past(page, before)
    assert refusal.count() == 0, "the refusal stayed after an accepted draw"


@EVERY_LANGUAGE_AND_SIZE
def test_a_new_hand_brings_the_table_back_into_view(
    seeded_server_url, new_page, locale, viewport
) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale, viewport=viewport)
    friend, room = a_table_with_a_friend(seeded_server_url, page)
    mine = Seat(seeded_server_url, room, seat_token(page, room)["token"])
    play_gin_until([mine, friend], ("between_hands",))
    page.wait_for_selector("#hand-outcome")
    page.wait_for_function(SETTLED)
    # One deadwood figure: the hand's panel shows what the result counted (after lay-offs).
    seat = page.evaluate("window.meldhall.store.state.you.seat")
    counted = page.locator(f'#hand-outcome .layout[data-seat="{seat}"] .deadwood').inner_text()
    assert digits(page.locator("#deadwood").inner_text()) == digits(counted)
    # The player reads the result and the scores below the table, then the next hand comes.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("window.scrollY > 0")
    friend.ready()
    page.click("#next-hand-button")
    page.wait_for_selector("#hand-outcome", state="detached")
    page.wait_for_function("window.scrollY === 0")
    page.wait_for_function(SETTLED)
    assert_on_screen(page, ".room-head h1")
    assert_on_screen(page, '.seat[data-seat="0"]')
    screenshot(page, f"gin-new-hand-{locale}-{viewport['width']}", full_page=False)
