"""Paths for the server's operator, opened by a bearer token: to anyone else they do not exist.

`/metrics` opens to MELDHALL_METRICS_TOKEN and `/api/admin/...` to MELDHALL_ADMIN_TOKEN. A
request without the token, with a wrong one, or to a server where it is not set, gets the
404 any unknown path gets, before its method, body or path are looked at, so nothing tells
a guesser that the door is there. The token is compared as a SHA-256 digest in constant time:
the answer takes as long however much of it was right.
"""

from __future__ import annotations

import hashlib
import hmac

from starlette.types import Receive, Scope, Send

from app.api.errors import error_response

METRICS_PATH = "/metrics"
ADMIN_PREFIX = "/api/admin"


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class OperatorDoor:
    def __init__(self, *, metrics_token: str, admin_token: str) -> None:
        self._metrics = digest(metrics_token) if metrics_token else None
        self._admin = digest(admin_token) if admin_token else None

    def guarded(self, path: str) -> bool:
        """Whether the path is behind one of the doors."""
        return path in (METRICS_PATH, ADMIN_PREFIX) or path.startswith(ADMIN_PREFIX + "/")

    def opens(self, scope: Scope) -> bool:
        path: str = scope["path"]
        expected = self._metrics if path == METRICS_PATH else self._admin
        given = b""
        for name, value in scope["headers"]:
            if name == b"authorization":
                given = value
                break
        scheme, _, token = given.partition(b" ")
        # Compared even when the door is shut or the header is wrong, to take the same time.
        same = hmac.compare_digest(hashlib.sha256(token.strip()).digest(), expected or digest("\0"))
        return expected is not None and scheme.lower() == b"bearer" and same

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The answer of a path that does not exist."""
        await error_response("not_found", "Not Found")(scope, receive, send)
