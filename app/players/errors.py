"""Refusals about players, each with a stable code (its status is in app.api.error_codes)."""

from __future__ import annotations


class PlayerError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
