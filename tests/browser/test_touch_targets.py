"""Every control a finger can reach on the lobby and a Gin Rummy table (the header's settings
and language, the move log's header, the buttons and menus) is at least 44 x 44 px, in both
languages, on a phone and a desktop."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.browser.flows import GIN_MY_TURN_OR_OVER, create_room
from tests.browser.phone import PHONE, SETTLED

DESKTOP = {"width": 1366, "height": 800}
CONTROLS = (
    "#top nav a, #prefs summary, #lang, #move-log summary, #more-options summary, select, "
    "button:not(.card):not(.tile):not(.split):not(.grip), a.button"
)
# Each visible control smaller than 44 px either way, named.
SMALL = """(selector) => [...document.querySelectorAll(selector)]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
  .map((el) => [el.id || el.className || el.tagName, el.getBoundingClientRect()])
  .filter(([, r]) => r.width < 43.5 || r.height < 43.5)
  .map(([name, r]) => `${name}: ${Math.round(r.width)}x${Math.round(r.height)}`)"""


@pytest.mark.parametrize(
    ("locale", "viewport"),
    [("en-US", PHONE), ("zh-CN", PHONE), ("en-US", DESKTOP), ("zh-CN", DESKTOP)],
    ids=["en-phone", "zh-phone", "en-desktop", "zh-desktop"],
)
def test_controls_are_big_enough_for_a_finger(server_url, new_page, locale, viewport) -> None:  # type: ignore[no-untyped-def]
    lobby = new_page(locale, viewport=viewport)
    lobby.goto(f"{server_url}/")
    lobby.wait_for_selector("#create-room")
    assert lobby.evaluate(SMALL, CONTROLS) == []
    page = new_page(locale, viewport=viewport)
    create_room(page, server_url, game="gin_rummy", name="Tara", bots={1: "easy"})
    page.wait_for_function(GIN_MY_TURN_OR_OVER)
    # A move, so the table has its move log.
    if page.locator("#pass-upcard").count():
        page.click("#pass-upcard")
    page.wait_for_selector("#move-log summary")
    page.wait_for_function(GIN_MY_TURN_OR_OVER)
    page.wait_for_function(SETTLED)
    screenshot(page, f"touch-targets-{locale}-{viewport['width']}", full_page=False)
    assert page.evaluate(SMALL, CONTROLS) == []
