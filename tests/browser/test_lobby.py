"""The lobby: public rooms waiting for players are listed and joined from there, a private room
is not listed (and a room made with the form's defaults is private), and an empty seat is given
to a bot from the room page; the form's Create button is on the first screen, the room's rules
folded under "More options"."""

from __future__ import annotations

import httpx

from tests.browser.conftest import screenshot
from tests.browser.flows import create_room, take_the_seat
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, assert_on_screen


def open_room(base: str, *, public: bool) -> str:
    room = httpx.post(
        f"{base}/api/rooms",
        json={"game": "gin_rummy", "players": 2, "options": {}, "bots": [], "public": public},
    ).json()
    httpx.post(f"{base}/api/rooms/{room['room_id']}/join", json={"name": "Host"})
    return room["room_id"]


def test_a_public_room_is_listed_and_joined_from_the_lobby(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    listed = open_room(server_url, public=True)
    hidden = open_room(server_url, public=False)
    page = new_page("en-US")
    page.goto(f"{server_url}/")
    item = page.locator(f'.room-item[data-room="{listed}"]')
    item.wait_for()
    assert page.locator(f'.room-item[data-room="{hidden}"]').count() == 0
    assert "Host" in item.inner_text()
    assert "1/2 seated" in item.inner_text()
    screenshot(page, "lobby-with-rooms")
    item.get_by_role("link", name="Join").click()
    page.wait_for_selector("#join-name")
    page.fill("#join-name", "Guest")
    page.click("#join-button")
    take_the_seat(page, "Guest")
    page.wait_for_selector('.seat[data-seat="1"].mine')
    assert page.locator('.seat[data-seat="0"] .seat-name').inner_text() == "Host"


def test_a_room_made_with_the_defaults_is_not_in_a_strangers_lobby(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    friend = new_page("en-US")
    friend.goto(f"{server_url}/")
    friend.wait_for_selector("#create-room")
    assert not friend.is_checked("#create-public")
    link = create_room(friend, server_url, game="gin_rummy", name="Fran")
    room = link.rstrip("/").split("/r/")[1]
    assert httpx.get(f"{server_url}/api/rooms/{room}").json()["public"] is False

    stranger = new_page("en-US")
    with stranger.expect_response(lambda r: r.url.endswith("/api/rooms")) as answer:
        stranger.goto(f"{server_url}/")
    listed = [r["room_id"] for r in answer.value.json()["rooms"]]
    assert room not in listed
    # The page shows what it was sent (other tests' public rooms, or none), without the room.
    stranger.wait_for_function(
        "(n) => document.querySelectorAll('.room-item').length === n", arg=len(listed)
    )
    assert stranger.locator(f'.room-item[data-room="{room}"]').count() == 0


def test_an_empty_seat_is_given_to_a_bot_from_the_room(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    create_room(page, server_url, game="rummikub", name="Rita", players=3, bots={1: "easy"})
    empty = page.locator('.seat[data-seat="2"]')
    assert empty.get_attribute("data-kind") == "empty"
    empty.locator("select.bot-level").select_option("hard")
    empty.locator("button.add-bot").click()
    page.wait_for_selector('.seat[data-seat="2"][data-kind="bot"]')
    assert "hard" in page.locator('.seat[data-seat="2"]').inner_text()
    # The last seat filled with a bot and nobody else to wait for: the match starts.
    page.wait_for_selector(".rummikub")
    assert page.locator("#ready-button").count() == 0
    assert page.locator(".seat .rack-size").count() == 3


@EVERY_LANGUAGE_AND_SIZE
def test_create_is_on_the_first_screen_with_the_rules_folded(  # type: ignore[no-untyped-def]
    new_page, server_url, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    assert_on_screen(page, "#create-room")
    assert not page.locator("#opt-knock_limit").is_visible()
    tag = f"lobby-first-screen-{locale}-{viewport['width']}"
    screenshot(page, tag, full_page=False)
    page.click("#more-options summary")
    assert page.locator("#opt-knock_limit").is_visible()
    assert page.locator("#create-hints").is_visible()
