"""Players in the browser: the name asked once, refused names and keys, the profile with its
rating chart and devices, the leaderboards, and the player's own private matches in the
history, in English and Chinese."""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.browser.conftest import meldhall_server, screenshot
from tests.browser.flows import unique_name
from tests.browser.phone import PHONE, assert_no_sideways_scroll
from tests.browser.rated_matches import new_player, play_gin_against_a_bot

STORED = "JSON.parse(localStorage.getItem('meldhall.player'))"


def stored_player(page: Any) -> dict[str, str] | None:
    found: dict[str, str] | None = page.evaluate(STORED)
    return found


def remember(page: Any, base: str, player: dict[str, str]) -> None:
    """The page's browser keeps `player`, as if it had made it itself."""
    page.goto(f"{base}/rules")
    kept = {field: player[field] for field in ("id", "key", "name")}
    page.evaluate("(p) => localStorage.setItem('meldhall.player', JSON.stringify(p))", kept)


def open_room(base: str) -> str:
    room = httpx.post(f"{base}/api/rooms", json={"game": "gin_rummy"}).json()
    room_id: str = room["room_id"]
    return room_id


def seats(base: str, room_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = httpx.get(f"{base}/api/rooms/{room_id}").json()["seats"]
    return found


def test_a_first_visit_asks_for_a_name_once_and_prefills_it_after(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    assert stored_player(page) is None
    page.fill("#create-name", "Zoe")
    page.select_option("#seat-1", "easy")
    assert page.is_checked("#create-rated")
    page.click("#create-room")
    dialog = page.locator("#identity-dialog[open]")
    dialog.wait_for()
    assert page.input_value("#identity-name") == "Zoe"
    assert "What should we call you?" in dialog.inner_text()
    screenshot(page, "name-dialog", full_page=False)
    name = unique_name("Zoe")
    page.fill("#identity-name", name)
    page.click("#identity-save")
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".seat-row")
    player = stored_player(page)
    assert player is not None
    assert player["name"] == name
    room_id = page.url.rstrip("/").split("/r/")[1]
    assert seats(server_url, room_id)[0]["player_id"] == player["id"]
    assert seats(server_url, room_id)[0]["name"] == name
    own_seat = page.locator('.seat[data-seat="0"] .seat-name a')
    assert own_seat.get_attribute("href") == f"/p/{player['id']}"
    assert own_seat.inner_text() == name

    # Another visit: the name is filled in, and creating a room asks nothing.
    page.reload()
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    assert page.input_value("#create-name") == name
    page.click("#create-room")
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".seat-row")
    assert page.locator("#identity-dialog").count() == 0

    # Joining a friend's room: the same name, the same player, no question.
    room_id = open_room(server_url)
    page.goto(f"{server_url}/r/{room_id}")
    page.wait_for_selector("#join-name")
    assert page.input_value("#join-name") == name
    page.click("#join-button")
    page.wait_for_selector(".seat-row")
    assert page.locator("#identity-dialog").count() == 0
    (seat,) = [s for s in seats(server_url, room_id) if s["kind"] == "human"]
    assert seat["player_id"] == player["id"]
    assert stored_player(page) == player


def test_a_taken_name_is_refused_in_chinese_a_dropped_key_asks_again(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    taken = new_player(server_url, unique_name("Taken"))
    page = new_page("zh-CN", viewport=PHONE)
    remember(page, server_url, {"id": "nobody", "key": "not-a-key-at-all", "name": "Old"})
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    assert page.input_value("#create-name") == "Old"
    page.click("#create-room")
    # The remembered key is refused: the browser forgets it and asks for a name, saying why.
    page.locator("#identity-dialog[open]").wait_for()
    assert "退出原来的玩家身份" in page.inner_text("#identity-refused")
    assert stored_player(page) is None
    assert "怎么称呼你" in page.inner_text("#identity-dialog")
    page.fill("#identity-name", taken["name"].upper())
    page.click("#identity-save")
    error = page.locator("#identity-error")
    error.wait_for()
    assert error.inner_text() == "已经有人用这个名字了，换一个吧。"
    screenshot(page, "name-dialog-phone-zh", full_page=False)
    page.fill("#identity-name", "   ")
    page.click("#identity-save")
    page.wait_for_function(
        "document.querySelector('#identity-error').textContent === '请输入名字。'"
    )
    name = unique_name("小红")
    page.fill("#identity-name", name)
    page.click("#identity-save")
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".seat-row")
    player = stored_player(page)
    assert player is not None
    assert player["name"] == name


