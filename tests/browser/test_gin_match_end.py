"""A short Gin Rummy match against a bot, played to the end: the scoreboard adds the game,
line and shutout bonuses, and the room offers a rematch."""

from __future__ import annotations

import time

from tests.browser.conftest import screenshot
from tests.browser.flows import create_room, press_ready, state, version, wait_past

MATCH_SECONDS = 60


def play_one_move(page) -> bool:  # type: ignore[no-untyped-def]
    document = state(page)
    game = document["game"]
    table = game["tables"][0]
    if document["room"]["status"] != "playing" or table["turn"] != document["you"]["seat"]:
        return False
    before = version(page)
    if table["phase"] == "upcard_offer":
        page.click("#pass-upcard")
    elif table["phase"] == "draw":
        page.click("#stock")
    elif page.locator(".gin-button, .knock-button").count():
        page.locator(".gin-button, .knock-button").first.click()
    else:
        page.locator(".deadwood-group .card").last.dblclick()
    wait_past(page, before)
    return True


def test_a_gin_match_ends_with_bonuses_and_a_rematch(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    create_room(
        page,
        server_url,
        game="gin_rummy",
        name="Alice",
        bots={1: "easy"},
        options={"target": 1},
    )
    press_ready(page)
    page.wait_for_selector(".gin-table")
    deadline = time.monotonic() + MATCH_SECONDS
    while time.monotonic() < deadline:
        if state(page)["room"]["status"] == "finished":
            break
        if not play_one_move(page):
            time.sleep(0.05)
    assert state(page)["room"]["status"] == "finished"
    result = state(page)["game"]["result"]
    page.wait_for_selector("#match-winner")
    board = page.locator("#scoreboard").inner_text()
    for row in ("Game bonus", "Line bonus", "Shutout bonus", "Final score"):
        assert row in board
    for total in result["totals"]:
        assert str(total) in page.locator("#scoreboard tr.final").inner_text()
    screenshot(page, "gin-match-over")
    page.click("#rematch-button")
    page.wait_for_function("window.meldhall.store.state.room.status !== 'finished'")
