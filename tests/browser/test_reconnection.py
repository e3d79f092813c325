"""The socket drops and comes back: the page says so, reconnects by itself, and catches up on
what happened meanwhile; a patch that does not follow the held version brings a snapshot."""

from __future__ import annotations

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


def server_document(base: str, page) -> dict:  # type: ignore[no-untyped-def, type-arg]
    room = room_id(page)
    token = seat_token(page, room)["token"]
    answer = httpx.get(
        f"{base}/api/rooms/{room}/state", headers={"Authorization": f"Bearer {token}"}
    )
    return answer.json()


def first_move(page) -> None:  # type: ignore[no-untyped-def]
    """The player to act passes the upcard (or draws if the offer is over)."""
    before = version(page)
    phase = state(page)["game"]["tables"][0]["phase"]
    page.click("#pass-upcard" if phase == "upcard_offer" else "#stock")
    wait_past(page, before)


def test_the_page_reconnects_and_catches_up(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    alice = new_page("en-US")
    bob = new_page("en-US", viewport={"width": 390, "height": 844})
    link = create_room(alice, server_url, game="gin_rummy", name="Alice")
    join_by_link(bob, link, "Bob")
    press_ready(alice)
    press_ready(bob)
    for page in (alice, bob):
        page.wait_for_selector(".gin-table")
        page.wait_for_selector("#conn[data-status=open]")
    turn = state(alice)["game"]["tables"][0]["turn"]
    actor, watcher = (alice, bob) if turn == 0 else (bob, alice)

    watcher.context.set_offline(True)
    watcher.evaluate("window.meldhall.dropConnection()")
    watcher.wait_for_selector("#conn[data-status=reconnecting]")
    screenshot(watcher, "reconnecting")
    held = version(watcher)
    first_move(actor)
    assert version(watcher) == held

    watcher.context.set_offline(False)
    watcher.wait_for_selector("#conn[data-status=open]")
    wait_past(watcher, held)
    assert state(watcher) == server_document(server_url, watcher)["state"]
    assert version(watcher) == version(actor)

    # A patch that does not follow what the page holds: the page asks for a snapshot.
    watcher.evaluate("window.meldhall.store.version -= 1")
    stale = version(watcher)
    turn = state(actor)["game"]["tables"][0]["turn"]
    mover = alice if turn == 0 else bob
    first_move(mover)
    wait_past(watcher, stale + 1)
    answer = server_document(server_url, watcher)
    assert version(watcher) == answer["version"]
    assert state(watcher) == answer["state"]
    screenshot(bob, "gin-phone")
    # Chromium itself logs each refused socket while the page is offline; nothing else may.
    for page in (alice, bob):
        unexpected = [e for e in page.console_errors if "WebSocket connection" not in e]
        assert unexpected == []