@pytest.fixture(scope="module")
def rated(server_url: str) -> dict[str, Any]:
    """A player with a 32-character name and no space, after three rated matches."""
    player = new_player(server_url, f"Wolfeschlegelsteinhausen{uuid.uuid4().hex[:8]}")
    assert len(player["name"]) == 32
    played = [play_gin_against_a_bot(server_url, player["key"]) for _ in range(3)]
    return {**player, "matches": [p.match_id for p in played], "played": played}


def chart_points(page: Any, mode: str) -> int:
    path = page.get_attribute(f'.mode-rating[data-mode="{mode}"] svg.rating-chart path.line', "d")
    return len(re.findall(r"[ML]", path))


def test_the_profile_charts_every_rated_match(new_page, server_url, rated) -> None:  # type: ignore[no-untyped-def]
    profile = httpx.get(f"{server_url}/api/players/{rated['id']}").json()
    (gin,) = [r for r in profile["ratings"] if r["mode"] == "gin_rummy:2"]
    assert len(gin["history"]) == 3
    page = new_page("en-US")
    remember(page, server_url, rated)
    page.goto(f"{server_url}/me")
    page.wait_for_url(f"**/p/{rated['id']}")
    page.wait_for_selector(".mode-rating svg.rating-chart")
    assert chart_points(page, "gin_rummy:2") == len(gin["history"])
    assert page.locator(".rating-chart circle.dot").count() == 3
    # The axes carry their labels: round ratings up the side, dates along the bottom.
    ticks = page.locator(".rating-chart text.tick").all_text_contents()
    assert any(re.fullmatch(r"1\d\d0", tick) for tick in ticks), ticks
    assert page.inner_text(".mode-rating .rating-big") == str(gin["rating"])
    assert page.locator(".mode-rating .badge.provisional").inner_text() == "provisional"
    assert page.inner_text("#profile-name").startswith(rated["name"])
    rows = page.locator("#recent-matches tbody tr")
    assert rows.count() == 3
    assert re.search(r"[+-]\d+|±0", rows.first.inner_text())
    assert "Gin Rummy bot (easy)" in page.inner_text("#head-to-head")
    screenshot(page, "profile-desktop")

    page.select_option("#lang", "zh-CN")
    page.wait_for_selector("text=对战记录")
    assert "已计分3局" in page.inner_text(".mode-rating")
    assert "暂定" in page.inner_text(".mode-rating")
    page.set_viewport_size(PHONE)
    page.reload()
    page.wait_for_selector(".mode-rating svg.rating-chart")
    assert chart_points(page, "gin_rummy:2") == 3
    assert_no_sideways_scroll(page)
    screenshot(page, "profile-phone-zh")


def test_the_leaderboard_lists_a_rated_player_and_its_circle(new_page, server_url, rated) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US", viewport=PHONE)
    remember(page, server_url, rated)
    page.goto(f"{server_url}/leaderboards")
    row = page.locator(f'#board tr[data-player="{rated["id"]}"]')
    row.wait_for()
    assert "mine" in (row.get_attribute("class") or "")
    link = row.locator("a")
    assert link.get_attribute("href") == f"/p/{rated['id']}"
    assert link.inner_text() == rated["name"]
    assert_no_sideways_scroll(page)
    screenshot(page, "leaderboard-phone")
    page.check("#board-circle")
    page.wait_for_url("**circle=1**")
    row.wait_for()
    names = page.locator("#board tbody tr").all_inner_texts()
    assert any("Gin Rummy bot (easy)" in line for line in names)
    assert page.inner_text("#board-page") == "Page 1 of 1"
    page.set_viewport_size({"width": 1280, "height": 860})
    screenshot(page, "leaderboard-desktop")
    link.click()
    page.wait_for_url(f"**/p/{rated['id']}")
    page.wait_for_selector(".mode-rating svg.rating-chart")


