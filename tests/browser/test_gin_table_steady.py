"""The Gin Rummy table holds still when a pile's label changes ("Discard pile" becomes
"Discarded by ..."), and the Chinese page calls the defender by one word."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import REPO, screenshot
from tests.browser.flows import GIN_MY_TURN_OR_OVER, create_room
from tests.browser.phone import PHONE, SETTLED

DESKTOP = {"width": 1366, "height": 800}
MAX_OWN_MOVES = 6
PLACES = """() => ["#stock", "#discard-pile", ".gin-status"].map((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.width)];
})"""


@pytest.mark.parametrize(
    ("locale", "viewport"), [("zh-CN", PHONE), ("en-US", DESKTOP)], ids=["zh-phone", "en-desktop"]
)
def test_the_table_does_not_shift_when_the_discard_label_changes(  # type: ignore[no-untyped-def]
    server_url, new_page, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    create_room(page, server_url, game="gin_rummy", name="Stella", bots={1: "easy"})
    page.wait_for_function(GIN_MY_TURN_OR_OVER)
    page.wait_for_function(SETTLED)
    label = page.locator("#discard-pile .pile-label").inner_text()
    before = page.evaluate(PLACES)
    # Moves of one's own until the bot has discarded and the label says so.
    for _ in range(MAX_OWN_MOVES):
        if page.locator("#discard-pile .pile-label").inner_text() != label:
            break
        if page.locator("#pass-upcard").count():
            page.click("#pass-upcard")
        else:
            page.click("#stock")
            page.wait_for_selector("#my-hand .card[data-card]:not([disabled])")
            page.locator(".deadwood-group .card").last.dblclick()
        page.wait_for_function(GIN_MY_TURN_OR_OVER)
    assert page.locator("#discard-pile .pile-label").inner_text() != label
    page.wait_for_function(GIN_MY_TURN_OR_OVER)
    page.wait_for_function(SETTLED)
    screenshot(page, f"gin-steady-{locale}-{viewport['width']}", full_page=False)
    assert page.evaluate(PLACES) == before


def test_the_defender_has_one_chinese_word() -> None:
    table = (REPO / "static" / "js" / "lang" / "zh-CN.js").read_text(encoding="utf-8")
    word = re.search(r'"gin\.defender": "([^"]+)"', table)
    assert word is not None
    assert word.group(1) == "防守方"
    assert "对手" not in " ".join(re.findall(r'"gin\.[^"]+": "([^"]+)"', table))
