"""Log lines a machine can read (MELDHALL_LOG_FORMAT=json): one JSON object a line.

Each holds the time (UTC, ISO 8601), the level, the logger and the message; the room, its
match and its game where the line is about one (passed as `extra=room.log_fields()`); the node
that wrote it; and the traceback, if any, as one string.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import orjson

# The fields a line's `extra` may carry, in the order they are written.
CONTEXT = ("room", "match", "game")


class JsonLines(logging.Formatter):
    def __init__(self, node: str = "") -> None:
        super().__init__()
        # Set once the server knows its name (app.main), for every line after.
        self.node = node

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in CONTEXT:
            value = getattr(record, key, None)
            if value is not None:
                entry[key] = value
        node = getattr(record, "node", None) or self.node
        if node:
            entry["node"] = node
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return orjson.dumps(entry, default=str).decode()


def name_the_node(node: str) -> None:
    """Every JSON line from now on names `node` (the root logger's handlers)."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler.formatter, JsonLines):
            handler.formatter.node = node
