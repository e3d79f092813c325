"""The Gin Rummy table holds still when a pile's label changes ("Discard pile" becomes
"Discarded by ..."), and the Chinese page calls the defender by one word."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import REPO, screenshot
from tests.browser.flows import GIN_MY_TURN_OR_OVER, create_room, version, wait_past
from tests.browser.phone import PHONE, SETTLED

DESKTOP = {"width": 1366, "height": 800}
MAX_OWN_MOVES = 6
# A hand the bot ends before it has discarded once (a knock from its first draw) shows one
# label only; the next hand is dealt then, up to this many.
MAX_HANDS = 4
# Records the discard pile's label and the centre's places after every change of the page, from
# now on (what an earlier hand showed is dropped).
WATCH = """() => {
  window.pilesSeen = [];
  const note = () => {
    const label = document.querySelector("#discard-pile .pile-label");
    const parts = ["#stock", "#discard-pile", ".gin-status"].map((s) => document.querySelector(s));
    if (!label || parts.some((part) => !part)) return;
    const places = parts.map((part) => {
      const r = part.getBoundingClientRect();
      return [Math.round(r.left), Math.round(r.width)];
    });
    window.pilesSeen.push([label.textContent, places]);
  };
  if (!window.pilesWatch) {
    window.pilesWatch = new MutationObserver(note);
    window.pilesWatch.observe(document.getElementById("view"), {childList: true, subtree: true});
  }
  note();
}"""


def play_one_hand(page) -> set[str]:  # type: ignore[no-untyped-def]
    """Draws and discards (or passes the upcard) until the hand ends or MAX_OWN_MOVES are made,
    watching the centre all along; returns the discard pile's labels seen."""
    page.evaluate(WATCH)
    for _ in range(MAX_OWN_MOVES):
        if page.evaluate("window.meldhall.store.state.room.status") != "playing":
            break
        # Each move is waited for until the page holds it: until then the page still shows
        # the turn just played, and its buttons are about to be drawn again.
        if page.locator("#pass-upcard").count():
            before = version(page)
            page.click("#pass-upcard")
        else:
            drawn = version(page)
            page.click("#stock")
            wait_past(page, drawn)
            page.wait_for_selector("#my-hand .card[data-card]:not([disabled])")
            before = version(page)
            page.locator(".deadwood-group .card").last.dblclick()
        wait_past(page, before)
        page.wait_for_function(GIN_MY_TURN_OR_OVER)
        page.wait_for_function(SETTLED)
    return {label for label, _ in page.evaluate("window.pilesSeen")}


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
    # Every redraw's label and places in one hand, as the page makes them.
    for _ in range(MAX_HANDS):
        labels = play_one_hand(page)
        status = page.evaluate("window.meldhall.store.state.room.status")
        if len(labels) >= 2 or status != "between_hands":
            break
        dealt = version(page)
        page.click("#next-hand-button")
        wait_past(page, dealt)
        page.wait_for_selector("#hand-outcome", state="detached")
        page.wait_for_function(GIN_MY_TURN_OR_OVER)
        page.wait_for_function(SETTLED)
    seen = page.evaluate("window.pilesSeen")
    assert len(labels) >= 2, labels
    assert all(places == seen[0][1] for _, places in seen), seen
    screenshot(page, f"gin-steady-{locale}-{viewport['width']}", full_page=False)


def test_the_defender_has_one_chinese_word() -> None:
    table = (REPO / "static" / "js" / "lang" / "zh-CN.js").read_text(encoding="utf-8")
    word = re.search(r'"gin\.defender": "([^"]+)"', table)
    assert word is not None
    assert word.group(1) == "防守方"
    assert "对手" not in " ".join(re.findall(r'"gin\.[^"]+": "([^"]+)"', table))
