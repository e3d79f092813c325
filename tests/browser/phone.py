"""Checks of what a player sees on a screen: nothing runs off to the side, every card or tile of
one's own is whole and on top, a control is on screen; a finger's drag; and the screens and
languages the table is checked in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}

# Each language on each screen: English and Chinese on a phone and on a desktop.
EVERY_LANGUAGE_AND_SIZE = pytest.mark.parametrize(
    ("locale", "viewport"),
    [("en-US", DESKTOP), ("zh-CN", PHONE), ("zh-CN", DESKTOP), ("en-US", PHONE)],
    ids=["en-desktop", "zh-phone", "zh-desktop", "en-phone"],
)

# No animation running: the moves' fly-ins (static/js/views/motion.js) have finished.
SETTLED = """() => document.getAnimations().every((a) => a.playState !== "running")"""

NO_SIDEWAYS_SCROLL = """() => [document.documentElement.scrollWidth, window.innerWidth]"""

# Each element's box, and whether the element itself is what a tap at its centre (and near each
# corner of its face) would hit: overlapped or cut-off cards fail.
BOXES = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  el.scrollIntoView({block: "nearest", inline: "nearest"});
  const r = el.getBoundingClientRect();
  const points = [[0.5, 0.5], [0.15, 0.15], [0.85, 0.15], [0.15, 0.85], [0.85, 0.85]];
  const hits = points.every(([fx, fy]) => {
    const hit = document.elementFromPoint(r.left + r.width * fx, r.top + r.height * fy);
    return hit !== null && (hit === el || el.contains(hit));
  });
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, hits,
          name: el.dataset.card ?? el.dataset.tile ?? el.id};
})"""


def assert_no_sideways_scroll(page: Any) -> None:
    content, window = page.evaluate(NO_SIDEWAYS_SCROLL)
    assert window == page.viewport_size["width"], "the page widened the phone's layout viewport"
    assert content <= window, f"the page is {content} px wide on a {window} px screen"


def assert_whole_and_on_top(page: Any, selector: str, *, at_least: int = 1) -> list[dict[str, Any]]:
    """Every element matching `selector` lies inside the screen's width, is not narrowed, and is
    not covered by anything (another card, a panel, the screen's edge), once what is moving
    has landed (a card or tile in flight passes over the others for a moment)."""
    page.wait_for_function(SETTLED)
    boxes = page.evaluate(BOXES, selector)
    assert len(boxes) >= at_least, (selector, boxes)
    width = page.viewport_size["width"]
    widths = {round(box["width"]) for box in boxes}
    for box in boxes:
        assert box["left"] >= 0, box
        assert box["right"] <= width, box
        assert box["hits"], f"{box['name']} is covered or cut off: {box}"
    assert max(widths) - min(widths) <= 1, f"some are narrowed: {widths}"
    return boxes


def assert_on_screen(page: Any, selector: str) -> None:
    """The element is inside the screen as it is now, without scrolling."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    size = page.viewport_size
    assert box["x"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"], (selector, box)
    assert box["y"] >= 0, (selector, box)
    assert box["y"] + box["height"] <= size["height"], (selector, box)


@contextmanager
def touch_input(page: Any) -> Iterator[Callable[[str, list[dict[str, float]]], None]]:
    """Chromium's touch input for the page: send(kind, points) with kind touchStart,
    touchMove or touchEnd; the page sees touch pointer events, as on a phone."""
    cdp = page.context.new_cdp_session(page)
    try:
        yield lambda kind, points: cdp.send(
            "Input.dispatchTouchEvent", {"type": kind, "touchPoints": points}
        )
    finally:
        cdp.detach()


def touch_drag(page: Any, source: str, target: str, *, steps: int = 8) -> None:
    """A finger pressing on `source` and lifting on `target` (centres), through Chromium's touch
    input: the page sees touch pointer events, as on a phone."""
    start = page.locator(source).bounding_box()
    end = page.locator(target).bounding_box()
    assert start is not None
    assert end is not None
    x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    x1, y1 = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    with touch_input(page) as touch:
        touch("touchStart", [{"x": x0, "y": y0}])
        for step in range(1, steps + 1):
            x = x0 + (x1 - x0) * step / steps
            y = y0 + (y1 - y0) * step / steps
            touch("touchMove", [{"x": x, "y": y}])
        touch("touchEnd", [])
