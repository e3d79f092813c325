"""The page speaks the browser's language, switches on request and remembers the choice; the
rules page exists in both languages with the rule documents' terms."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.flows import CHINESE_TERMS


def test_the_page_follows_the_browser_language_then_the_switch(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    assert page.locator("#create-room").inner_text() == "Create room"
    assert page.locator("html").get_attribute("lang") == "en"

    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.querySelector('#create-room').textContent === '创建房间'")
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    assert page.locator("nav a").all_inner_texts() == ["大厅", "历史", "排行榜", "规则", "我的"]
    page.click("#more-options summary")
    assert "敲牌上限" in page.locator(".options").inner_text()
    screenshot(page, "lobby-zh")

    page.reload()
    page.wait_for_selector("#create-room")
    assert page.locator("#create-room").inner_text() == "创建房间"
    page.select_option("#lang", "en")
    page.wait_for_function("document.querySelector('#create-room').textContent === 'Create room'")
    screenshot(page, "lobby-en")


def test_a_chinese_browser_gets_chinese_by_default(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("zh-CN")
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    assert page.locator("#create-room").inner_text() == "创建房间"
    assert page.locator(".game-title").all_inner_texts() == ["金拉米", "拉密"]


def test_the_rules_page_in_both_languages(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("zh-CN")
    page.goto(f"{server_url}/rules")
    page.wait_for_selector("#rules-rummikub")
    chinese = page.locator(".rules").inner_text()
    for term in CHINESE_TERMS:
        assert term in chinese, term
    screenshot(page, "rules-zh")
    page.select_option("#lang", "en")
    page.wait_for_function("document.querySelector('.rules h1').textContent === 'Rules'")
    english = page.locator(".rules").inner_text()
    for term in ["Knock", "Gin", "Big gin", "Undercut", "lay off", "Initial meld", "joker", "pool"]:
        assert term in english, term
    screenshot(page, "rules-en")


def test_the_rules_show_cards_and_tiles_as_pictures(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    page.goto(f"{server_url}/rules")
    page.wait_for_selector("#rules-rummikub")
    gin = page.locator("#rules-gin_rummy")
    rummikub = page.locator("#rules-rummikub")
    assert gin.locator(".example .card").count() >= 9
    assert rummikub.locator(".example .tile").count() >= 10
    assert rummikub.locator(".example .tile.joker").count() >= 1
    # Pictures, not the wire notation: no "H8 S8 D8" or "R7 B7 K7" left in the text.
    text = page.locator(".rules").inner_text()
    for code in ("H8", "S8", "D8", "C6", "R7", "K7", "Y3", "{cards", "{tiles"):
        assert code not in text, code
    assert page.locator(".example").first.get_attribute("aria-label") == (
        "8 of hearts, 8 of spades, 8 of diamonds"
    )
    screenshot(page, "rules-pictures")


# A person opening a bad address gets the app's not-found page well within this (the page is
# local, so it comes at once; the bound only keeps a broken page from passing by luck).
NOT_FOUND_WITHIN_MS = 5_000


def test_a_bad_invite_link_shows_not_found_at_once(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("zh-CN")
    page.goto(f"{server_url}/r/NoSuchRoom123")
    page.wait_for_selector('#not-found[data-kind="room"]', timeout=NOT_FOUND_WITHIN_MS)
    assert page.locator("#not-found h1").inner_text() == "找不到房间"
    assert page.locator(".join").count() == 0
    page.locator("#not-found a").click()
    page.wait_for_selector("#create-room")
    assert page.console_errors == [] or all("404" in e for e in page.console_errors)


def test_an_unknown_address_shows_the_apps_not_found_page(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    answer = page.goto(f"{server_url}/rules/nothing-here")
    assert answer.status == 404
    page.wait_for_selector('#not-found[data-kind="page"]', timeout=NOT_FOUND_WITHIN_MS)
    assert page.locator("#not-found h1").inner_text() == "Page not found"
    assert page.locator("#top nav a").count() == 5
    screenshot(page, "not-found")
    # A program asking the API for a path that is not there still gets JSON.
    api = page.goto(f"{server_url}/api/nothing-here")
    assert api.status == 404
    assert api.json()["error"]["code"] == "not_found"
