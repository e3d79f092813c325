"""Start-up failures as one line: what failed and what to do; the traceback at debug level.

An operator whose server will not start needs the cause, not the 50 to 200 lines of frames
that led to it. The lifespan raises StartupFailure with that line; `failure_lines` gives it to
the ASGI server in place of the traceback Starlette would send. Settings the environment gets
wrong are worded the same way before anything starts.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from pydantic import ValidationError
from starlette.types import Message, Send

from app.settings import Settings

# The two settings read without the MELDHALL_ prefix.
UNPREFIXED = {"database_url": "DATABASE_URL"}


class StartupFailure(Exception):
    """Why the server cannot start, worded for the operator."""


def failure_lines(send: Send) -> Send:
    """The lifespan's send, with a StartupFailure told as its own line."""

    async def send_failure_as_line(message: Message) -> None:
        if message["type"] == "lifespan.startup.failed":
            # Starlette sends this from inside its `except` around the lifespan.
            failure = sys.exc_info()[1]
            while failure is not None and not isinstance(failure, StartupFailure):
                failure = failure.__cause__ or failure.__context__
            if failure is not None:
                message = {**message, "message": f"start-up failed: {failure}"}
        await send(message)

    return send_failure_as_line


def environment_name(field: str) -> str:
    return UNPREFIXED.get(field, f"{Settings.model_config.get('env_prefix', '')}{field}".upper())


def describe_settings_error(exc: ValidationError) -> str:
    """Every refused setting by its environment variable, with the reason, in one line."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"])
        reason = error["msg"].removeprefix("Value error, ")
        parts.append(f"{environment_name(where)}: {reason}" if where else reason)
    return "bad settings: " + "; ".join(parts)


def fail(line: str, *, code: int) -> NoReturn:
    """Stop with one line on stderr (run with MELDHALL_LOG_LEVEL=debug for the traceback)."""
    print(f"meldhall: {line}", file=sys.stderr)
    sys.exit(code)
