"""The browser's pages: the client at every address it routes, the app's own not-found page for
an unknown address, and JSON errors for programs and API paths."""

from __future__ import annotations

import httpx
import pytest

from tests.api.live import live_server

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def http():  # type: ignore[no-untyped-def]
    with live_server() as live, httpx.Client(base_url=live.http) as client:
        yield client


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/r/AnyRoom",
        "/history",
        "/history/abc",
        "/rules",
        "/p/AnyPlayer",
        "/me",
        "/leaderboards",
    ],
)
def test_the_client_is_served_at_each_address_it_routes(http, path) -> None:
    answer = http.get(path, headers=BROWSER)
    assert answer.status_code == 200
    assert '<main id="view"' in answer.text


@pytest.mark.parametrize(
    "path", ["/nowhere", "/rules/nothing-here", "/r/a/b", "/p/a/b", "/js/nope.js"]
)
def test_a_browser_at_an_unknown_address_gets_the_app_with_status_404(http, path) -> None:
    answer = http.get(path, headers=BROWSER)
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert '<main id="view"' in answer.text


@pytest.mark.parametrize("path", ["/api/nowhere", "/api/rooms/x/nothing", "/ws/nowhere"])
def test_an_unknown_api_path_answers_json_even_to_a_browser(http, path) -> None:
    answer = http.get(path, headers=BROWSER)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_a_program_at_an_unknown_address_gets_json(http) -> None:
    answer = http.get("/nowhere", headers={"Accept": "application/json"})
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_static_files_are_still_served(http) -> None:
    answer = http.get("/js/app.js", headers={"Accept": "*/*"})
    assert answer.status_code == 200
    assert "javascript" in answer.headers["content-type"]
