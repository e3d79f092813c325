"""Rummikub by taps and drags as a player expects: with a tile selected, a tap on a tile of a
meld places the selected tile there (no split handle in the way), and a run merged in the wrong
place is put in order; in both languages, on a phone and a desktop."""

from __future__ import annotations

import itertools
from typing import Any

from app.games.rummikub.melds import read_meld
from tests.browser.conftest import screenshot
from tests.browser.flows import RUMMIKUB_MY_TURN_OR_OVER, create_room, state, version, wait_past
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, SETTLED

MAX_DRAWS = 12


def a_run_on(rack: list[str]) -> list[str] | None:
    """Three rack tiles that make a run without a joker, lowest first."""
    for three in itertools.combinations(rack, 3):
        if any(tile.startswith("J") for tile in three):
            continue
        ordered = sorted(three, key=lambda tile: int(tile[1:-1]))
        if read_meld(ordered).kind == "run":
            return ordered
    return None


def settle(page: Any, before: int) -> None:
    wait_past(page, before)
    page.wait_for_function(SETTLED)


def tap(page: Any, selector: str, *, x_share: float = 0.5) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    page.mouse.click(box["x"] + box["width"] * x_share, box["y"] + box["height"] / 2)


@EVERY_LANGUAGE_AND_SIZE
def test_a_tap_places_the_selected_tile_and_a_merged_run_is_put_in_order(  # type: ignore[no-untyped-def]
    seeded_server_url, new_page, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    create_room(page, seeded_server_url, game="rummikub", name="Tess", bots={1: "easy"})
    page.wait_for_function(RUMMIKUB_MY_TURN_OR_OVER)
    run = a_run_on(state(page)["game"]["rack"])
    # Drawing until the rack holds a run (the seeded deal does at once).
    for _ in range(MAX_DRAWS):
        if run is not None:
            break
        before = version(page)
        page.keyboard.press("d")
        wait_past(page, before)
        page.wait_for_function(RUMMIKUB_MY_TURN_OR_OVER)
        run = a_run_on(state(page)["game"]["rack"])
    # The seeded deal holds one: a test that found none would test nothing.
    assert run is not None, f"no run of three on the rack after {MAX_DRAWS} draws"
    low, middle, high = run

    # The highest alone in a new meld (after any the bots laid), by taps.
    first = len(state(page)["game"]["table"])
    page.click(f'#rack .tile[data-tile="{high}"]')
    before = version(page)
    page.click("#new-meld")
    settle(page, before)
    # The lowest selected, then a tap on the right half of the tile in the meld: it is placed
    # in that meld, not selected instead, and the run is kept in order (low before high).
    page.click(f'#rack .tile[data-tile="{low}"]')
    assert page.locator("#rk-table .split").count() == 0, "a split handle under a placing tap"
    before = version(page)
    tap(page, f'#rk-table .tile[data-tile="{high}"]', x_share=0.8)
    settle(page, before)
    melds = state(page)["game"]["tentative"]["table"]
    assert melds[first]["tiles"] == [low, high], melds

    # The middle in a meld of its own, merged by dragging onto the end of the first: the run
    # is kept in order, the middle between the two.
    page.click(f'#rack .tile[data-tile="{middle}"]')
    before = version(page)
    page.click("#new-meld")
    settle(page, before)
    grip = page.locator(f'.meld[data-meld="{first + 1}"] .grip')
    target = page.locator(f'.meld[data-meld="{first}"]')
    box = target.bounding_box()
    assert box is not None
    before = version(page)
    grip.drag_to(target, target_position={"x": box["width"] - 4, "y": box["height"] / 3})
    settle(page, before)
    melds = state(page)["game"]["tentative"]["table"]
    assert [meld["tiles"] for meld in melds[first:]] == [[low, middle, high]], melds
    assert "valid" in target.get_attribute("class").split()
    screenshot(page, f"rummikub-taps-{locale}-{viewport['width']}", full_page=False)
