"""The defender chooses its lay-offs: the knocker's layout on the table, the best lay-offs
checked, and what the buttons send, which the engine accepts."""

from __future__ import annotations

import json
from typing import Any

from app.games.gin_rummy import GinRummy
from tests.browser.test_client_modules import module_page
from tests.browser.test_gin_knock_layout import mount
from tests.games.gin_rummy import deals

__all__ = ["module_page"]  # the client modules' page, shared as a fixture

KNOCKER = "H1 H2 H3 S4 S5 S6 D7 D8 D9 C13"
DEFENDER = "H4 H5 D10 S3 C7 C8 C9 S11 D12 C12"


def knocked() -> tuple[GinRummy, int, int]:
    return deals.knocked(KNOCKER, DEFENDER, "C2")


def document(match: GinRummy, seat: int) -> dict[str, Any]:
    room = {"seats": [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bo"}], "hints": False}
    you = {"seat": seat, "legal": match.legal_actions(seat)}
    return json.loads(json.dumps({"room": room, "you": you, "game": match.view(seat)}))  # type: ignore[no-any-return]


def sent(page) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    page.wait_for_function("window.sent.length === 1")
    return page.evaluate("window.sent[0]")  # type: ignore[no-any-return]


def test_the_defender_lays_off_the_best_or_what_it_leaves_checked(module_page) -> None:
    page = module_page
    match, _, defender = knocked()
    mount(page, document(match, defender))
    panel = page.locator("#knock-layout")
    assert panel.locator(".meld-group").count() == 4  # three melds and the deadwood C2
    boxes = panel.locator(".lay-off input[type=checkbox]")
    assert boxes.count() == 4
    assert all(boxes.nth(i).is_checked() for i in range(4))
    assert panel.locator(".card.laid-off").count() == 4
    assert page.locator("#turn-line").inner_text().startswith("You are the defender")
    assert page.locator("#deadwood-after").inner_text().endswith(": 30")
    page.locator('.lay-off input[data-card="S3"]').uncheck()
    assert page.locator("#deadwood-after").inner_text().endswith(": 33")
    assert panel.locator(".card.laid-off").count() == 3
    assert panel.locator('.card.laid-off[data-card="S3"]').count() == 0
    page.locator("#lay-off").click()
    action = sent(page)
    assert [entry["card"] for entry in action["layoffs"]] == ["D10", "H4", "H5"]
    match.apply(defender, action)
    record = match.view(None)["tables"][0]["outcome"]
    assert record["points"] == 33 - 2  # S3 (3) left with S11 D12 C12

    match, _, defender = knocked()
    mount(page, document(match, defender))
    page.locator("#lay-off-none").click()
    action = sent(page)
    assert action == {"type": "lay_off", "layoffs": []}
    match.apply(defender, action)
    assert match.view(None)["tables"][0]["outcome"]["points"] == 52 - 2


def test_the_knocker_sees_its_layout_and_waits(module_page) -> None:
    page = module_page
    match, knocker, _ = knocked()
    mount(page, document(match, knocker))
    panel = page.locator("#knock-layout")
    assert panel.locator(".meld-group").count() == 4
    assert panel.locator("input").count() == 0
    assert "chooses what to lay off" in page.locator("#turn-line").inner_text()
