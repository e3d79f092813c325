"""Rummikub melds keep their places across the other players' turns: after a bot's whole play
and after a friend's turn played move by move through the API, every meld they did not touch
is where it was, in the table's order and on the screen, in both languages, on a phone and a
desktop."""

from __future__ import annotations

from typing import Any

import httpx

from app.bots.rummikub.basic import rack_melds
from app.games.rummikub.melds import meld_value, read_meld
from app.games.rummikub.run_order import in_run_order
from tests.browser.api_seats import Seat
from tests.browser.conftest import screenshot
from tests.browser.flows import join_by_link, press_ready, state, wait_past
from tests.browser.phone import EVERY_LANGUAGE_AND_SIZE, SETTLED

FRIEND, BOT = 1, 2
MAX_TURNS = 60
# An easy start, so melds come to the table within a few turns of the seeded deal.
OPTIONS = {"initial_meld_points": 1, "tiles_per_player": 20}

# Every state the page draws: whose turn it is and each meld's tiles and place in the table.
RECORD = """() => {
  window.meldPlaces = [];
  window.meldhall.store.subscribe((state, version) => queueMicrotask(() => {
    const game = state?.game;
    const table = document.querySelector('#rk-table');
    if (!game || !table) return;
    const origin = table.getBoundingClientRect();
    const melds = [...table.querySelectorAll('.meld')].map((meld) => {
      const box = meld.getBoundingClientRect();
      const tiles = [...meld.querySelectorAll('.meld-tiles .tile')].map((t) => t.dataset.tile);
      return {tiles, x: box.left - origin.left, y: box.top - origin.top};
    });
    const seat = game.phase === 'playing' ? game.turn.seat : null;
    window.meldPlaces.push({version, seat, melds});
  }));
}"""

# The page holds a state where the bot is not to move, or the round is over.
NOT_THE_BOTS_TURN = f"""() => {{
  const game = window.meldhall?.store?.state?.game;
  return Boolean(game) && (game.phase !== "playing" || game.turn.seat !== {BOT});
}}"""


def a_room_with_a_friend_and_a_bot(base: str, page: Any) -> tuple[Seat, Seat]:
    http = httpx.Client(base_url=base, timeout=30)
    created = http.post(
        "/api/rooms",
        json={
            "game": "rummikub",
            "players": 3,
            "options": OPTIONS,
            "bots": [{"seat": BOT, "level": "normal"}],
        },
    )
    assert created.status_code == 201, created.text
    room = created.json()["room_id"]
    joined = http.post(f"/api/rooms/{room}/join", json={"name": "Fern", "seat": FRIEND})
    assert joined.status_code == 201, joined.text
    friend = Seat(base, room, joined.json()["token"])
    join_by_link(page, f"{base}/r/{room}", "Gale")
    page.evaluate(RECORD)
    friend.ready()
    press_ready(page)
    page.wait_for_selector("#rk-table")
    token = page.evaluate(f"JSON.parse(localStorage.getItem('meldhall.token.{room}')).token")
    return friend, Seat(base, room, token)


def extensions(table: list[list[str]], rack: list[str]) -> list[tuple[str, int]]:
    """A rack tile for each table meld it extends into a meld, at most one a meld."""
    found: list[tuple[str, int]] = []
    used: set[str] = set()
    for index, meld in enumerate(table):
        for tile in rack:
            grown = in_run_order([*meld, tile]) or [*meld, tile]
            if tile not in used and read_meld(grown).valid:
                found.append((tile, index))
                used.add(tile)
                break
    return found


def play_a_turn(seat: Seat, *, step_by_step: bool) -> int:
    """New melds from the rack, then (once melded) tiles added to the table's melds: as one
    whole play, or move by move; a draw when there is nothing to lay. Returns the version the
    turn ended at."""
    _, document = seat.state()
    game = document["game"]
    me = document["you"]["seat"]
    rack = list(game["rack"])
    table = [list(meld["tiles"]) for meld in game["table"]]
    melded = game["seats"][me]["initial_meld_done"]
    melds = rack_melds(rack)
    if not melded and sum(meld_value(meld) for meld in melds) < OPTIONS["initial_meld_points"]:
        melds = []
    left = [tile for tile in rack if all(tile not in meld for meld in melds)]
    extend = extensions(table, left) if melded else []
    if not melds and not extend and not (melded and len(table) > 1):
        return seat.act({"type": "draw" if game["pool_size"] else "pass"})
    if not step_by_step:
        after = [list(meld) for meld in table]
        for tile, index in extend:
            after[index] = in_run_order([*after[index], tile]) or [*after[index], tile]
        return seat.act({"type": "play", "table": after + melds})
    for tile, index in extend:
        seat.act({"type": "move", "tile": tile, "to": index})
    # A meld with melds after it cut after its first tile, which then goes back: the melds
    # after it must not move meanwhile.
    cut = next((i for i, meld in enumerate(table[:-1]) if melded and len(meld) >= 4), None)
    if cut is not None:
        first = seat.state()[1]["game"]["tentative"]["table"][cut]["tiles"][0]
        seat.act({"type": "split", "meld": cut, "at": 1})
        seat.act({"type": "move", "tile": first, "to": cut})
    for meld in melds:
        seat.act({"type": "move", "tile": meld[0], "to": "new"})
        at = len(seat.state()[1]["game"]["tentative"]["table"]) - 1
        for tile in meld[1:]:
            seat.act({"type": "move", "tile": tile, "to": at})
    return seat.act({"type": "end_turn"})


