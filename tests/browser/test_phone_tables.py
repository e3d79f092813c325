"""Both games on a 390x844 touch screen: a player alone with bots starts without saying ready,
plays turns by tapping, and the page never runs off to the side: every card of a hand of ten
that makes no meld is whole and tappable, the Rummikub rack and its buttons stay on screen, the
players are listed once, a refused tap says why, and another player's last move is marked."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.flows import (
    GIN_MY_TURN_OR_OVER,
    RUMMIKUB_MY_TURN_OR_OVER,
    a_meld_on,
    create_room,
    state,
    version,
    wait_past,
)
from tests.browser.phone import (
    PHONE,
    assert_no_sideways_scroll,
    assert_on_screen,
    assert_whole_and_on_top,
    touch_drag,
)

OWN_GIN_TURNS = 3
OWN_RUMMIKUB_TURNS = 3
# Ample for a bot's turn between two of the player's, however loaded the machine.
BOT_TURN_MS = 60_000


def phone(new_page, locale: str = "en-US", **options):  # type: ignore[no-untyped-def]
    return new_page(locale, viewport=PHONE, is_mobile=True, has_touch=True, **options)


def in_both_languages(page, name: str, text_of: str) -> None:  # type: ignore[no-untyped-def]
    """The screen as the player sees it in English, then in Chinese (once `text_of`, an
    expression, reads Chinese): still nothing off to the side."""
    screenshot(page, f"{name}-en", full_page=False)
    page.select_option("#lang", "zh-CN")
    page.wait_for_function(f"/[\\u4e00-\\u9fff]/.test({text_of})")
    assert_no_sideways_scroll(page)
    screenshot(page, f"{name}-zh", full_page=False)


def tap(page, selector: str) -> None:  # type: ignore[no-untyped-def]
    before = version(page)
    page.locator(selector).tap()
    wait_past(page, before)


def gin_layout_holds(page) -> None:  # type: ignore[no-untyped-def]
    assert_no_sideways_scroll(page)
    hand = len(state(page)["game"]["me"]["hand"])
    assert_whole_and_on_top(page, "#my-hand .card", at_least=hand)
    for control in ("#stock", "#discard-top", "#discard-button", "#pass-upcard"):
        if page.locator(control).count():
            assert_whole_and_on_top(page, control)


def test_a_phone_plays_gin_with_a_hand_of_ten_unmelded_cards(new_page, seeded_server_url) -> None:  # type: ignore[no-untyped-def]
    page = phone(new_page, reduced_motion="reduce")
    create_room(page, seeded_server_url, game="gin_rummy", name="Alice", bots={1: "easy"})
    # Alone with a bot: nobody to wait for, so the page does not ask for "ready".
    page.wait_for_selector(".gin-table")
    assert page.locator("#ready-button").count() == 0
    me = state(page)["game"]["me"]
    assert len(me["hand"]) == 10
    assert me["arrangement"]["melds"] == []
    assert page.locator("#my-hand .deadwood-group .card").count() == 10
    gin_layout_holds(page)
    screenshot(page, "phone-gin-start-en", full_page=False)
    # The settings menu opens across the screen, not off its edge.
    page.locator("#prefs summary").tap()
    assert_on_screen(page, ".prefs-panel")
    page.locator("#prefs summary").tap()

    own_turns = 0
    took_discard = False
    saw_bot_move = False
    while own_turns < OWN_GIN_TURNS:
        page.wait_for_function(GIN_MY_TURN_OR_OVER, timeout=BOT_TURN_MS)
        document = state(page)
        table = document["game"]["tables"][0]
        if document["room"]["status"] != "playing":
            break
        if page.locator(".last-move").count():
            # The bot's last move is marked on the table and said in words, without motion.
            saw_bot_move = True
            assert page.locator("#last-move-1").inner_text().strip() != ""
            assert page.evaluate("document.documentElement.classList.contains('motion-off')")
            assert page.evaluate("document.getAnimations().length") == 0
        assert page.evaluate("document.title").startswith("▶")
        if table["phase"] == "upcard_offer":
            tap(page, "#pass-upcard")
        elif table["phase"] == "lay_off":
            tap(page, "#lay-off")
        elif table["phase"] == "draw":
            if not took_discard:
                tap(page, "#discard-top")
                took_discard = True
                taken = state(page)["game"]["me"]["taken_this_turn"]
                gin_layout_holds(page)
                # The card just taken cannot go straight back: the tap says so.
                page.locator(f'#my-hand .card[data-card="{taken}"]').tap()
                refusal = page.locator('.toast-error[data-code="cannot_discard_taken_card"]')
                refusal.wait_for()
                assert "just took" in refusal.inner_text()
            else:
                tap(page, "#stock")
        else:
            gin_layout_holds(page)
            if page.locator(".knock-button, .gin-button").count():
                tap(page, ".knock-button, .gin-button")
            else:
                page.locator("#my-hand .deadwood-group .card:not(.taken)").last.tap()
                page.locator("#discard-button").wait_for()
                gin_layout_holds(page)
                tap(page, "#discard-button")
            own_turns += 1
    assert own_turns == OWN_GIN_TURNS
    assert saw_bot_move
    gin_layout_holds(page)
    in_both_languages(page, "phone-gin", "document.querySelector('.gin .who').textContent")
    assert page.console_errors == []


def rummikub_layout_holds(page) -> None:  # type: ignore[no-untyped-def]
    assert_no_sideways_scroll(page)
    rack = len(state(page)["game"]["rack"])
    assert_whole_and_on_top(page, "#rack .tile", at_least=rack)
    page.evaluate("window.scrollTo(0, 0)")
    for control in ("#end-turn", "#draw-tile, #pass-turn"):
        assert_on_screen(page, control)


def lay_by_taps(page, tiles: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Tap a tile, then the place for it: a new meld, then that meld for the others."""
    first = page.locator("#rk-table .meld").count()
    page.locator(f'#rack .tile[data-tile="{tiles[0]}"]').tap()
    tap(page, "#new-meld")
    for tile in tiles[1:]:
        page.locator(f'#rack .tile[data-tile="{tile}"]').tap()
        before = version(page)
        page.locator(f'.meld[data-meld="{first}"] .meld-mark').tap()
        wait_past(page, before)
    assert "valid" in page.locator(f'.meld[data-meld="{first}"]').get_attribute("class").split()


