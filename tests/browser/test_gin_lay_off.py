"""The defender chooses its lay-offs: the knocker's layout on the table, the best lay-offs
checked, and what the buttons send, which the engine accepts, however the boxes are ticked."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

from app.games.engine import IllegalAction
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


def test_a_card_along_a_run_goes_with_the_cards_between_it_and_the_meld(module_page) -> None:
    page = module_page
    match, _, defender = knocked()
    mount(page, document(match, defender))
    boxes = page.locator(".lay-off input[data-card]")

    def checked() -> list[str | None]:
        ticked = (boxes.nth(i) for i in range(boxes.count()))
        return [box.get_attribute("data-card") for box in ticked if box.is_checked()]

    # H5 onto H1 H2 H3 needs H4: unticking H4 unticks H5, ticking H5 ticks H4 again.
    page.locator('.lay-off input[data-card="H4"]').uncheck()
    assert checked() == ["D10", "S3"]
    assert page.locator("#knock-layout .card.laid-off").count() == 2
    page.locator('.lay-off input[data-card="H5"]').check()
    assert checked() == ["D10", "H4", "H5", "S3"]
    page.locator('.lay-off input[data-card="H5"]').uncheck()
    assert checked() == ["D10", "H4", "S3"]
    page.locator("#lay-off").click()
    action = sent(page)
    assert [entry["card"] for entry in action["layoffs"]] == ["D10", "H4", "S3"]
    match.apply(defender, action)  # the engine takes it: H4 fits H1 H2 H3 alone

    match, _, defender = knocked()
    mount(page, document(match, defender))
    page.locator('.lay-off input[data-card="H4"]').uncheck()
    page.locator("#lay-off").click()
    action = sent(page)
    assert [entry["card"] for entry in action["layoffs"]] == ["D10", "S3"]
    match.apply(defender, action)


def knocks_with_lay_offs(count: int) -> list[tuple[GinRummy, int, list[list[str]], list[Any]]]:
    """Seeded matches played to a knock the defender may answer with two lay-offs or more:
    (match, defender, the knocker's melds, the defender's best lay-offs)."""
    found = []
    rng = random.Random(5)
    for seed in itertools.count():
        match = GinRummy.new({}, 2, seed=seed)
        while match.phase == "playing":
            view = deals.table(match)
            if view["phase"] == "lay_off":
                legal = match.legal_actions(view["turn"])
                best = next(a for a in legal if a["type"] == "lay_off")["layoffs"]
                if len(best) >= 2:
                    found.append((match, view["turn"], view["knock"]["melds"], best))
                break
            match.apply(*deals.seeded_move(match, rng))
        if len(found) == count:
            return found
    raise AssertionError("unreachable")


def taken(match: GinRummy, seat: int, layoffs: list[Any]) -> bool:
    trial = copy.deepcopy(match)
    try:
        trial.apply(seat, {"type": "lay_off", "layoffs": layoffs})
    except IllegalAction:
        return False
    return True


def test_the_client_lets_through_exactly_the_lay_offs_the_engine_takes(module_page) -> None:
    positions = knocks_with_lay_offs(20)
    rng = random.Random(7)
    # Per position, eight ticks and unticks of its boxes at random, as the chooser makes them.
    clicks = [
        [[rng.choice(best)["card"], rng.random() < 0.5] for _ in range(8)]
        for _, _, _, best in positions
    ]
    cases = [
        [melds, best, clicked]
        for (_, _, melds, best), clicked in zip(positions, clicks, strict=True)
    ]
    results = module_page.evaluate(
        """async (cases) => {
            const m = await import('/js/rules/gin_layouts.js');
            return cases.map(([melds, best, clicks]) => {
                let off = new Set();
                const offs = [];
                for (const [card, on] of clicks) {
                    off = m.toggleLayOff(best, melds, off, card, on);
                    offs.push([...off]);
                }
                return {needs: best.map((l) => m.layOffNeeds(l.card, melds[l.meld])), offs};
            });
        }""",
        cases,
    )
    fitting = refused = 0
    for (match, seat, _, best), result in zip(positions, results, strict=True):
        # Every subset of the best lay-offs: the engine takes it iff it holds what each needs.
        for size in range(len(best) + 1):
            for subset in itertools.combinations(range(len(best)), size):
                cards = {best[i]["card"] for i in subset}
                fits = all(set(result["needs"][i]) <= cards for i in subset)
                assert taken(match, seat, [best[i] for i in subset]) == fits, (best, subset)
                fitting, refused = fitting + fits, refused + (not fits)
        # Whatever the clicks left ticked, the engine takes.
        for off in result["offs"]:
            kept = [layoff for layoff in best if layoff["card"] not in off]
            assert taken(match, seat, kept), (best, off)
    # Both kinds were tried.
    assert fitting
    assert refused