def turns_of_others(records: list[dict[str, Any]]) -> list[tuple[str, Any, Any]]:
    """(whose, table before, table after) for each turn of the friend and the bot the page drew
    from start to end, and for each step of the friend's turns (a "split" or a "step")."""
    turns = []
    for index in range(1, len(records)):
        seat = records[index]["seat"]
        if seat not in (FRIEND, BOT) or records[index - 1]["seat"] == seat:
            continue
        end = next((at for at in range(index, len(records)) if records[at]["seat"] != seat), None)
        if end is None:
            continue
        turns.append(
            ("friend" if seat == FRIEND else "bot", records[index]["melds"], records[end]["melds"])
        )
        if seat == FRIEND:
            turns += [
                step(records[at]["melds"], records[at + 1]["melds"]) for at in range(index, end)
            ]
    return turns


def step(before: list[Any], after: list[Any]) -> tuple[str, Any, Any]:
    """A step of the friend's turn: a "split" when it made one meld more out of the table's own
    tiles, else a "step"."""
    old, new = ([meld["tiles"] for meld in melds] for melds in (before, after))
    split = len(new) > len(old) and any(tiles not in new for tiles in old)
    return ("split" if split else "step", before, after)


def assert_untouched_melds_kept_their_places(before: list[Any], after: list[Any]) -> int:
    """Each meld left as it was is at its old place, less the old melds before it that are
    gone (their tiles joined a larger one); those before the first change are where they were
    on the screen. Returns how many melds were left as they were."""
    old = [meld["tiles"] for meld in before]
    new = [meld["tiles"] for meld in after]
    # A meld came from the old meld it shares the most tiles with; the one holding the most of
    # an old meld's tiles carries it on.
    heirs: dict[int, int] = {}
    for meld in new:
        shared = [len(set(meld) & set(tiles)) for tiles in old]
        if max(shared, default=0):
            origin = shared.index(max(shared))
            heirs[origin] = max(heirs.get(origin, 0), max(shared))
    untouched = 0
    for index, tiles in enumerate(old):
        if tiles not in new:
            continue
        untouched += 1
        place = sum(1 for earlier in range(index) if earlier in heirs)
        assert new.index(tiles) == place, (index, old, new)
        if old[:index] == new[:index]:
            moved = (after[index]["x"] - before[index]["x"], after[index]["y"] - before[index]["y"])
            assert max(map(abs, moved)) <= 1, (tiles, moved, before, after)
    return untouched


@EVERY_LANGUAGE_AND_SIZE
def test_untouched_melds_keep_their_places_across_a_bots_and_a_friends_turn(  # type: ignore[no-untyped-def]
    seeded_server_url, new_page, locale, viewport
) -> None:
    page = new_page(locale, viewport=viewport)
    friend, mine = a_room_with_a_friend_and_a_bot(seeded_server_url, page)
    seen = {"friend": 0, "bot": 0, "step": 0, "split": 0}
    for _ in range(MAX_TURNS):
        page.wait_for_function(NOT_THE_BOTS_TURN)
        game = state(page)["game"]
        if game["phase"] != "playing" or all(seen.values()):
            break
        seat = friend if game["turn"]["seat"] == FRIEND else mine
        done = play_a_turn(seat, step_by_step=seat is friend)
        wait_past(page, done - 1)
        seen = dict.fromkeys(seen, 0)
        for who, found, left in turns_of_others(page.evaluate("window.meldPlaces")):
            if found != left:
                seen[who] += bool(assert_untouched_melds_kept_their_places(found, left))
    # Turns and steps that changed the table and left a meld as it was: some of each.
    assert all(seen.values()), seen
    page.evaluate("document.querySelector('#rk-table').scrollIntoView({block: 'start'})")
    page.wait_for_function(SETTLED)
    screenshot(page, f"rummikub-meld-places-{locale}-{viewport['width']}", full_page=False)
