"""A finished match appears in the history page and its replay can be stepped through, from
the spectator's seat or (the match being over) from a player's."""

from __future__ import annotations

import time

import httpx

from tests.browser.conftest import screenshot

MATCH_SECONDS = 40


def finished_rummikub_match(base: str) -> str:
    """A short match, a person (who only ever draws) against a bot, played over REST."""
    room = httpx.post(
        f"{base}/api/rooms",
        json={
            "game": "rummikub",
            "players": 2,
            "options": {"initial_meld_points": 1, "tiles_per_player": 7},
            "bots": [{"seat": 1, "level": "normal"}],
            "public": False,
            "spectators": True,
        },
    ).json()
    room_id = room["room_id"]
    joined = httpx.post(f"{base}/api/rooms/{room_id}/join", json={"name": "Hedda"}).json()
    auth = {"Authorization": f"Bearer {joined['token']}"}
    httpx.post(f"{base}/api/rooms/{room_id}/ready", headers=auth).raise_for_status()
    deadline = time.monotonic() + MATCH_SECONDS
    while time.monotonic() < deadline:
        document = httpx.get(f"{base}/api/rooms/{room_id}/state", headers=auth).json()["state"]
        if document["room"]["status"] == "finished":
            return document["room"]["match_id"]
        game = document["game"]
        if game and game["phase"] == "playing" and game["turn"]["seat"] == joined["seat"]:
            move = {"type": "draw"} if game["pool_size"] else {"type": "pass"}
            httpx.post(f"{base}/api/rooms/{room_id}/actions", headers=auth, json={"action": move})
        else:
            time.sleep(0.05)
    raise AssertionError("the match did not finish in time")


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
    words = {"draw": "摸一张牌", "pass": "过", "play": "摆出", "end_turn": "结束回合"}
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
