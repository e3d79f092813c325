"""Two people play Gin Rummy against each other through the page, one in English and one in
Chinese: create, invite, join, the upcard offer, drawing and discarding by click and by drag,
knocking when the page offers it, and the hand's end with both hands laid out."""

from __future__ import annotations

import time

import httpx

from tests.browser.conftest import screenshot
from tests.browser.flows import (
    create_room,
    join_by_link,
    press_ready,
    room_id,
    seat_token,
    state,
    version,
    wait_past,
)

MAX_MOVES = 160
WAYS = ("click", "drag", "keyboard")


def gin_table(page):  # type: ignore[no-untyped-def]
    return state(page)["game"]["tables"][0]


def offered_endings(page) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    found = set()
    for kind in ("knock-button", "gin-button"):
        for button in page.locator(f".{kind}[data-card]").all():
            found.add(
                ("gin" if kind == "gin-button" else "knock", button.get_attribute("data-card"))
            )
    return found


def server_endings(base: str, page) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    room = room_id(page)
    token = seat_token(page, room)["token"]
    legal = httpx.get(
        f"{base}/api/rooms/{room}/legal", headers={"Authorization": f"Bearer {token}"}
    ).json()["actions"]
    return {(a["type"], a["card"]) for a in legal if a["type"] in ("knock", "gin")}


def move(page, base: str, way: str) -> str | None:  # type: ignore[no-untyped-def]
    """One move for this page's seat if it is to play, by click, drag or keyboard."""
    document = state(page)
    table = document["game"]["tables"][0]
    if table["phase"] == "over" or table["turn"] != document["you"]["seat"]:
        return None
    if table["phase"] == "upcard_offer":
        page.click("#pass-upcard")
        return "pass"
    if table["phase"] == "lay_off":
        page.click("#lay-off")
        return "lay_off"
    if table["phase"] == "draw":
        if way == "drag":
            page.locator("#stock").drag_to(page.locator("#my-hand"))
        elif way == "keyboard":
            page.focus("#stock")
            page.keyboard.press("Enter")
        else:
            page.click("#stock")
        return "draw"
    assert offered_endings(page) == server_endings(base, page)
    for kind in ("gin-button", "knock-button"):
        if page.locator(f".{kind}").count():
            page.locator(f".{kind}").first.click()
            return kind
    worst = page.locator(".deadwood-group .card").last
    if way == "drag":
        worst.drag_to(page.locator("#discard-pile"))
    elif way == "keyboard":
        card = worst.get_attribute("data-card")
        worst.focus()
        page.keyboard.press("Enter")
        chosen = page.locator(f'#my-hand .card[data-card="{card}"]')
        assert chosen.get_attribute("aria-pressed") == "true"
        assert page.evaluate("document.activeElement.dataset.card") == card
        page.focus("#discard-button")
        page.keyboard.press("Enter")
    else:
        worst.click()
        page.click("#discard-button")
    return "discard"


def test_two_people_play_a_hand_of_gin_through_the_page(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    alice = new_page("en-US")
    ming = new_page("zh-CN")
    link = create_room(alice, server_url, game="gin_rummy", name="Alice")
    screenshot(alice, "gin-waiting-room")
    assert "/r/" in link
    join_by_link(ming, link, "小明")
    assert ming.locator("h1").first.inner_text().startswith("金拉米")
    press_ready(alice)
    press_ready(ming)
    alice.wait_for_selector(".gin-table")
    ming.wait_for_selector(".gin-table")
    screenshot(ming, "gin-upcard-offer-zh")

    spectator = new_page("en-US")
    spectator.goto(f"{link}?watch=1")
    spectator.wait_for_selector(".gin-table")
    assert spectator.locator("#my-hand").count() == 0
    assert spectator.locator(".gin-opponent .card.back").count() == 20
    assert spectator.locator(".gin-opponent .card:not(.back)").count() == 0
    assert spectator.locator(".badge.spectator").is_visible()
    screenshot(spectator, "gin-spectator")
    spectator.close()

    moves: list[str] = []
    shot_discard = False
    deadline = time.monotonic() + 60
    while len(moves) < MAX_MOVES and time.monotonic() < deadline:
        if gin_table(alice)["phase"] == "over":
            break
        moved = None
        for page in (alice, ming):
            before = version(page)
            moved = move(page, server_url, WAYS[len(moves) // 2 % 3])
            if moved:
                for other in (alice, ming):
                    wait_past(other, before)
                moves.append(moved)
                break
        if moved is None:
            time.sleep(0.05)
        if not shot_discard and gin_table(alice)["phase"] == "discard":
            page_to_act = alice if gin_table(alice)["turn"] == 0 else ming
            deadwood = page_to_act.locator("#deadwood").inner_text()
            own = state(page_to_act)["game"]["me"]["arrangement"]["deadwood_points"]
            assert str(own) in deadwood
            screenshot(page_to_act, "gin-discard-phase")
            shot_discard = True

    assert moves[:2] == ["pass", "pass"], moves
    assert "draw" in moves
    assert "discard" in moves
    alice.wait_for_function("window.meldhall.store.state.game.tables[0].phase === 'over'")
    outcome = gin_table(alice)["outcome"]
    for page in (alice, ming):
        page.wait_for_selector("#hand-outcome")
        assert page.locator("#scoreboard").is_visible()
    if outcome["ending"] != "draw":
        assert alice.locator("#hand-outcome .layout").count() == 2
        ending = ming.locator("#hand-outcome .ending").inner_text()
        assert ending in {"敲牌", "反扣", "清牌", "大清牌"}
    screenshot(alice, "gin-hand-over-en")
    screenshot(ming, "gin-hand-over-zh")
    assert alice.console_errors == []
    assert ming.console_errors == []