def test_the_history_shows_the_players_own_private_matches(new_page, server_url, rated) -> None:  # type: ignore[no-untyped-def]
    stranger = new_page("en-US")
    with stranger.expect_response(lambda r: "/api/matches?" in r.url) as answer:
        stranger.goto(f"{server_url}/history")
    listed = [m["match_id"] for m in answer.value.json()["items"]]
    assert not set(rated["matches"]) & set(listed)
    stranger.wait_for_function(
        "(n) => document.querySelectorAll('tr[data-match]').length === n", arg=len(listed)
    )

    page = new_page("en-US")
    remember(page, server_url, rated)
    page.goto(f"{server_url}/history")
    for match_id in rated["matches"]:
        page.locator(f'tr[data-match="{match_id}"]').wait_for()

    # A key the server refuses is forgotten, and the history read as anyone's.
    dropped = new_page("en-US")
    remember(dropped, server_url, {"id": "gone", "key": "refused-key", "name": "Gone"})
    with dropped.expect_response(lambda r: "/api/matches?" in r.url and r.ok) as answer:
        dropped.goto(f"{server_url}/history")
    listed = [m["match_id"] for m in answer.value.json()["items"]]
    dropped.wait_for_function(
        "(n) => document.querySelectorAll('tr[data-match]').length === n", arg=len(listed)
    )
    assert stored_player(dropped) is None
    assert dropped.locator(".toast-error").count() == 0


def test_a_link_code_makes_another_device_the_player_until_signed_out(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    player = new_player(server_url, unique_name("Lin"))
    laptop = new_page("en-US")
    remember(laptop, server_url, player)
    laptop.goto(f"{server_url}/p/{player['id']}")
    laptop.click("#link-code-button")
    code = laptop.inner_text("#link-code")
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code)
    assert laptop.inner_text("#link-code-expiry").startswith("valid until")
    screenshot(laptop, "profile-link-code", full_page=False)

    phone = new_page("en-US", viewport=PHONE)
    phone.goto(f"{server_url}/me")
    phone.locator("#identity-dialog[open]").wait_for()
    phone.click(".link-other summary")
    phone.fill("#identity-code", code.lower())
    phone.click("#identity-link")
    phone.wait_for_url(f"**/p/{player['id']}")
    phone.wait_for_selector("#devices")
    on_phone = stored_player(phone)
    assert on_phone is not None
    assert on_phone["id"] == player["id"]
    assert on_phone["key"] != player["key"]
    screenshot(phone, "profile-own-phone")

    # A rename keeps the player; a name someone else has is refused in the form.
    other = new_player(server_url, unique_name("Other"))
    laptop.click(".rename summary")
    laptop.fill("#rename-name", other["name"].lower())
    laptop.click("#rename-button")
    laptop.locator("#rename-error").wait_for()
    assert (
        laptop.inner_text("#rename-error") == "Someone already plays under that name. Pick another."
    )
    renamed = unique_name("Lina")
    laptop.fill("#rename-name", renamed)
    laptop.click("#rename-button")
    laptop.wait_for_function(
        "(name) => document.querySelector('#profile-name bdi').textContent === name", arg=renamed
    )
    assert stored_player(laptop)["name"] == renamed  # type: ignore[index]
    assert httpx.get(f"{server_url}/api/players/{player['id']}").json()["player"]["name"] == renamed

    # The laptop signs the others out: its new key works, the phone's is refused and dropped.
    laptop.click("#sign-out-others")
    laptop.wait_for_function(f"{STORED}.key !== {json.dumps(player['key'])}")
    phone.goto(f"{server_url}/p/{player['id']}")
    phone.wait_for_function(f"{STORED} === null")
    phone.wait_for_selector("#profile-name")
    assert phone.locator("#devices").count() == 0

    # Forget me, after a confirmation: the player is gone from the server and the browser.
    laptop.click("#forget-me")
    assert laptop.inner_text("#forget-warning").startswith("Really forget")
    laptop.click("#forget-confirm")
    laptop.wait_for_url(f"{server_url}/")
    assert stored_player(laptop) is None
    answer = httpx.get(f"{server_url}/api/players/{player['id']}")
    assert answer.status_code == 404


