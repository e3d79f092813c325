"""A friend taking a seat is told to the host (a note, and a chirp with the sound on); each seat
has a face: a person's initials on a colour from their name, a bot its own mark; in both
languages, on a phone and a desktop."""

from __future__ import annotations

import httpx
import pytest

from tests.browser.conftest import screenshot
from tests.browser.flows import create_room, room_id
from tests.browser.phone import PHONE

DESKTOP = {"width": 1366, "height": 800}
JOINED = {"en-US": "Fay Wong joined the room.", "zh-CN": "Fay Wong 加入了房间。"}


@pytest.mark.parametrize(
    ("locale", "viewport"), [("en-US", DESKTOP), ("zh-CN", PHONE)], ids=["en-desktop", "zh-phone"]
)
def test_a_friend_joining_is_told_and_every_seat_has_a_face(  # type: ignore[no-untyped-def]
    server_url, new_page, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    create_room(page, server_url, game="rummikub", name="Hana", players=3, bots={2: "easy"})
    page.wait_for_selector('.seat[data-seat="1"][data-kind="empty"]')
    assert page.locator('.seat[data-seat="1"] .avatar').count() == 0
    assert page.locator('.seat[data-seat="2"] .avatar.bot').count() == 1

    room = room_id(page)
    joined = httpx.post(f"{server_url}/api/rooms/{room}/join", json={"name": "Fay Wong", "seat": 1})
    assert joined.status_code == 201, joined.text
    note = page.locator(".toast.join-note")
    note.wait_for()
    assert note.inner_text().replace("\u2068", "").replace("\u2069", "").startswith(JOINED[locale])
    friend = page.locator('.seat[data-seat="1"] .avatar')
    assert friend.inner_text() == "FW"
    host = page.locator('.seat[data-seat="0"] .avatar')
    host_name = page.locator('.seat[data-seat="0"] .seat-name').inner_text().split()
    assert host.inner_text() == (host_name[0][0] + host_name[1][0]).upper()
    # Each person's own colour, drawn from the name.
    colours = {
        friend.evaluate("e => getComputedStyle(e).backgroundColor"),
        host.evaluate("e => getComputedStyle(e).backgroundColor"),
    }
    assert len(colours) == 2
    screenshot(page, f"friend-joined-{locale}-{viewport['width']}", full_page=False)
