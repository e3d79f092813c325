"""Hostile display names on every page that shows them (the room and its move log, the
results, the history, the replay): a right-to-left override is gone, each name is isolated
from the words around it, a name of 32 characters without a break does not widen a phone's
page, and a name of 40 is refused."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.browser.api_seats import Seat, play_gin_until
from tests.browser.conftest import screenshot
from tests.browser.flows import seat_token
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, assert_no_sideways_scroll

SPOOF = "Eve\u202e321 nimda"

# Each place a name is shown: [the name is isolated, the text it sits in]. A name is isolated
# when it lies between U+2068 and U+2069 in its text, or when an element holding nothing but
# the name isolates it (<bdi>, or unicode-bidi: isolate).
NAME_PLACES = """(names) => {
  const isolating = (el) => el.tagName === "BDI" ||
    ["isolate", "isolate-override", "plaintext"].includes(getComputedStyle(el).unicodeBidi);
  const places = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const name of names) {
      for (let at = node.data.indexOf(name); at >= 0; at = node.data.indexOf(name, at + 1)) {
        let ok = node.data[at - 1] === "\\u2068" && node.data[at + name.length] === "\\u2069";
        let el = node.parentElement;
        while (!ok && el && el.textContent.trim() === name) {
          ok = isolating(el);
          el = el.parentElement;
        }
        const where = node.parentElement;
        places.push([ok, `${where.tagName}.${where.className}: ${node.data}`]);
      }
    }
  }
  return places;
}"""


# The element reaching furthest right, to name what widens a page.
WIDEST = """() => [...document.querySelectorAll("body *")].reduce((best, el) => {
  const right = el.getBoundingClientRect().right;
  return right > best.right ? {right, what: `${el.tagName}.${el.className}#${el.id}`} : best;
}, {right: 0, what: ""})"""


def assert_names_safe(page: Any, names: list[str], *, at_least: int) -> None:
    assert "\u202e" not in page.evaluate("document.body.textContent + document.title")
    places = page.evaluate(NAME_PLACES, names)
    assert len(places) >= at_least, places
    loose = [text for ok, text in places if not ok]
    assert loose == [], f"names not isolated in: {loose}"
    widest = page.evaluate(WIDEST)
    assert widest["right"] <= page.viewport_size["width"], widest
    assert_no_sideways_scroll(page)


@EVERY_LANGUAGE_AND_SIZE
def test_hostile_names_stay_in_their_place_on_every_page(  # type: ignore[no-untyped-def]
    seeded_server_url, new_page, locale, viewport
) -> None:
    base = seeded_server_url
    http = httpx.Client(base_url=base, timeout=30)
    room = http.post(
        "/api/rooms",
        json={"game": "gin_rummy", "players": 2, "options": {"target": 1}, "public": True},
    ).json()["room_id"]
    too_long = http.post(f"/api/rooms/{room}/join", json={"name": "W" * 40})
    assert too_long.status_code == 422, too_long.text
    joined = http.post(f"/api/rooms/{room}/join", json={"name": SPOOF, "seat": 0})
    assert joined.status_code == 201, joined.text
    friend = Seat(base, room, joined.json()["token"])
    cleaned = next(s["name"] for s in joined.json()["room"]["seats"] if s["seat"] == 0)
    assert cleaned == "Eve321 nimda"

    long_name = "W" * 26 + uuid.uuid4().hex[:6]
    page = new_page(locale, viewport=viewport)
    page.goto(f"{base}/r/{room}")
    page.fill("#join-name", long_name)
    page.click("#join-button")
    page.wait_for_selector("#identity-dialog[open], .seat-row")
    if page.locator("#identity-dialog[open]").count():
        page.fill("#identity-name", long_name)
        page.click("#identity-save")
    page.wait_for_selector(".seat-row")
    names = [cleaned, long_name]
    mine = Seat(base, room, seat_token(page, room)["token"])
    friend.ready()
    mine.ready()
    page.wait_for_selector("#my-hand")
    # A few moves each, so the move log and the last-move lines carry both names.
    for seat in (friend, mine, friend, mine):
        _, document = seat.state()
        if document["you"]["legal"]:
            seat.act(
                document["you"]["legal"][
                    -1 if document["game"]["tables"][0]["phase"] == "upcard_offer" else 0
                ]
            )
    page.wait_for_selector("#move-log li", state="attached")
    if not page.locator("#move-log[open]").count():
        page.click("#move-log summary")
    screenshot(page, f"names-room-{locale}-{viewport['width']}")
    assert_names_safe(page, names, at_least=4)

    play_gin_until([friend, mine], ("finished",))
    page.wait_for_selector("#match-banner")
    # Each seat's face beside its name in the results, as in the room and the history.
    assert page.locator("#hand-outcome .layout .who .avatar").count() == 2
    screenshot(page, f"names-results-{locale}-{viewport['width']}")
    assert_names_safe(page, names, at_least=4)
    match_id = page.evaluate("window.meldhall.store.state.room.match_id")

    page.goto(f"{base}/history")
    page.wait_for_selector(f'tr[data-match="{match_id}"]')
    assert page.locator(f'tr[data-match="{match_id}"] .avatar').count() >= 2
    screenshot(page, f"names-history-{locale}-{viewport['width']}")
    assert_names_safe(page, names, at_least=2)

    page.goto(f"{base}/history/{match_id}")
    page.wait_for_selector("#step-line")
    page.click("#step-last")
    page.wait_for_selector(".gin-table")
    screenshot(page, f"names-replay-{locale}-{viewport['width']}")
    assert_names_safe(page, names, at_least=2)
