"""What the table tells a player on a desktop: a Gin Rummy hand played by keyboard alone (a key
or two a move), the bot's last move marked, animated and logged, the tab title and the screen
reader following the turn, the hand reordered by dragging, the result in view with a countdown
to the next hand; an absent player shown offline with the time left, and the bot offered only
once it is allowed; the table settings (colour-blind aid, less motion) kept."""

from __future__ import annotations

import re

from tests.browser.conftest import screenshot
from tests.browser.flows import (
    GIN_MY_TURN_OR_OVER,
    create_room,
    join_by_link,
    press_ready,
    state,
    version,
    wait_past,
)

# A hand has at most 17 draws of the stock for each player before it ends in a draw.
MAX_OWN_MOVES = 60
BOT_TURN_MS = 60_000
IN_VIEW = """(selector) => {
  const box = document.querySelector(selector)?.getBoundingClientRect();
  return Boolean(box) && box.top >= 0 && box.top < window.innerHeight - 80;
}"""


def key(page, name: str) -> None:  # type: ignore[no-untyped-def]
    before = version(page)
    page.keyboard.press(name)
    wait_past(page, before)


def one_move_by_keys(page) -> str:  # type: ignore[no-untyped-def]
    """The player's move with the keyboard only: P passes the upcard, S draws from the stock, K
    knocks (or goes gin) or, against a knock, lays off, End then D discards the last card of
    the hand."""
    table = state(page)["game"]["tables"][0]
    if table["phase"] == "lay_off":
        key(page, "k")
        return "lay_off"
    if table["phase"] == "upcard_offer":
        key(page, "p")
        return "pass"
    if table["phase"] == "draw":
        key(page, "s")
        return "draw"
    if page.locator(".knock-button, .gin-button").count():
        key(page, "k")
        return "end"
    page.locator("#my-hand .card").first.focus()
    page.keyboard.press("End")
    focused = page.evaluate("document.activeElement.dataset.card")
    assert focused == page.locator("#my-hand .card").last.get_attribute("data-card")
    key(page, "d")
    assert focused not in state(page)["game"]["me"]["hand"]
    return "discard"


def reorder_by_drag(page) -> None:  # type: ignore[no-untyped-def]
    """The last card of the hand dragged before the first: the hand keeps the player's order."""
    last = page.locator("#my-hand .card").last
    card = last.get_attribute("data-card")
    first = page.locator("#my-hand .card").first.bounding_box()
    last.drag_to(page.locator("#my-hand"), target_position={"x": 4, "y": 60})
    page.wait_for_selector("#my-hand .hand-row")
    assert page.locator("#my-hand .card").first.get_attribute("data-card") == card, first
    assert page.locator("#sort-melds").is_visible()
    page.click("#sort-melds")
    page.wait_for_selector("#my-hand .hand-groups")


