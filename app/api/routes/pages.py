"""The browser client's entry page, also under the paths of invite, history, profile and
leaderboard links, and the client's static files, with the app's own not-found page for an
unknown address."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import Scope

from app.resources import STATIC

# Paths that belong to programs: an unknown one keeps answering with the JSON error body.
API_PREFIXES = ("/api/", "/ws/")
router = APIRouter(include_in_schema=False)


def index(status_code: int = 200) -> Response:
    page = STATIC / "index.html"
    if page.is_file():
        return FileResponse(page, status_code=status_code, media_type="text/html")
    return HTMLResponse(
        "<!doctype html><title>meldhall</title><p>meldhall is running.</p>",
        status_code=status_code,
    )


def wants_page(scope: Scope) -> bool:
    """A browser opening an address (not a program, a script or a stylesheet request)."""
    path: str = scope.get("path", "")
    if path.startswith(API_PREFIXES) or scope.get("method") not in ("GET", "HEAD"):
        return False
    accept = b"".join(value for name, value in scope.get("headers", ()) if name == b"accept")
    return b"text/html" in accept


class ClientFiles(StaticFiles):
    """static/ as files; a browser asking for an address that is nothing gets the client's page
    with status 404, and the client's router shows its not-found page.

    Mounted at the root, the files take every GET and HEAD the routes before them did not: a
    GET of a path that a route takes only with other methods (POST .../join) is answered here,
    as 405 with the methods the path takes rather than as an unknown address.
    """

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            return await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404:
                raise
            if taken_with_other_methods(scope):
                raise HTTPException(405) from None
            if not wants_page(scope):
                raise
            return index(status_code=404)


def taken_with_other_methods(scope: Scope) -> bool:
    app = scope.get("app")
    routes = getattr(getattr(app, "router", None), "routes", ())
    return any(route.matches(scope)[0] is Match.PARTIAL for route in routes)


@router.get("/")
async def home() -> Response:
    return index()


@router.get("/r/{room_id}")
async def room_page(room_id: str) -> Response:
    return index()


@router.get("/history")
@router.get("/history/{rest:path}")
async def history_page(rest: str = "") -> Response:
    return index()


@router.get("/rules")
async def rules_page() -> Response:
    return index()


@router.get("/p/{player_id}")
async def profile_page(player_id: str) -> Response:
    return index()


@router.get("/me")
async def own_profile_page() -> Response:
    return index()


@router.get("/leaderboards")
async def leaderboards_page() -> Response:
    return index()
