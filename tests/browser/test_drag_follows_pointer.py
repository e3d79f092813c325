"""While a card or tile is dragged, its copy lies under the pointer (or the finger), inside the
screen, in both games, in both languages, on a desktop and on a phone."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import screenshot
from tests.browser.flows import GIN_MY_TURN_OR_OVER, RUMMIKUB_MY_TURN_OR_OVER, create_room
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, PHONE, SETTLED, touch_input


# A phone is touched with a finger; a desktop is used with a mouse.
def screen(viewport: dict[str, int]) -> dict[str, Any]:
    if viewport == PHONE:
        return {"viewport": viewport, "has_touch": True, "is_mobile": True}
    return {"viewport": viewport}


# Where the first shown piece's centre is, measured at once: a redraw may replace the element,
# with one just like it in the same place, between a lookup and a measure.
CENTRE = """(selector) => {
  const piece = [...document.querySelectorAll(selector)].find((el) => el.getClientRects().length);
  if (!piece) return null;
  const r = piece.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""
SCROLL_TO = """(selector) => [...document.querySelectorAll(selector)]
  .find((el) => el.getClientRects().length)?.scrollIntoView({block: "center"})"""


# The dragged copy's box, or null while there is none.
GHOST_BOX = """() => {
  const ghost = document.querySelector(".drag-ghost");
  if (!ghost) return null;
  const r = ghost.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
}"""


def centre(page: Any, selector: str) -> tuple[float, float]:
    page.evaluate(SCROLL_TO, selector)
    page.wait_for_function(SETTLED)
    point = page.evaluate(CENTRE, selector)
    assert point is not None, selector
    return point[0], point[1]


def assert_under(page: Any, x: float, y: float) -> None:
    box = page.evaluate(GHOST_BOX)
    assert box is not None, "no dragged copy"
    size = page.viewport_size
    assert box["left"] >= -1, box
    assert box["right"] <= size["width"] + 1, box
    assert box["top"] >= -1, box
    assert box["bottom"] <= size["height"] + 1, box
    assert box["left"] <= x <= box["right"], (x, box)
    assert box["top"] <= y <= box["bottom"], (x, y, box)


def mouse_drag_check(page: Any, selector: str, name: str) -> None:
    x, y = centre(page, selector)
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 6):
        page.mouse.move(x + 8 * step, y - 20 * step)
    assert_under(page, x + 40, y - 100)
    screenshot(page, name, full_page=False)
    # Back where it started: nothing is dropped.
    page.mouse.move(x, y)
    page.mouse.up()


def touch_drag_check(page: Any, selector: str, name: str) -> None:
    x, y = centre(page, selector)
    with touch_input(page) as touch:
        touch("touchStart", [{"x": x, "y": y}])
        for step in range(1, 6):
            touch("touchMove", [{"x": x + 6 * step, "y": y - 24 * step}])
        assert_under(page, x + 30, y - 120)
        screenshot(page, name, full_page=False)
        touch("touchMove", [{"x": x, "y": y}])
        touch("touchEnd", [])


@EVERY_LANGUAGE_AND_SIZE
def test_a_dragged_card_follows_the_pointer(server_url, new_page, locale, viewport) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale, **screen(viewport))
    create_room(page, server_url, game="gin_rummy", name="Dora", bots={1: "easy"})
    # On one's turn the table holds still until one moves.
    page.wait_for_function(GIN_MY_TURN_OR_OVER)
    page.wait_for_function(SETTLED)
    card = "#my-hand .card[data-card]"
    if viewport == PHONE:
        touch_drag_check(page, card, f"drag-card-{locale}-phone")
    else:
        mouse_drag_check(page, card, f"drag-card-{locale}-desktop")


@EVERY_LANGUAGE_AND_SIZE
def test_a_dragged_tile_follows_the_pointer(server_url, new_page, locale, viewport) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale, **screen(viewport))
    create_room(page, server_url, game="rummikub", name="Rita", bots={1: "easy"})
    page.wait_for_function(RUMMIKUB_MY_TURN_OR_OVER)
    page.wait_for_function(SETTLED)
    tile = "#rack .tile[data-tile]"
    if viewport == PHONE:
        touch_drag_check(page, tile, f"drag-tile-{locale}-phone")
    else:
        mouse_drag_check(page, tile, f"drag-tile-{locale}-desktop")