def test_a_phone_plays_rummikub_with_the_rack_on_screen(new_page, seeded_server_url) -> None:  # type: ignore[no-untyped-def]
    page = phone(new_page)
    create_room(
        page,
        seeded_server_url,
        game="rummikub",
        name="Rita",
        players=3,
        bots={1: "easy", 2: "easy"},
        options={"initial_meld_points": 1},
    )
    page.wait_for_selector(".rummikub")
    assert page.locator("#ready-button").count() == 0
    # The players are listed once, with their racks' sizes.
    assert page.locator(".seat").count() == 3
    assert page.locator(".seat .rack-size").count() == 3

    own_turns = 0
    laid = False
    seen_marks: set[str] = set()
    reordered = False
    while own_turns < OWN_RUMMIKUB_TURNS:
        page.wait_for_function(RUMMIKUB_MY_TURN_OR_OVER, timeout=BOT_TURN_MS)
        game = state(page)["game"]
        if game["phase"] != "playing":
            break
        page.wait_for_selector("#end-turn")
        rummikub_layout_holds(page)
        seen_marks |= {
            f"#last-move-{seat}" for seat in (1, 2) if page.locator(f"#last-move-{seat}").count()
        }
        if not reordered:
            # A finger drags the last rack tile to the front: the rack keeps that order.
            tiles = page.locator("#rack .tile")
            last = tiles.last.get_attribute("data-tile")
            touch_drag(page, f'#rack .tile[data-tile="{last}"]', "#rack .tile >> nth=0")
            page.wait_for_selector("#own-order")
            assert page.locator("#rack .tile").first.get_attribute("data-tile") == last
            reordered = True
        meld = None if laid else a_meld_on(game["rack"])
        if meld:
            lay_by_taps(page, meld)
            laid = True
            rummikub_layout_holds(page)
            screenshot(page, "phone-rummikub-laid-en", full_page=False)
            tap(page, "#end-turn")
        else:
            tap(page, "#draw-tile, #pass-turn")
        own_turns += 1
    assert own_turns == OWN_RUMMIKUB_TURNS
    # Each bot's last play (or draw) is on its seat in words.
    assert seen_marks == {"#last-move-1", "#last-move-2"}
    in_both_languages(page, "phone-rummikub", "document.querySelector('#rack').textContent")
    assert page.console_errors == []
