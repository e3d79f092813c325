"""The operator's notice and closing of a room reach an open table, in English and Chinese."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import meldhall_server, screenshot
from tests.browser.flows import create_room, room_id

ADMIN_TOKEN = "operator-token-for-the-browser-tests-0123456789"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(scope="module")
def admin_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with meldhall_server(
        Path(tmp_path_factory.mktemp("meldhall-admin")),
        "app.main:create_app",
        MELDHALL_ADMIN_TOKEN=ADMIN_TOKEN,
    ) as url:
        yield url


@pytest.mark.parametrize(
    ("locale", "label", "closed_label"),
    [
        ("en-US", "Notice from the server:", "The server's operator closed this room:"),
        ("zh-CN", "服务器通知：", "服务器管理员关闭了这个房间："),
    ],
)
def test_a_notice_and_a_closed_room_are_shown_at_the_table(
    new_page: Any, admin_server_url: str, locale: str, label: str, closed_label: str
) -> None:
    page = new_page(locale)
    create_room(page, admin_server_url, game="gin_rummy", name="Ann")
    room = room_id(page)
    page.wait_for_selector('.seats-panel [data-seat="0"]')

    text = "<b>restarting</b> in 5 minutes \u2014 \u670d\u52a1\u5668\u5373\u5c06\u91cd\u542f"
    posted = httpx.post(f"{admin_server_url}/api/admin/notice", json={"text": text}, headers=ADMIN)
    assert posted.status_code == 202, posted.text
    page.wait_for_selector(".server-notice[data-closed='no']")
    assert page.locator(".server-notice-label").text_content() == label
    assert page.locator(".server-notice-text").text_content() == text
    # The operator's words are text, never markup.
    assert page.locator(".server-notice b").count() == 0
    screenshot(page, f"server-notice-{locale}", full_page=False)

    closed = httpx.post(
        f"{admin_server_url}/api/admin/rooms/{room}/close",
        json={"reason": "maintenance tonight"},
        headers=ADMIN,
    )
    assert closed.status_code == 200, closed.text
    page.wait_for_selector(".server-notice[data-closed='yes']")
    assert page.locator(".server-notice-label").text_content() == closed_label
    assert page.locator(".server-notice-text").text_content() == "maintenance tonight"
    assert page.console_errors == []
