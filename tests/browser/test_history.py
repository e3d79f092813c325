"""A finished match appears in the history page and its replay can be stepped through, from
the spectator's seat or (the match being over) from a player's."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.browser.conftest import screenshot

# The match is bounded by turns, not by the clock (which a loaded machine stretches): each of
# Hedda's turns draws one of the pool's 106 - 2 * 7 = 92 tiles, and once the pool is empty a
# circle of passes ends the match unless the bot lays tiles. Seven-tile racks end long before.
MAX_OWN_TURNS = 150
# Ample for the bot's turn, or a request, however loaded the machine.
WAIT_SECONDS = 60


def hedda_to_act_or_over(http: httpx.Client, room_id: str, seat: int) -> dict[str, Any]:
    """The room's state once it is Hedda's turn or the match is finished."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        document: dict[str, Any] = http.get(f"/api/rooms/{room_id}/state").json()["state"]
        game = document["game"]
        if document["room"]["status"] == "finished":
            return document
        if game and game["phase"] == "playing" and game["turn"]["seat"] == seat:
            return document
        assert time.monotonic() < deadline, f"no move came in {WAIT_SECONDS} s: {document}"
        time.sleep(0.05)


def finished_rummikub_match(base: str) -> str:
    """A short match, a person (who only ever draws) against a bot, played over REST."""
    with httpx.Client(base_url=base, timeout=WAIT_SECONDS) as http:
        room = http.post(
            "/api/rooms",
            json={
                "game": "rummikub",
                "players": 2,
                "options": {"initial_meld_points": 1, "tiles_per_player": 7},
                "bots": [{"seat": 1, "level": "normal"}],
                # A private room's matches are listed only to their players (test_players.py
                # has that): this page is a stranger's.
                "public": True,
                "spectators": True,
            },
        ).json()
        room_id = room["room_id"]
        joined = http.post(f"/api/rooms/{room_id}/join", json={"name": "Hedda"}).json()
        http.headers["Authorization"] = f"Bearer {joined['token']}"
        http.post(f"/api/rooms/{room_id}/ready").raise_for_status()
        for _ in range(MAX_OWN_TURNS):
            document = hedda_to_act_or_over(http, room_id, joined["seat"])
            if document["room"]["status"] == "finished":
                match_id: str = document["room"]["match_id"]
                return match_id
            move = {"type": "draw"} if document["game"]["pool_size"] else {"type": "pass"}
            http.post(f"/api/rooms/{room_id}/actions", json={"action": move}).raise_for_status()
    raise AssertionError(f"the match was still on after {MAX_OWN_TURNS} of Hedda's turns")


def test_a_finished_match_is_listed_and_replayed_step_by_step(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    match_id = finished_rummikub_match(server_url)
    page = new_page("zh-CN")
    page.goto(f"{server_url}/history")
    row = page.locator(f'tr[data-match="{match_id}"]')
    row.wait_for()
    assert "拉密" in row.inner_text()
    assert "Hedda" in row.inner_text()
    screenshot(page, "history-list")

    page.fill("#history-player", "Hedda")
    page.click(".history-filter button")
    page.wait_for_selector("#player-stats")
    assert "Hedda" in page.locator("#player-stats").inner_text()

    page.locator(f'tr[data-match="{match_id}"] a').click()
    page.wait_for_url(f"**/history/{match_id}")
    page.wait_for_selector(".rummikub")
    assert page.locator("#step-line").inner_text().startswith("第 0 步")
    page.click("#step-next")
    page.wait_for_function("document.querySelector('#step-line').textContent.startsWith('第 1 步')")
    # The step is told in words of the page's language, not as the raw logged action.
    first = httpx.get(f"{server_url}/api/matches/{match_id}/replay").json()["steps"][0]["action"]
    words = {"draw": "抽一枚牌", "pass": "跳过", "play": "把桌面摆成", "end_turn": "结束回合"}
    line = page.locator("#step-line").inner_text()
    assert words[first["type"]] in line, line
    assert "=" not in line, line
    assert first["type"] not in line, line
    page.click("#step-last")
    page.wait_for_selector("#round-result")
    assert page.locator("#step-next").is_disabled()
    page.select_option("#viewpoint", "0")
    page.click("#step-first")
    page.wait_for_selector("#rack .tile")
    assert page.locator("#rack .tile").count() == 7
    assert page.locator("#draw-tile").count() == 0
    screenshot(page, "replay-from-a-seat")
    assert page.console_errors == []
