"""A knocker picks the melds to lay out: the client's layouts against the engine's, and the
chooser beside a knock button on a table whose kept cards lay out two ways."""

from __future__ import annotations

import json
import random
from typing import Any

from app.games.gin_rummy.cards import names, to_mask
from app.games.gin_rummy.layoffs import knocker_layout
from app.games.gin_rummy.melds import best_arrangements_mask
from tests.browser.test_client_modules import module_page
from tests.games.gin_rummy.deals import rigged, seats

__all__ = ["module_page"]  # the client modules' page, shared as a fixture

TWO_LAYOUTS = "C1 C2 D6 D7 D8 H2 S1 S2 S3 C13"
TWOS = [["C2", "H2", "S2"], ["D6", "D7", "D8"]]
LOW_SPADES = [["D6", "D7", "D8"], ["S1", "S2", "S3"]]


def canonical(melds: Any) -> list[list[str]]:
    return sorted(sorted(meld) for meld in melds)


def js_layouts(page, kept: list[str], visible: dict[str, Any]) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return page.evaluate(  # type: ignore[no-any-return]
        """async ([kept, visible]) => {
            const m = await import('/js/rules/gin_layouts.js');
            return m.knockLayouts(kept, visible);
        }""",
        [kept, visible],
    )


def test_the_client_offers_the_engines_layouts_best_first(module_page) -> None:
    rng = random.Random(3)
    compared = 0
    for _ in range(20_000):
        deck = list(range(52))
        rng.shuffle(deck)
        kept = to_mask(deck[:10])
        if len(best_arrangements_mask(kept)) < 2:
            continue
        seen = to_mask(deck[:11] + deck[21:24])  # own cards, knock card, a short pile
        known = to_mask(deck[24:25])
        engine = [canonical(names(m) for m in a.melds) for a in best_arrangements_mask(kept)]
        visible = {
            "seen": names(deck[:11] + deck[21:24]),
            "defenderKnown": names(deck[24:25]),
            "defenderHidden": 9,
        }
        client = js_layouts(module_page, names(deck[:10]), visible)
        assert sorted(canonical(c["melds"]) for c in client) == sorted(engine)
        best = knocker_layout(kept, seen, known, 9)
        if client[0]["exposure"] < client[1]["exposure"]:
            assert canonical(client[0]["melds"]) == canonical(names(m) for m in best.melds)
        compared += 1
        if compared == 25:
            break
    assert compared == 25


def mount(page, document: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    page.evaluate(
        """async (state) => {
            document.body.replaceChildren();
            const container = document.createElement('div');
            document.body.append(container);
            window.sent = [];
            const controller = {
                act: async (action) => { window.sent.push(action); },
                hint: async () => ({action: null}),
            };
            const m = await import('/js/views/gin_table.js');
            const table = m.createGinTable(container, controller);
            table.update(state);
        }""",
        document,
    )


def knock_table() -> dict[str, Any]:
    """The state document of a seat holding TWO_LAYOUTS and S5, its knock card C13."""
    match = rigged(TWO_LAYOUTS, "C4 C6 C8 H10 H12 S11 S13 D11 D13 H13", "S5")
    first, _ = seats(match)
    match.apply(first, {"type": "take_upcard"})
    room = {"seats": [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bo"}], "hints": False}
    you = {"seat": first, "legal": match.legal_actions(first)}
    return json.loads(json.dumps({"room": room, "you": you, "game": match.view(first)}))


def test_the_knock_chooser_lays_out_the_best_layout_or_the_one_picked(module_page) -> None:
    page = module_page
    mount(page, knock_table())
    chooser = page.locator('details.layout-picker[data-card="C13"]')
    assert chooser.count() == 1
    chooser.locator("summary").click()
    options = chooser.locator("input[type=radio]")
    assert options.count() == 2
    assert options.nth(0).is_checked()
    page.locator('.knock-button[data-card="C13"]').click()
    page.wait_for_function("window.sent.length === 1")
    sent = page.evaluate("window.sent[0]")
    assert (sent["type"], sent["card"]) == ("knock", "C13")
    assert canonical(sent["melds"]) == TWOS  # the best: 2-2-2 offers D2, the spades S4
    mount(page, knock_table())
    chooser = page.locator('details.layout-picker[data-card="C13"]')
    chooser.locator("summary").click()
    chooser.locator("input[type=radio]").nth(1).check()
    assert page.locator('details.layout-picker[data-card="C13"] input').nth(1).is_checked()
    page.locator('.knock-button[data-card="C13"]').click()
    page.wait_for_function("window.sent.length === 1")
    assert canonical(page.evaluate("window.sent[0]")["melds"]) == LOW_SPADES
