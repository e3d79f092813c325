"""Every control a finger can reach on the lobby and the tables (the header's settings and
language, the move log's header, the buttons and menus, the cards, the tiles and the meld's
grip and split) is at least 44 x 44 px, in both languages, on a phone and a desktop. A card or
a tile may take a finger beyond its face: what is measured is where a tap lands on it, which
must not reach another."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.flows import (
    GIN_MY_TURN_OR_OVER,
    RUMMIKUB_MY_TURN_OR_OVER,
    create_room,
    state,
    version,
    wait_past,
)
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, SETTLED

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
# Where a tap lands on each visible piece (its box, widened by a ::before that reaches past it):
# pieces smaller than 44 px either way, taps near a piece's edges that land elsewhere, and two
# pieces whose areas overlap, named.
FINGER_AREAS = """(selector) => {
  const pieces = [...document.querySelectorAll(selector)]
    .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden");
  const name = (el) => el.dataset?.tile || el.dataset?.card || el.id || el.className || el.tagName;
  const area = (el) => {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const before = getComputedStyle(el, "::before");
    if (before.content === "none" || before.position !== "absolute") return r;
    const left = r.left + parseFloat(style.borderLeftWidth) + parseFloat(before.left);
    const top = r.top + parseFloat(style.borderTopWidth) + parseFloat(before.top);
    return {left: Math.min(r.left, left), right: Math.max(r.right, left + parseFloat(before.width)),
            top: Math.min(r.top, top), bottom: Math.max(r.bottom, top + parseFloat(before.height))};
  };
  const problems = [];
  const areas = [];
  for (const el of pieces) {
    el.scrollIntoView({block: "center", inline: "nearest"});
    const a = area(el);
    const width = a.right - a.left;
    const height = a.bottom - a.top;
    if (width < 43.5 || height < 43.5) {
      problems.push(`${name(el)}: ${Math.round(width)}x${Math.round(height)}`);
    }
    const middle = [(a.left + a.right) / 2, (a.top + a.bottom) / 2];
    const edges = [[a.left + 1, middle[1]], [a.right - 1, middle[1]],
                   [middle[0], a.top + 1], [middle[0], a.bottom - 1]];
    for (const [x, y] of edges) {
      const hit = document.elementFromPoint(x, y);
      if (!hit || hit.closest(selector) !== el) {
        problems.push(`${name(el)}: a tap at ${Math.round(x)},${Math.round(y)} lands on ${
          hit ? name(hit.closest(selector) ?? hit) : "nothing"}`);
      }
    }
    areas.push([name(el), {left: a.left + scrollX, right: a.right + scrollX,
                           top: a.top + scrollY, bottom: a.bottom + scrollY}]);
  }
  for (const [i, [first, a]] of areas.entries()) {
    for (const [second, b] of areas.slice(i + 1)) {
      const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (across > 0.5 && down > 0.5) problems.push(`${first} overlaps ${second}`);
    }
  }
  return {count: pieces.length, problems};
}"""


def assert_fingers_fit(page, selector: str, *, at_least: int) -> None:  # type: ignore[no-untyped-def]
    # The pointer away from the pieces: a hovered card or tile rises a little.
    page.mouse.move(0, 0)
    page.wait_for_function(SETTLED)
    measured = page.evaluate(FINGER_AREAS, selector)
    assert measured["count"] >= at_least, (selector, measured)
    assert measured["problems"] == [], selector


@EVERY_LANGUAGE_AND_SIZE
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
    # The hand, the stock and the discard pile's top card.
    assert_fingers_fit(page, "button.card", at_least=11)


@EVERY_LANGUAGE_AND_SIZE
def test_tiles_and_meld_handles_are_big_enough_for_a_finger(  # type: ignore[no-untyped-def]
    server_url, new_page, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    create_room(page, server_url, game="rummikub", name="Tove", bots={1: "easy"})
    page.wait_for_function(RUMMIKUB_MY_TURN_OR_OVER)
    assert state(page)["game"]["phase"] == "playing"
    # Two rack tiles laid in a new meld by taps: the meld has its grip, and with its second tile
    # selected, the split under it.
    first, second = state(page)["game"]["rack"][:2]
    meld = len(state(page)["game"]["table"])
    page.click(f'#rack .tile[data-tile="{first}"]')
    before = version(page)
    page.click("#new-meld")
    wait_past(page, before)
    page.click(f'#rack .tile[data-tile="{second}"]')
    before = version(page)
    page.click(f'.meld[data-meld="{meld}"]', position={"x": 4, "y": 4})
    wait_past(page, before)
    page.wait_for_selector(f'.meld[data-meld="{meld}"] .grip:not(.resting)')
    assert_fingers_fit(page, "#rack button.tile, #rk-table button.tile", at_least=14)
    assert_fingers_fit(page, "#rk-table .grip", at_least=1)
    tiles = state(page)["game"]["tentative"]["table"][meld]["tiles"]
    box = page.locator(f'.meld[data-meld="{meld}"]').bounding_box()
    page.click(f'#rk-table .tile[data-tile="{tiles[1]}"]')
    page.wait_for_selector(f'.meld[data-meld="{meld}"] button.split')
    # The split takes the resting grip's room: the meld keeps its size.
    selected = page.locator(f'.meld[data-meld="{meld}"]').bounding_box()
    assert box is not None
    assert selected is not None
    assert (selected["width"], selected["height"]) == (box["width"], box["height"])
    screenshot(page, f"touch-targets-rummikub-{locale}-{viewport['width']}", full_page=False)
    assert_fingers_fit(page, "#rk-table button.split", at_least=1)
    assert page.evaluate(SMALL, CONTROLS) == []
