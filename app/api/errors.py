"""One error body for every failure: {"error": {"code": <stable code>, "message": <text>}}."""

from __future__ import annotations

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


HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 401: "missing_token"}


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
        code = HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        return error_response(code, str(exc.detail), exc.status_code)

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RoomError, on_rule_error)
    app.add_exception_handler(IllegalAction, on_rule_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
