"""Refusals before any route runs: bodies over the size cap, NUL characters anywhere.

A body is read at most up to the cap: a Content-Length over it is refused without reading a
byte, and a streamed body is counted as it arrives and refused as soon as it passes the cap.
What is under the cap is buffered (a few KiB at most) and handed to the route as it came.

NUL characters are refused in the path, the query and JSON bodies: PostgreSQL cannot store
them in text, so a name or an id holding one would otherwise fail deep in the database with
an error that says nothing to the client, and only on one of the two databases.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_response

# A JSON escape of U+0000 that is not itself an escaped backslash followed by "u0000".
JSON_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


class RequestGuard:
    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        where = nul_in_target(scope)
        if where is not None:
            await refuse(scope, receive, send, "bad_request", f"the {where} holds a NUL character")
            return
        declared = content_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await self.too_large(scope, receive, send)
            return
        body: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # The client went away before its body was whole.
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await self.too_large(scope, receive, send)
                return
            body.append(chunk)
            if not message.get("more_body", False):
                break
        whole = b"".join(body)
        if b"\x00" in whole or JSON_NUL.search(whole):
            await refuse(scope, receive, send, "bad_request", "the body holds a NUL character")
            return
        await self.app(scope, replay(whole, receive), send)

    async def too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"request bodies are capped at {self.max_body_bytes} bytes"
        await refuse(scope, receive, send, "body_too_large", message)


def nul_in_target(scope: Scope) -> str | None:
    if "\x00" in scope["path"]:
        return "path"
    if b"\x00" in unquote_to_bytes(scope.get("query_string", b"")):
        return "query"
    return None


def content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the buffered body once, then waits on the client as before."""
    sent = False

    async def receive_buffered() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive_buffered


async def refuse(scope: Scope, receive: Receive, send: Send, code: str, message: str) -> None:
    # The connection is closed after a refusal that left a body unread, so no byte of it is
    # taken for the next request.
    response = error_response(code, message)
    response.headers["Connection"] = "close"
    await response(scope, receive, send)
