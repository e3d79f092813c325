"""A person asks for a hint on their turn: Gin marks the card or pile to take or play, Rummikub
shows the proposed table with an Apply button that plays it; a room without hints offers none."""

from __future__ import annotations

from app.bots.rummikub.solver import solve
from tests.browser.conftest import screenshot
from tests.browser.flows import create_room, state, version, wait_past


def test_a_gin_hint_marks_the_move_on_the_table(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    create_room(page, server_url, game="gin_rummy", name="Gina", bots={1: "easy"})
    page.click("#hint-button")
    page.wait_for_selector("#hint-text")
    assert page.locator("#hint-text").inner_text().startswith("Hint:")
    marked = page.locator(".hinted")
    assert marked.count() >= 1
    assert state(page)["room"]["hints"] is True
    screenshot(page, "gin-hint")
    # The first move of a hand, in whatever phase, takes a card or passes: the hint goes.
    before = version(page)
    marked.first.click()
    wait_past(page, before)
    page.wait_for_selector("#hint-text", state="detached")

    # Later in the hand, after a draw: the hint names a card of the hand to discard (or end on).
    page.wait_for_function(
        "(() => { const g = window.meldhall.store.state.game; const tb = g.tables[0];"
        " return tb.turn === 0 && tb.phase === 'discard'"
        " || tb.turn === 0 && tb.phase === 'draw'; })()"
    )
    if state(page)["game"]["tables"][0]["phase"] == "draw":
        before = version(page)
        page.click("#stock")
        wait_past(page, before)
    page.click("#hint-button")
    page.wait_for_selector("#my-hand .card.hinted")
    card = page.locator("#my-hand .card.hinted").get_attribute("data-card")
    assert card in state(page)["game"]["me"]["hand"]
    screenshot(page, "gin-hint-discard")
    assert page.console_errors == []


def test_the_lobby_offers_three_bot_levels_and_hints_on_by_default(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    page.goto(f"{server_url}/")
    page.wait_for_selector("#create-room")
    levels = page.locator("#seat-1 option").evaluate_all("options => options.map(o => o.value)")
    assert levels == ["human", "easy", "normal", "hard"]
    assert page.is_checked("#create-hints")
    page.click("#more-options summary")
    assert page.locator("label:has(#create-hints)").inner_text().strip() == "Allow hints"


def test_a_rummikub_hint_shows_the_table_and_apply_plays_it(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("zh-CN")
    # A dealt rack of 14 usually holds a meld, not always: deal again (a new room) until one
    # does, checking each time that the hint lays exactly what the solver would.
    for _deal in range(6):
        create_room(
            page,
            server_url,
            game="rummikub",
            name="Rita",
            bots={1: "easy"},
            options={"initial_meld_points": 1},
        )
        page.click("#hint-button")
        assert page.locator("#hint-button").inner_text() in ("提示", "思考中…")
        page.wait_for_selector("#hint-panel")
        rack = state(page)["game"]["rack"]
        best = solve([], rack, initial_meld_done=False, initial_meld_minimum=1)
        placed = page.locator("#rack .tile.hinted").count()
        assert placed == len(best.placed)
        if placed:
            break
        assert "没有可打的牌" in page.locator("#hint-panel").inner_text()
    else:
        raise AssertionError("six deals in a row held no meld")
    assert page.locator("#hint-panel .hint-table .tile.hinted").count() == placed
    screenshot(page, "rummikub-hint")
    before = version(page)
    page.click("#apply-hint")
    wait_past(page, before)
    page.wait_for_selector("#hint-panel", state="detached")
    game = state(page)["game"]
    assert game["seats"][0]["initial_meld_done"]
    assert len(game["rack"]) == len(rack) - placed
    assert page.console_errors == []


def test_a_room_without_hints_offers_no_hint_button(new_page, server_url) -> None:  # type: ignore[no-untyped-def]
    page = new_page("en-US")
    create_room(page, server_url, game="rummikub", name="Nora", bots={1: "easy"}, hints=False)
    page.wait_for_selector("#end-turn")
    assert state(page)["room"]["hints"] is False
    assert page.locator("#hint-button").count() == 0
