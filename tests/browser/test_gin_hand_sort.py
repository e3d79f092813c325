"""The Gin Rummy hand sorts by suit or by rank at a button, beside the melds' own grouping and
drag-to-reorder; in both languages, on a desktop and a phone."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import screenshot
from tests.browser.flows import create_room
from tests.browser.phone import PHONE

DESKTOP = {"width": 1366, "height": 800}
SUITS = "SHCD"
LABELS = {"en-US": ("By suit", "By rank"), "zh-CN": ("按花色", "按点数")}


def shown(page: Any) -> list[str]:
    return page.locator("#my-hand .hand-row .card[data-card]").evaluate_all(
        "(cards) => cards.map((card) => card.dataset.card)"
    )


@pytest.mark.parametrize(
    ("locale", "viewport"), [("en-US", DESKTOP), ("zh-CN", PHONE)], ids=["en-desktop", "zh-phone"]
)
def test_the_hand_sorts_by_suit_and_by_rank(server_url, new_page, locale, viewport) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale, viewport=viewport)
    create_room(page, server_url, game="gin_rummy", name="Sven", bots={1: "easy"})
    page.wait_for_selector("#sort-rank")
    assert (page.inner_text("#sort-suit"), page.inner_text("#sort-rank")) == LABELS[locale]

    page.click("#sort-rank")
    page.wait_for_selector("#sort-melds")
    cards = shown(page)
    ranks = [int(card[1:]) for card in cards]
    assert len(cards) >= 10
    assert ranks == sorted(ranks), cards

    page.click("#sort-suit")
    cards = shown(page)
    keys = [(SUITS.index(card[0]), int(card[1:])) for card in cards]
    assert keys == sorted(keys), cards
    screenshot(page, f"gin-sorted-by-suit-{locale}-{viewport['width']}", full_page=False)

    page.click("#sort-melds")
    page.wait_for_selector("#my-hand .hand-groups")
