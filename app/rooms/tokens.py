"""Seat tokens: random secrets handed out once and kept only as their sha256."""

from __future__ import annotations

import hashlib
import secrets

# 32 random bytes: far beyond the 128 bits the design asks for, and still a short URL-safe string.
TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_room_id() -> str:
    # 72 bits: an invite link to a private room must not be guessable.
    return secrets.token_urlsafe(9)
