"""One error body for every failure: {"error": {"code": <stable code>, "message": <text>}}."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.api.error_codes import status_of
from app.games.engine import IllegalAction
from app.rooms.errors import RoomError


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status or status_of(code)


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def error_response(code: str, message: str, status: int | None = None) -> JSONResponse:
    status = status or status_of(code)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        parts.append(f"{where or 'body'}: {error.get('msg', 'invalid')}")
    return "; ".join(parts) or "the request is not valid"


# Starlette's own refusals: a body FastAPI could not parse (400) is a bad request like any
# other that does not match the schema, with that code's status.
HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    401: "missing_token",
}


def allowed_methods(request: Request, refused: StarletteHTTPException) -> str:
    """Every method the API takes on this path. Several routes may share a path, and the one
    that refused (often the static files under every path) knows only its own, so the paths of
    the OpenAPI document are asked first."""
    methods: set[str] = set()
    path = request.url.path
    for template, operations in request.app.openapi()["paths"].items():
        pattern = "[^/]+".join(map(re.escape, re.split(r"\{[^}/]+\}", template)))
        if re.fullmatch(pattern, path):
            methods |= {method.upper() for method in operations}
    if "GET" in methods:
        methods.add("HEAD")
    # No API path: the refusing route's own list, else the static files, which are only read.
    return ", ".join(sorted(methods)) or (refused.headers or {}).get("Allow", "GET, HEAD")


def install_error_handlers(app: FastAPI) -> None:
    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc.code, exc.message, exc.status)

    async def on_rule_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RoomError | IllegalAction)
        return error_response(exc.code, exc.message)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return error_response("bad_request", describe_validation(exc), 422)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = HTTP_CODES.get(exc.status_code)
        if code is None:
            return error_response(f"http_{exc.status_code}", str(exc.detail), exc.status_code)
        response = error_response(code, str(exc.detail))
        if exc.status_code == 405:
            response.headers["Allow"] = allowed_methods(request, exc)
        return response

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RoomError, on_rule_error)
    app.add_exception_handler(IllegalAction, on_rule_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
