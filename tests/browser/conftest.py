"""Browser test plumbing: Debian's Chromium through Playwright, a static file server for the
client's pure modules, and a real meldhall server in a subprocess for end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
START_TIMEOUT_S = 20.0
# Every wait in these tests is for a condition, never for time to pass: a generous bound costs
# nothing when the page is quick and spares a loaded machine a false failure.
WAIT_TIMEOUT_MS = 30_000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    raise RuntimeError(f"server did not answer {url} within {START_TIMEOUT_S}s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


@pytest.fixture(scope="session")
def static_url() -> Iterator[str]:
    """static/ served as plain files: the client's modules without the app."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=REPO / "static",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{url}/index.html", process)
        yield url
    finally:
        stop(process)


@contextmanager
def meldhall_server(data: Path, app: str, **settings: str) -> Iterator[str]:
    """A real meldhall server (`app`: an app factory) on a random local port in a subprocess,
    with its data in `data` and MELDHALL_ settings from `settings`."""
    port = free_port()
    env = {**os.environ, "MELDHALL_DATA_DIR": str(data), **settings}
    env.pop("DATABASE_URL", None)
    log = (data / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{url}/healthz", process)
        yield url
    finally:
        stop(process)
        log.close()


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real meldhall server on a random local port with its own data directory."""
    with meldhall_server(
        tmp_path_factory.mktemp("meldhall-data"),
        "app.main:create_app",
        MELDHALL_BOT_DELAY_MS="50",
        MELDHALL_BETWEEN_HANDS_S="2",
        MELDHALL_RECONNECT_GRACE_S="5",
    ) as url:
        yield url


# Gin Rummy's first deal from this seed gives both players ten cards that make no meld: the
# widest hand a phone must fit.
UNMELDED_SEED = 6


@pytest.fixture(scope="session")
def seeded_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose every match is dealt from UNMELDED_SEED, with a pause between hands
    long enough to look at the result and a short reconnect grace."""
    with meldhall_server(
        tmp_path_factory.mktemp("meldhall-seeded"),
        "tests.browser.seeded_app:create",
        MELDHALL_TEST_SEED=str(UNMELDED_SEED),
        MELDHALL_BOT_DELAY_MS="150",
        MELDHALL_BETWEEN_HANDS_S="60",
        MELDHALL_RECONNECT_GRACE_S="4",
    ) as url:
        yield url


# Package scope: Playwright's sync API keeps an event loop running in the main thread while it
# is open, which would stop every asyncio test collected after the browser tests.
@pytest.fixture(scope="package")
def browser(chromium_path: str) -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def new_page(browser):  # type: ignore[no-untyped-def]
    """Pages in fresh contexts (separate storage, like separate people); closed afterwards."""
    contexts = []

    def make(locale: str = "en-US", viewport: dict[str, int] | None = None, **options):  # type: ignore[no-untyped-def]
        """options: more of Playwright's context options (is_mobile, has_touch, ...)."""
        context = browser.new_context(
            locale=locale, viewport=viewport or {"width": 1280, "height": 860}, **options
        )
        context.set_default_timeout(WAIT_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on(
            "console",
            lambda message: (
                page.console_errors.append(message.text) if message.type == "error" else None
            ),
        )
        page.on("pageerror", lambda error: page.console_errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()


def screenshot(page, name: str, *, full_page: bool = True) -> Path:  # type: ignore[no-untyped-def]
    """The page into test-artifacts/screenshots/ (not kept in the repository); `full_page`
    False takes the screen as the player sees it, with docked parts where they stick."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path
