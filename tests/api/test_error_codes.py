"""Every error code the server can send is in the one table of codes (app.api.error_codes)."""

from __future__ import annotations

import ast
from pathlib import Path

from app.api.error_codes import ERROR_CODES
from app.api.errors import HTTP_CODES

APP = Path(__file__).resolve().parents[2] / "app"
# Calls whose first argument is a client-facing code: the error types and the socket's sender.
CODE_CALLS = {"IllegalAction", "RoomError", "ApiError", "BadMessage", "error_response"}


def called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        # `self.error("code", ...)` is the socket's error message; `log.error(...)` is a log line.
        is_log = isinstance(func.value, ast.Name) and func.value.id in {"log", "logger", "logging"}
        return None if func.attr == "error" and is_log else func.attr
    return None


def codes_in_source() -> dict[str, set[str]]:
    """Every string literal passed as the code of an error, with the files raising it."""
    found: dict[str, set[str]] = {}
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            if called_name(node) not in CODE_CALLS | {"error"}:
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.setdefault(first.value, set()).add(str(path.relative_to(APP.parent)))
    return found


def test_the_scan_finds_codes_of_every_layer() -> None:
    # Guards the scan itself: an engine's, a room's, the API's and the socket's codes.
    assert {"not_your_turn", "stale_version", "missing_token", "bad_json", "rate_limited"} <= set(
        codes_in_source()
    )


def test_every_code_raised_or_sent_is_in_the_table() -> None:
    missing = {code: sorted(files) for code, files in codes_in_source().items()}
    missing = {code: files for code, files in missing.items() if code not in ERROR_CODES}
    assert missing == {}


def test_every_http_fallback_code_is_in_the_table() -> None:
    assert set(HTTP_CODES.values()) <= set(ERROR_CODES)


def test_codes_are_lowercase_words_with_a_meaning() -> None:
    for code, entry in ERROR_CODES.items():
        assert code.replace("_", "").isalnum(), code
        assert code == code.lower(), code
        assert 400 <= entry.status < 600, code
        assert entry.meaning, code
