"""A person plays a whole Rummikub match against two bots through the page: laying a meld by
dragging tiles from the rack, splitting it and joining it again by drag (the table marks each
meld valid or invalid as it changes), ending the turn only when the table is valid, drawing,
and the round's scoring at the end."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.flows import a_meld_on, create_room, state, version, wait_past

# The match is bounded by turns, not by the clock (which a loaded machine stretches): each of
# Rita's turns draws one of the pool's 106 - 3 * 7 = 85 tiles, and once the pool is empty a
# circle of passes ends the match unless a bot lays tiles. Seven-tile racks end long before.
MAX_OWN_TURNS = 150
# Ample for the two bots' turns between two of Rita's, however loaded the machine.
BOT_TURNS_MS = 60_000
MY_TURN_OR_OVER = """() => {
  const game = window.meldhall?.store?.state?.game;
  return Boolean(game) && (game.phase !== "playing" || game.turn.seat === 0);
}"""


def drag(page, source: str, target: str, **where) -> None:  # type: ignore[no-untyped-def]
    before = version(page)
    page.locator(source).drag_to(page.locator(target), **where)
    wait_past(page, before)


def meld_count(page) -> int:  # type: ignore[no-untyped-def]
    return page.locator("#rk-table .meld").count()


def lay_split_and_join(page, tiles: list[str]) -> None:  # type: ignore[no-untyped-def]
    first = meld_count(page)
    drag(page, f'#rack .tile[data-tile="{tiles[0]}"]', "#new-meld")
    for tile in tiles[1:]:
        drag(page, f'#rack .tile[data-tile="{tile}"]', f'.meld[data-meld="{first}"]')
    laid = page.locator(f'.meld[data-meld="{first}"]')
    assert "valid" in laid.get_attribute("class").split()
    assert page.locator("#end-turn").is_enabled()
    assert page.locator("#initial-points").count() in (0, 1)

    # A tile of the meld selected, the split button under it cuts the meld before that tile.
    laid.locator(".tile").nth(1).click()
    before = version(page)
    laid.locator("button.split").click()
    wait_past(page, before)
    assert meld_count(page) == first + 2
    left, right = (
        page.locator(f'.meld[data-meld="{first}"]'),
        page.locator(f'.meld[data-meld="{first + 1}"]'),
    )
    assert "invalid" in left.get_attribute("class").split()
    assert "invalid" in right.get_attribute("class").split()
    assert left.locator(".meld-mark.bad").inner_text().strip() != ""
    assert page.locator("#end-turn").is_disabled()
    # What is wrong names the meld, not the server's first complaint.
    assert page.locator("#problem").inner_text().startswith(f"Meld {first + 1} (")
    screenshot(page, "rummikub-invalid-after-split")

    box = right.bounding_box()
    drag(
        page,
        f'.meld[data-meld="{first}"] .grip',
        f'.meld[data-meld="{first + 1}"]',
        target_position={"x": 3, "y": box["height"] / 2},
    )
    assert meld_count(page) == first + 1
    joined = page.locator(f'.meld[data-meld="{first}"]')
    assert "valid" in joined.get_attribute("class").split()
    assert sorted(t.get_attribute("data-tile") for t in joined.locator(".tile").all()) == sorted(
        tiles
    )
    screenshot(page, "rummikub-rearranged")
    before = version(page)
    page.click("#end-turn")
    wait_past(page, before)


def place_and_undo_by_keys(page) -> None:  # type: ignore[no-untyped-def]
    """A rack tile to a new meld in three keys (focus, Enter, N), then U takes the turn back."""
    rack = state(page)["game"]["rack"]
    page.locator("#rack .tile").first.focus()
    tile = page.evaluate("document.activeElement.dataset.tile")
    page.keyboard.press("Enter")
    assert page.locator(f'#rack .tile[data-tile="{tile}"]').get_attribute("aria-pressed") == "true"
    before = version(page)
    page.keyboard.press("n")
    wait_past(page, before)
    assert [tile] in [meld["tiles"] for meld in state(page)["game"]["tentative"]["table"]]
    before = version(page)
    page.keyboard.press("u")
    wait_past(page, before)
    assert sorted(state(page)["game"]["rack"]) == sorted(rack)


def table_tile_refused_on_the_rack(page) -> None:  # type: ignore[no-untyped-def]
    """A tile that was on the table before this turn, dropped on the rack, stays and is said
    to have to stay."""
    tile = page.locator("#rk-table .tile").first
    name = tile.get_attribute("data-tile")
    tile.drag_to(page.locator("#rack"))
    refusal = page.locator('.toast-error[data-code="tile_not_laid_this_turn"]')
    refusal.wait_for()
    assert "this turn" in refusal.inner_text()
    assert page.locator(f'#rk-table .tile[data-tile="{name}"]').count() == 1


def test_a_person_plays_rummikub_against_bots_with_drags(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    create_room(
        page,
        server_url,
        game="rummikub",
        name="Rita",
        players=3,
        bots={1: "easy", 2: "normal"},
        options={"initial_meld_points": 1, "tiles_per_player": 7},
    )
    page.wait_for_selector(".rummikub")
    screenshot(page, "rummikub-table")

    laid = by_keys = refused = False
    for _ in range(MAX_OWN_TURNS):
        page.wait_for_function(MY_TURN_OR_OVER, timeout=BOT_TURNS_MS)
        game = state(page)["game"]
        if game["phase"] != "playing":
            break
        page.wait_for_selector("#draw-tile, #pass-turn")
        if not by_keys:
            place_and_undo_by_keys(page)
            by_keys = True
        if laid and not refused and game["table"]:
            table_tile_refused_on_the_rack(page)
            refused = True
        meld = None if laid else a_meld_on(game["rack"])
        if meld:
            lay_split_and_join(page, meld)
            laid = True
            continue
        before = version(page)
        page.click("#draw-tile, #pass-turn")
        wait_past(page, before)
    else:
        raise AssertionError(f"the match was still on after {MAX_OWN_TURNS} of Rita's turns")

    assert laid, "no three-tile meld came to the rack in the whole match"
    assert refused, "the match ended before a turn after the meld was laid"
    page.wait_for_selector("#round-result")
    assert state(page)["game"]["phase"] == "match_over"
    assert page.locator("#match-winner").is_visible()
    page.wait_for_function(
        """() => { const box = document.querySelector('#match-banner').getBoundingClientRect();
                   return box.top >= 0 && box.bottom <= window.innerHeight; }"""
    )
    assert page.locator("#round-result .racks li").count() == 3
    screenshot(page, "rummikub-match-over")
    assert page.console_errors == []
