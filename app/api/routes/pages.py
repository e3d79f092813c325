"""The browser client's entry page, also under the paths of invite and history links."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, Response

from app.resources import STATIC

router = APIRouter(include_in_schema=False)


def index() -> Response:
    page = STATIC / "index.html"
    if page.is_file():
        return FileResponse(page, media_type="text/html")
    return HTMLResponse("<!doctype html><title>meldhall</title><p>meldhall is running.</p>")


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
@router.get("/rules/{rest:path}")
async def rules_page(rest: str = "") -> Response:
    return index()