def test_a_guest_plays_without_a_player_and_escape_does_nothing(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    page.fill("#create-name", "Gus")
    page.click("#create-room")
    # Closing the dialog changes nothing: no room, no player, the form again.
    page.locator("#identity-dialog[open]").wait_for()
    page.keyboard.press("Escape")
    page.wait_for_selector("#identity-dialog", state="detached")
    page.wait_for_selector("#create-room:enabled")
    assert page.url == f"{server_url}/"
    page.click("#create-room")
    page.locator("#identity-dialog[open]").wait_for()
    page.click("#identity-guest")
    page.wait_for_url("**/r/*")
    page.wait_for_selector(".seat-row")
    room_id = page.url.rstrip("/").split("/r/")[1]
    (seat, _) = seats(server_url, room_id)
    assert seat["name"] == "Gus"
    assert seat["player_id"] is None
    assert stored_player(page) is None


def test_the_match_end_shows_the_rating_changes_in_chinese(new_page, server_url, rated) -> None:  # type: ignore[no-untyped-def]
    last = rated["played"][-1]
    record = httpx.get(
        f"{server_url}/api/matches/{last.match_id}",
        headers={"Authorization": f"Bearer {last.seat_token}"},
    ).json()
    page = new_page("zh-CN", viewport=PHONE)
    remember(page, server_url, rated)
    page.evaluate(
        "([room, token]) => localStorage.setItem(`meldhall.token.${room}`,"
        " JSON.stringify({seat: 0, token}))",
        [last.room_id, last.seat_token],
    )
    page.goto(f"{server_url}/r/{last.room_id}")
    page.locator("#rating-changes li").first.wait_for()
    assert "等级分变化" in page.inner_text("#rating-changes h3")
    for change in record["rating_changes"]:
        line = page.locator(f'#rating-changes li[data-seat="{change["seat"]}"]')
        assert line.locator(".rating-now").inner_text() == str(change["after"])
        shown = line.locator(".delta").inner_text()
        assert int(shown.replace("±", "")) == change["after"] - change["before"]
    assert rated["name"] in page.inner_text("#rating-changes")
    page.locator("#match-banner").scroll_into_view_if_needed()
    assert_no_sideways_scroll(page)
    screenshot(page, "match-end-ratings-phone-zh", full_page=False)


def test_the_leaderboard_pages_through_more_than_twenty_players(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    players = [new_player(server_url, unique_name("Pager")) for _ in range(21)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda p: play_gin_against_a_bot(server_url, p["key"]), players))
    board = httpx.get(f"{server_url}/api/leaderboards/gin_rummy", params={"limit": 100}).json()
    pages = -(-board["total"] // 20)
    assert pages >= 2
    page = new_page("en-US")
    page.goto(f"{server_url}/leaderboards?game=gin_rummy&mode=2")
    page.locator("#board tbody tr").first.wait_for()
    assert page.locator("#board tbody tr").count() == 20
    assert page.inner_text("#board-page") == f"Page 1 of {pages}"
    assert page.is_disabled("#board-prev")
    page.click("#board-next")
    page.wait_for_function(
        "document.querySelector('#board-page')?.textContent.startsWith('Page 2')"
    )
    first = page.locator("#board tbody tr").first
    assert first.locator("td").first.inner_text() == "21"
    assert first.get_attribute("data-player") == board["items"][20]["player_id"]
    page.click("#board-prev")
    page.wait_for_function(
        "document.querySelector('#board-page')?.textContent.startsWith('Page 1')"
    )


def test_the_profile_lists_more_opponents_a_page_at_a_time(new_page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A player who met more opponents than the profile holds (50) gets the rest from the paged
    head to head, most often met first, and the button goes once every opponent is shown."""
    with meldhall_server(tmp_path, "app.main:create_app") as base:
        ann = new_player(base, "Ann")
        # Sixty opponents met in public rooms, the i-th 70 - i times: more than a real match
        # could make in a test's time, written as the match ends would have left them.
        with sqlite3.connect(tmp_path / "meldhall.db", timeout=10) as db:
            for index in range(60):
                other, met = f"opponent{index:02d}", 70 - index
                db.execute(
                    "INSERT INTO players (id, name, name_key, kind, created_at)"
                    " VALUES (?, ?, ?, 'person', '2026-01-01 00:00:00')",
                    (other, f"Opponent {index:02d}", f"opponent {index:02d}"),
                )
                db.execute(
                    "INSERT INTO player_pairs (player_id, other_id, shared, shared_public, duels,"
                    " wins, losses, duels_public, wins_public, losses_public)"
                    " VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, 0)",
                    (ann["id"], other, met, met, met, met, met, met),
                )
        page = new_page("en-US")
        page.goto(f"{base}/p/{ann['id']}")
        rows = page.locator("#head-to-head tbody tr")
        rows.first.wait_for()
        assert rows.count() == 50
        page.locator("#more-opponents").scroll_into_view_if_needed()
        screenshot(page, "profile-more-opponents-en", full_page=False)
        page.click("#more-opponents")
        page.wait_for_function("document.querySelectorAll('#head-to-head tbody tr').length === 60")
        assert page.locator("#more-opponents").count() == 0
        names = [cell.inner_text() for cell in page.locator("#head-to-head td.names").all()]
        assert names == [f"Opponent {index:02d}" for index in range(60)]
        assert rows.nth(50).locator("td").nth(1).inner_text() == "20"
