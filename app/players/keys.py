"""Player ids, secret player keys and one-time link codes.

A key is 192 random bits; the server keeps its SHA-256 only. A link code is 8 characters of
Crockford's base 32 (no I, L, O or U, so it reads aloud and types without doubt): 3 name which
code it is, 5 are its secret (kept hashed). A code lives 10 minutes, is used once, and locks
after five wrong secrets, so guessing one is hopeless within its life.
"""

from __future__ import annotations

import hashlib
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
LOCATOR_LENGTH = 3
CODE_LENGTH = 8
# What people type for what they see: case does not matter, I and L read as 1, O as 0.
_TYPED = str.maketrans({"I": "1", "L": "1", "O": "0"})


def new_player_id() -> str:
    return secrets.token_urlsafe(12)


def new_player_key() -> str:
    return secrets.token_urlsafe(24)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def new_link_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def split_code(typed: str) -> tuple[str, str] | None:
    """(locator, secret) of a code as typed ("abcd-efgh" too), or None if it cannot be one."""
    code = "".join(typed.split()).replace("-", "").upper().translate(_TYPED)
    if len(code) != CODE_LENGTH or any(char not in ALPHABET for char in code):
        return None
    return code[:LOCATOR_LENGTH], code[LOCATOR_LENGTH:]


def shown_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"