def test_a_gin_hand_by_keyboard_with_the_bots_moves_shown(new_page, seeded_server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    create_room(page, seeded_server_url, game="gin_rummy", name="Alice", bots={1: "easy"})
    page.wait_for_selector(".gin-table")
    moves: list[str] = []
    checked_marks = reordered = False
    for _ in range(MAX_OWN_MOVES):
        page.wait_for_function(GIN_MY_TURN_OR_OVER, timeout=BOT_TURN_MS)
        if state(page)["room"]["status"] != "playing":
            break
        assert page.evaluate("document.title") == "▶ Your turn · meldhall"
        mark = page.locator(".card.last-move")
        if not checked_marks and mark.count():
            # Marked on the table, in words beside the bot's hand and in the log; animated
            # (motion is allowed here) and said to a screen reader.
            assert page.locator("#last-move-1").inner_text().startswith("Last: ")
            assert mark.first.evaluate("el => getComputedStyle(el).animationName") == "last-move"
            assert page.locator("#move-log li").count() >= 1
            page.wait_for_function("document.querySelector('#announcer').textContent !== ''")
            screenshot(page, "desktop-gin-en", full_page=False)
            page.select_option("#lang", "zh-CN")
            page.wait_for_selector("text=出牌记录")
            screenshot(page, "desktop-gin-zh", full_page=False)
            page.select_option("#lang", "en")
            page.wait_for_selector("text=Moves")
            checked_marks = True
        if not reordered and len(state(page)["game"]["me"]["hand"]) == 10:
            reorder_by_drag(page)
            reordered = True
        moves.append(one_move_by_keys(page))
    else:
        raise AssertionError(f"the hand was still on after {MAX_OWN_MOVES} of Alice's moves")
    assert checked_marks
    assert reordered
    assert "discard" in moves

    # The hand's result is brought into view, with the countdown to the next and a button to
    # deal it now (Alice is alone with a bot).
    page.wait_for_selector("#hand-outcome")
    page.wait_for_function(IN_VIEW, arg="#hand-outcome")
    assert re.fullmatch(r"Next hand in \d+ s", page.locator("#next-hand .countdown").inner_text())
    assert page.locator("#next-hand-button").inner_text() == "Deal the next hand"
    assert page.evaluate("document.title") == "meldhall"
    screenshot(page, "desktop-gin-result-en", full_page=False)
    page.select_option("#lang", "zh-CN")
    page.wait_for_function(
        "document.querySelector('#next-hand .countdown').textContent.includes('秒后开始下一局')"
    )
    screenshot(page, "desktop-gin-result-zh", full_page=False)
    summary = page.locator("#hand-outcome .summary").inner_text()
    before = state(page)["game"]["hand_number"]
    page.click("#next-hand-button")
    page.wait_for_function(f"window.meldhall.store.state.game.hand_number > {before}")
    page.wait_for_selector("#hand-outcome", state="detached")
    # The result left the table with the deal, and stays in the move log.
    assert page.locator("#move-log li.note").last.inner_text() == summary
    assert page.console_errors == []


def test_an_absent_player_is_shown_offline_until_a_bot_may_take_over(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    alice = new_page("zh-CN")
    bob = new_page("en-US")
    link = create_room(alice, server_url, game="gin_rummy", name="Alice")
    join_by_link(bob, link, "Bob")
    press_ready(alice)
    press_ready(bob)
    alice.wait_for_selector(".gin-table")
    bob.wait_for_selector(".gin-table")
    bob.close()

    badge = alice.locator('.seat[data-seat="1"] .badge.offline')
    badge.wait_for()
    # Within the grace: the time left, and no bot offered (the server would refuse one).
    assert re.fullmatch(r"离线 · \d+ 秒", badge.inner_text())
    assert alice.locator(".seat-to-bot").count() == 0
    screenshot(alice, "offline-badge-zh", full_page=False)

    # Once the grace is over the offer appears; taking it gives the seat to a bot.
    alice.locator(".seat-to-bot").click()
    alice.wait_for_function("window.meldhall.store.state.room.seats[1].kind === 'bot'")
    assert alice.locator('.seat[data-seat="1"] .badge.offline').count() == 0
    assert alice.console_errors == []


def test_the_table_settings_are_kept(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US", reduced_motion="reduce")
    page.goto(f"{server_url}/rules")
    page.wait_for_selector("#rules-rummikub .tile")
    # The system asks for less motion: the setting follows it until the player chooses.
    assert page.evaluate("document.documentElement.classList.contains('motion-off')")
    shape = page.locator("#rules-rummikub .example .tile .shape").first
    assert not shape.is_visible()
    page.click("#prefs summary")
    assert page.is_checked("#pref-motion")
    page.check("#pref-colour")
    page.uncheck("#pref-motion")
    page.check("#pref-sound")
    assert shape.is_visible()
    assert not page.evaluate("document.documentElement.classList.contains('motion-off')")
    # Four colours: diamonds blue, clubs green, beside red hearts and black spades.
    colours = page.locator("#rules-gin_rummy .example .card").evaluate_all(
        "cards => [...new Set(cards.map((c) => getComputedStyle(c).color))]"
    )
    assert len(colours) == 4
    screenshot(page, "colour-aid")
    page.reload()
    page.wait_for_selector("#rules-rummikub .tile")
    assert page.evaluate("document.documentElement.classList.contains('colour-aid')")
    assert not page.evaluate("document.documentElement.classList.contains('motion-off')")
    page.click("#prefs summary")
    assert page.is_checked("#pref-sound")
