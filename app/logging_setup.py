"""The server's logging: its own lines, as text or as JSON, on stderr."""

from __future__ import annotations

import logging
import sys

from app.settings import Settings


def configure_logging(settings: Settings) -> None:
    """The server's own log lines (rooms recovered, the solver ready, failures) on stderr.

    As text, uvicorn configures only its own loggers and these go beside them, at the
    settings' level; as JSON (app.log_format) every line, uvicorn's too, is one object.
    """
    if settings.log_format == "json":
        from app.log_format import JsonLines

        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines(settings.node_id))
        logging.basicConfig(level=settings.log_level.upper(), handlers=[handler], force=True)
    else:
        logging.basicConfig(
            level=settings.log_level.upper(), format="%(levelname)s:     %(name)s: %(message)s"
        )
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
