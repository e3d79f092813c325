"""What a person does in the page, as small steps the browser tests share."""

from __future__ import annotations

import itertools
import json
import uuid
from typing import Any

from app.games.rummikub.melds import read_meld

ACTION_TIMEOUT_MS = 30_000


def state(page: Any) -> dict[str, Any]:
    """The state document the page's store holds right now."""
    return page.evaluate("window.meldhall.store.state")


def version(page: Any) -> int:
    return page.evaluate("window.meldhall.store.version")


def wait_past(page: Any, old: int) -> None:
    page.wait_for_function(f"window.meldhall?.store?.version > {old}", timeout=ACTION_TIMEOUT_MS)


def seat_token(page: Any, room_id: str) -> dict[str, Any]:
    raw = page.evaluate(f"localStorage.getItem('meldhall.token.{room_id}')")
    return json.loads(raw)


def room_id(page: Any) -> str:
    return page.url.rstrip("/").split("/r/")[1].split("?")[0]


def unique_name(name: str) -> str:
    """`name` made the server's own: names are unique on a server, and the tests share one."""
    return f"{name} {uuid.uuid4().hex[:6]}"


def take_the_seat(page: Any, name: str) -> None:
    """After a click that takes a seat: answer the name dialog of a browser's first seat (with a
    name of `name`'s made unique) and wait for the room's seats."""
    page.wait_for_selector("#identity-dialog[open], .seat-row")
    if page.locator("#identity-dialog[open]").count():
        page.fill("#identity-name", unique_name(name))
        page.click("#identity-save")
    page.wait_for_selector(".seat-row")


def create_room(
    page: Any,
    base: str,
    *,
    game: str,
    name: str,
    players: int = 2,
    bots: dict[int, str] | None = None,
    options: dict[str, int] | None = None,
    hints: bool = True,
    rated: bool = True,
) -> str:
    """Fill the lobby's form and create the room; returns the invite link the page shows."""
    page.goto(f"{base}/")
    page.wait_for_selector("#create-room")
    page.check(f"input[name=game][value={game}]")
    page.fill("#create-name", name)
    page.select_option("#create-players", str(players))
    for seat, level in (bots or {}).items():
        page.select_option(f"#seat-{seat}", level)
    if options or not hints or not rated:
        page.click("#more-options summary")
    for option, value in (options or {}).items():
        page.fill(f"#opt-{option}", str(value))
        page.dispatch_event(f"#opt-{option}", "change")
    if not hints:
        page.set_checked("#create-hints", False)
    if not rated:
        page.set_checked("#create-rated", False)
    page.click("#create-room")
    take_the_seat(page, name)
    page.wait_for_url("**/r/*")
    return page.input_value(".invite-link")


def join_by_link(page: Any, link: str, name: str) -> None:
    page.goto(link)
    page.wait_for_selector("#join-name")
    page.fill("#join-name", name)
    page.click("#join-button")
    take_the_seat(page, name)


def press_ready(page: Any) -> None:
    page.click("#ready-button")


def a_meld_on(rack: list[str]) -> list[str] | None:
    """Three rack tiles that read as a meld in some order, in that order."""
    for three in itertools.combinations(rack, 3):
        for order in itertools.permutations(three):
            if read_meld(list(order)).valid:
                return list(order)
    return None


# The page's seat is to act in its Gin Rummy table, or the match is over.
GIN_MY_TURN_OR_OVER = """() => {
  const state = window.meldhall?.store?.state;
  if (!state?.game) return false;
  if (state.room.status !== "playing") return true;
  return state.game.tables[0].turn === state.you.seat;
}"""

# The page's seat is to act in Rummikub, or the round is over.
RUMMIKUB_MY_TURN_OR_OVER = """() => {
  const game = window.meldhall?.store?.state?.game;
  const seat = window.meldhall?.store?.state?.you?.seat;
  return Boolean(game) && (game.phase !== "playing" || game.turn.seat === seat);
}"""


# The rule documents' own Chinese terms, which the client must use.
CHINESE_TERMS = (
    "金拉米",
    "敲牌",
    "散牌",
    "清牌",
    "大清牌",
    "搭接",
    "反扣",
    "拉密",
    "首次出牌",
    "百搭牌",
    "公共牌池",
)
