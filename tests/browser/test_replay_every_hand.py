"""The replay of a finished Gin Rummy match shows every hand face up (the replay holds each
seat's view once the match is over), jumps to each hand, and steps by keys."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.browser.api_seats import Seat, play_gin_until
from tests.browser.conftest import screenshot
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, assert_no_sideways_scroll

# A target that quick moves reach in a few hands, not one.
TARGET = 60


def finished_match(base: str) -> tuple[str, dict[str, Any]]:
    http = httpx.Client(base_url=base, timeout=30)
    room = http.post(
        "/api/rooms",
        json={"game": "gin_rummy", "players": 2, "options": {"target": TARGET}, "public": True},
    ).json()["room_id"]
    seats = []
    for seat, name in enumerate(("Ann", "Bob")):
        joined = http.post(f"/api/rooms/{room}/join", json={"name": name, "seat": seat})
        assert joined.status_code == 201, joined.text
        seats.append(Seat(base, room, joined.json()["token"]))
    for seat in seats:
        seat.ready()
    play_gin_until(seats, ("finished",))
    match_id = seats[0].state()[1]["room"]["match_id"]
    return match_id, http.get(f"/api/matches/{match_id}/replay").json()


def step_shown(page: Any) -> int:
    return int(re.findall(r"\d+", page.locator("#step-line").inner_text())[0])


@EVERY_LANGUAGE_AND_SIZE
def test_a_finished_replay_shows_both_hands_and_jumps_to_each_hand(  # type: ignore[no-untyped-def]
    server_url, new_page, locale, viewport
) -> None:
    match_id, replay = finished_match(server_url)
    starts = [0] + [
        i + 1
        for i, step in enumerate(replay["steps"])
        if step["view"]["hand_number"]
        != (replay["steps"][i - 1]["view"] if i else replay["initial_view"])["hand_number"]
    ]
    assert len(starts) >= 2, "the match had a single hand"

    page = new_page(locale, viewport=viewport)
    page.goto(f"{server_url}/history/{match_id}")
    page.wait_for_selector("#replay-hand")
    page.click("#step-next")
    page.wait_for_function(
        "/\\d+/.exec(document.querySelector('#step-line').textContent)[0] === '1'"
    )
    fans = page.locator(".gin-opponent .card-fan")
    assert fans.count() == 2
    for fan in fans.all():
        assert fan.locator(".card[data-card]").count() == 10
        assert fan.locator(".card.back").count() == 0
    assert page.locator(".sit-out").count() == 0
    screenshot(page, f"replay-every-hand-{locale}-{viewport['width']}")
    assert_no_sideways_scroll(page)

    assert page.locator("#replay-hand option").count() == len(starts)
    page.select_option("#replay-hand", str(starts[1]))
    page.wait_for_function(
        f"/\\d+/.exec(document.querySelector('#step-line').textContent)[0] === '{starts[1]}'"
    )

    page.locator("#step-line").click()
    page.keyboard.press("Home")
    page.wait_for_selector("#step-first:disabled")
    assert step_shown(page) == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#step-first:enabled")
    assert step_shown(page) == 1
    page.keyboard.press("PageDown")
    page.wait_for_function(
        f"/\\d+/.exec(document.querySelector('#step-line').textContent)[0] === '{starts[1]}'"
    )
    page.keyboard.press("End")
    page.wait_for_selector("#step-last:disabled")
    assert step_shown(page) == len(replay["steps"])
    screenshot(page, f"replay-last-step-{locale}-{viewport['width']}")
