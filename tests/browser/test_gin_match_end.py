"""A short Gin Rummy match against a bot, played to the end: the scoreboard adds the game,
line and shutout bonuses, the banner shows each seat's rating change, and the room offers a
rematch."""

from __future__ import annotations

import re

import httpx

from tests.browser.conftest import screenshot
from tests.browser.flows import create_room, room_id, seat_token, state, version, wait_past
from tests.browser.phone import PHONE, assert_no_sideways_scroll

# The match is bounded by Alice's moves, not by the clock (which a loaded machine stretches):
# a hand gives her at most 17 draws, 17 discards and an upcard before its stock runs out, and
# with a target of 1 the first hand that is not a draw ends the match.
MAX_OWN_MOVES = 400
# Ample for the bot's turn (and a deal between hands) between two of Alice's moves.
BOT_TURN_MS = 60_000
MY_TURN_OR_OVER = """() => {
  const state = window.meldhall?.store?.state;
  if (!state?.game) return false;
  if (state.room.status === "finished") return true;
  return state.room.status === "playing" && state.game.tables[0].turn === state.you.seat;
}"""


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
    elif table["phase"] == "lay_off":
        page.click("#lay-off")
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
    # Alone with a bot, nobody has to say ready: the match starts at once.
    page.wait_for_selector(".gin-table")
    for _ in range(MAX_OWN_MOVES):
        page.wait_for_function(MY_TURN_OR_OVER, timeout=BOT_TURN_MS)
        if state(page)["room"]["status"] == "finished":
            break
        play_one_move(page)
    else:
        raise AssertionError(f"the match was still on after {MAX_OWN_MOVES} of Alice's moves")
    assert state(page)["room"]["status"] == "finished"
    result = state(page)["game"]["result"]
    page.wait_for_selector("#match-winner")
    # The winner's banner comes first on the table and is brought into view.
    page.wait_for_function(
        """() => { const box = document.querySelector('#match-banner').getBoundingClientRect();
                   return box.top >= 0 && box.bottom <= window.innerHeight; }"""
    )
    winner = page.locator("#match-winner").inner_text()
    won = r".+ wins the match, \d+ to \d+!|The match ends level, \d+ : \d+\."
    assert re.fullmatch(f"★ ({won})", winner), winner
    board = page.locator("#scoreboard").inner_text()
    for row in ("Game bonus", "Line bonus", "Shutout bonus", "Final score"):
        assert row in board
    for total in result["totals"]:
        assert str(total) in page.locator("#scoreboard tr.final").inner_text()
    screenshot(page, "gin-match-over")
    assert_rating_changes_shown(page, server_url)
    page.click("#rematch-button")
    page.wait_for_function("window.meldhall.store.state.room.status !== 'finished'")


def assert_rating_changes_shown(page, base: str) -> None:  # type: ignore[no-untyped-def]
    """Both seats (Alice's player and the rated bot) show the change the match record holds."""
    room = room_id(page)
    match_id = state(page)["room"]["match_id"]
    token = seat_token(page, room)["token"]
    record = httpx.get(
        f"{base}/api/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}
    ).json()
    expected = {c["seat"]: c["after"] - c["before"] for c in record["rating_changes"]}
    assert sorted(expected) == [0, 1]
    page.locator("#rating-changes li").first.wait_for()
    for seat, change in expected.items():
        line = page.locator(f'#rating-changes li[data-seat="{seat}"]')
        shown = line.locator(".delta").inner_text()
        assert re.fullmatch(r"[+-]\d+|±0", shown), shown
        assert int(shown.replace("±", "")) == change
    assert "Rating changes" in page.inner_text("#match-banner")
    screenshot(page, "gin-match-over-ratings", full_page=False)
    page.set_viewport_size(PHONE)
    page.locator("#match-banner").scroll_into_view_if_needed()
    screenshot(page, "gin-match-over-ratings-phone", full_page=False)
    assert_no_sideways_scroll(page)
