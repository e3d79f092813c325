"""The screenshots in docs/images/, made from the real page.

Starts a meldhall server on 127.0.0.1 on a SQLite file in a temporary folder, opens headless
Chromium through Playwright, plays a few turns of a Gin Rummy room and of a Rummikub room
against bots as a person would (clicks in the page), and saves each table as a PNG:

    gin-rummy.png           Gin Rummy against a bot, 1366x800, English
    rummikub.png            Rummikub against three bots, 1366x800, English
    gin-rummy-phone-zh.png  Gin Rummy on a phone (390x844), Chinese

Run from the checkout, with the development extras installed and Chromium on the PATH
(`chromium`; fonts-wqy-microhei for the Chinese page):

    .venv/bin/python scripts/screenshots.py [--out docs/images]

Bots play their own cards, so each run shows other hands; run it again when the page changes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import sys
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser.flows import (  # noqa: E402
    GIN_MY_TURN_OR_OVER,
    RUMMIKUB_MY_TURN_OR_OVER,
    state,
    version,
    wait_past,
)
from tests.browser.phone import SETTLED  # noqa: E402
from tests.server_process import free_port, serving  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP: ViewportSize = {"width": 1366, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
WAIT_MS = 60_000
# Bots wait this long before a move: long enough for the fly-ins, short enough for a quick run.
BOT_DELAY_MS = "300"

GIN_DISCARD = """() => {
  const state = window.meldhall?.store?.state;
  return state?.game?.tables[0].phase === "discard" && state.game.tables[0].turn === state.you.seat;
}"""
# A meld in the player's own hand (the hand is shown grouped: melds, then the deadwood).
MELDED = ".hand-groups .meld-group:not(.deadwood-group)"
ROOMS_TO_TRY = 3


@contextmanager
def meldhall_server() -> Iterator[str]:
    """`meldhall serve` on a free local port, its SQLite file in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="meldhall-screenshots-") as data:
        port = free_port()
        env = {
            key: value
            for key, value in os.environ.items()
            if key != "DATABASE_URL" and not key.startswith("MELDHALL_")
        }
        env |= {
            "MELDHALL_DATA_DIR": data,
            "MELDHALL_BOT_DELAY_MS": BOT_DELAY_MS,
            "MELDHALL_LOG_LEVEL": "warning",
        }
        command = [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1"]
        with serving(
            [*command, "--port", str(port)],
            port,
            cwd=REPO,
            env=env,
            log=Path(data) / "server.log",
        ):
            yield f"http://127.0.0.1:{port}"


def new_page(browser: Browser, *, locale: str, viewport: ViewportSize, **options: Any) -> Page:
    context = browser.new_context(locale=locale, viewport=viewport, **options)
    context.set_default_timeout(WAIT_MS)
    return context.new_page()


def create_room(page: Page, base: str, *, game: str, name: str, bots: dict[int, str]) -> None:
    """The lobby's form filled in and sent, the name asked once answered, the table shown."""
    page.goto(f"{base}/")
    page.wait_for_selector("#create-room")
    page.check(f"input[name=game][value={game}]")
    page.fill("#create-name", name)
    page.select_option("#create-players", str(len(bots) + 1))
    for seat, level in bots.items():
        page.select_option(f"#seat-{seat}", level)
    page.click("#create-room")
    page.wait_for_selector("#identity-dialog[open], .seat-row")
    if page.locator("#identity-dialog[open]").count():
        page.fill("#identity-name", name)
        page.click("#identity-save")
    page.wait_for_url("**/r/*")


def click_and_wait(page: Page, selector: str) -> None:
    """A click that sends an action, and the page's store past the version it held."""
    before = version(page)
    page.click(selector)
    wait_past(page, before)


def play_gin_until_a_meld(page: Page, *, least_turns: int, most_turns: int) -> bool:
    """Draw from the stock and throw the last unmelded card until, after `least_turns`, the
    hand holds a meld; then draw once more and choose that card (the melds, the choice and its
    button shown). False if the hand ended first."""
    page.wait_for_selector(".gin-table")
    for turn in range(most_turns):
        page.wait_for_function(GIN_MY_TURN_OR_OVER, timeout=WAIT_MS)
        document = state(page)
        table = document["game"]["tables"][0]
        if document["room"]["status"] != "playing" or table["phase"] != "draw":
            if table["phase"] != "upcard_offer":
                return False
            click_and_wait(page, "#pass-upcard")
            continue
        page.click("#stock")
        page.wait_for_function(GIN_DISCARD, timeout=WAIT_MS)
        page.locator(".deadwood-group .card").last.click()
        if turn >= least_turns and page.locator(MELDED).count():
            return True
        click_and_wait(page, "#discard-button")
    return False


def gin_table(page: Page, base: str, *, name: str, level: str) -> None:
    """A Gin Rummy room against a bot, played until the hand shows a meld (a new room if the
    bot ends a hand first)."""
    for _ in range(ROOMS_TO_TRY):
        create_room(page, base, game="gin_rummy", name=name, bots={1: level})
        if play_gin_until_a_meld(page, least_turns=2, most_turns=10):
            return
    raise RuntimeError(f"no meld in hand in {ROOMS_TO_TRY} rooms")


def play_rummikub_turns(page: Page, *, melds: int, most_turns: int) -> None:
    """Draw every turn until the bots have laid `melds` melds (or `most_turns` turns)."""
    page.wait_for_selector(".rummikub")
    for _ in range(most_turns):
        page.wait_for_function(RUMMIKUB_MY_TURN_OR_OVER, timeout=WAIT_MS)
        if state(page)["game"]["phase"] != "playing":
            return
        page.wait_for_selector("#end-turn")
        if page.locator("#rk-table .meld").count() >= melds:
            return
        click_and_wait(page, "#draw-tile, #pass-turn")


def save(page: Page, path: Path, *, top: str, margin: int) -> None:
    """The screen as the player sees it, scrolled so that `top` starts `margin` pixels down."""
    page.wait_for_function(SETTLED)
    page.evaluate("document.fonts.ready")
    page.evaluate(
        """([selector, margin]) => {
          const y = document.querySelector(selector).getBoundingClientRect().top + scrollY;
          window.scrollTo(0, Math.max(0, y - margin));
        }""",
        [top, margin],
    )
    page.wait_for_function(SETTLED)
    path.write_bytes(smaller_png(page.screenshot(full_page=False)))
    print(f"{path}: {path.stat().st_size // 1024} KB")


def smaller_png(data: bytes) -> bytes:
    """The same PNG with its image data compressed at zlib's highest level (Chromium writes
    it fast, about an eighth larger)."""
    signature, chunks, image = data[:8], [], b""
    position = 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += length + 12
        if kind == b"IDAT":
            image += body
        else:
            chunks.append((kind, body))
    packed = zlib.compress(zlib.decompress(image), 9)
    out = signature
    for kind, body in chunks:
        if kind == b"IEND":
            out += png_chunk(b"IDAT", packed)
        out += png_chunk(kind, body)
    return out


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "images")
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("chromium is not on the PATH")
    with meldhall_server() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = new_page(browser, locale="en-US", viewport=DESKTOP)
            gin_table(page, base, name="Alice", level="hard")
            save(page, out / "gin-rummy.png", top=".gin-table", margin=70)

            page = new_page(browser, locale="en-US", viewport=DESKTOP)
            bots = {1: "hard", 2: "normal", 3: "easy"}
            create_room(page, base, game="rummikub", name="Rita", bots=bots)
            play_rummikub_turns(page, melds=4, most_turns=12)
            save(page, out / "rummikub.png", top=".seat", margin=12)

            page = new_page(browser, locale="zh-CN", viewport=PHONE, is_mobile=True, has_touch=True)
            gin_table(page, base, name="小明", level="normal")
            save(page, out / "gin-rummy-phone-zh.png", top=".gin-table", margin=8)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
