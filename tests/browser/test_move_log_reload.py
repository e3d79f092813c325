"""A page reloaded mid-hand rebuilds its move log and the other player's "Last:" mark from the
server's log of the match, in both languages, on a desktop and a phone."""

from __future__ import annotations

from tests.browser.api_seats import Seat
from tests.browser.conftest import screenshot
from tests.browser.flows import (
    GIN_MY_TURN_OR_OVER,
    create_room,
    room_id,
    seat_token,
    state,
    wait_past,
)
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE
from tests.browser.rated_matches import quick_move

OWN_MOVES = 5


@EVERY_LANGUAGE_AND_SIZE
def test_the_move_log_and_last_marks_come_back_after_a_reload(  # type: ignore[no-untyped-def]
    server_url, new_page, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    create_room(page, server_url, game="gin_rummy", name="Lena", bots={1: "easy"})
    room = room_id(page)
    mine = Seat(server_url, room, seat_token(page, room)["token"])
    for _ in range(OWN_MOVES):
        page.wait_for_function(GIN_MY_TURN_OR_OVER)
        document = state(page)
        if document["room"]["status"] != "playing":
            break
        done = mine.act(quick_move(document["game"]["me"]["hand"], document["you"]["legal"]))
        # The page holds the move before it is asked whose turn it is: a page still showing
        # the turn just played would let the bot move while the log is read.
        wait_past(page, done - 1)
    page.wait_for_function(GIN_MY_TURN_OR_OVER)
    page.wait_for_selector("#last-move-1")
    log_before = page.locator("#move-log li").all_text_contents()
    last_before = page.locator("#last-move-1").inner_text()
    assert len(log_before) >= 4, log_before

    page.reload()
    page.wait_for_selector("#last-move-1")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#move-log li').length >= n", arg=len(log_before)
    )
    # The newest moves are the same; the server's log may hold moves that two documents sent
    # together left out of the live log, never fewer.
    log_after = page.locator("#move-log li").all_text_contents()
    assert log_after[-3:] == log_before[-3:], (log_before, log_after)
    assert page.locator("#last-move-1").inner_text() == last_before
    screenshot(page, f"move-log-after-reload-{locale}-{viewport['width']}")
