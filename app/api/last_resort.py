"""The answer when something under a route fails unexpectedly: logged, and JSON with a code.

Every failure a route expects has its own code (app/api/errors.py). Anything else still gets
the error body every client parses: `storage_unavailable` (503) when the database is the
cause, `internal_error` (500) otherwise, with the exception in the log once.

A request still open when a stopping server's grace runs out (MELDHALL_SHUTDOWN_GRACE_S) is
cancelled by uvicorn: it is answered `server_stopping` (503) and logged in one line, and its
task ends there, as the cancel asks (uvicorn would log a cancel it sees as a failure, with its
traceback, and answer 500).
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_response
from app.storage.failures import is_storage_failure

log = logging.getLogger(__name__)


class LastResort:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched_send)
        except asyncio.CancelledError:
            log.warning("%s %r cut short: the server is stopping", scope["method"], scope["path"])
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            if not started:
                message = "the server stopped before it finished this request; read, then retry"
                await error_response("server_stopping", message)(scope, receive, send)
        except Exception as exc:
            where = f"{scope['method']} {scope['path']!r}"
            if is_storage_failure(exc):
                # One line per failure while the database is away; the traceback at debug level.
                trace = exc if log.isEnabledFor(logging.DEBUG) else None
                log.error("%s failed on the database: %r", where, exc, exc_info=trace)
                code, text = "storage_unavailable", "the database cannot be reached; try again"
            else:
                log.exception("%s failed", where)
                code, text = "internal_error", "the server failed on this request"
            if started:
                # Part of the answer is out already; the connection is dropped with it.
                return
            await error_response(code, text)(scope, receive, send)
