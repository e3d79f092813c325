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
    assert page.locator("nav a").all_inner_texts() == ["大厅", "历史", "规则"]
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


def test_an_unknown_address_says_so(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    page.goto(f"{server_url}/rules/nothing-here")
    page.wait_for_selector("h1")
    page.goto(f"{server_url}/r/no-such-room")
    page.wait_for_selector(".toast-error")
    assert "no such room" in page.locator(".toast-error").first.inner_text().lower()
