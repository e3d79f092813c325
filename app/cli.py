"""The `meldhall` command: `serve` (migrations first, then uvicorn), `migrate`,
`ratings rebuild` (every rating computed again from the finished matches, server stopped), and
`admin ...` (a running server's operator routes, over HTTP: app.admin_client).

`python -m app` and `python -m app.cli` run the same command line.
"""

from __future__ import annotations

import argparse
import logging
import sys

import uvicorn
from pydantic import ValidationError

from app import admin_client
from app.logging_setup import configure_logging
from app.settings import Settings, get_settings
from app.startup import describe_settings_error, fail

log = logging.getLogger("meldhall")

# Frames past the per-message cap get an error and the connection stays; frames this many times
# larger are refused by the server itself (close 1009), so nobody can make it buffer megabytes.
HARD_FRAME_FACTOR = 4
# The exit status of a server that could not start, as uvicorn's own command uses.
STARTUP_FAILURE = 3


def uvicorn_config(
    settings: Settings, app: object | None = None, **overrides: object
) -> uvicorn.Config:
    """The server configuration used by `serve`, the tests and the bench alike."""
    from app.main import create_app

    options: dict[str, object] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        "ws_max_size": settings.ws_max_message_bytes * HARD_FRAME_FACTOR,
        "ws_ping_interval": settings.ws_ping_interval_s,
        "ws_ping_timeout": settings.ws_ping_interval_s,
        # Deflate costs throughput and memory for no gain on small patches over a LAN: off
        # unless the settings turn it on (docs/performance.md, "Decisions in the code").
        "ws_per_message_deflate": settings.ws_compression,
        # The sans-I/O stack costs less CPU per move and memory per room than uvicorn's legacy
        # `websockets` one (docs/performance.md, "Decisions in the code").
        "ws": "websockets-sansio",
        "lifespan": "on",
        # Without a bound, one client that stalls mid-request (a body that never ends) keeps
        # a stopping server waiting for ever, and its rooms are never handed over.
        "timeout_graceful_shutdown": settings.shutdown_grace_s,
    }
    if settings.log_format == "json":
        # uvicorn's own lines go to the root logger's JSON handler (configure_logging).
        options["log_config"] = None
    options.update(overrides)
    return uvicorn.Config(app or create_app(settings), **options)  # type: ignore[arg-type]


COMMANDS = ("serve", "migrate", "ratings", "admin")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="meldhall")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="apply migrations, then run the server")
    serve.add_argument("--host", help="overrides MELDHALL_HOST")
    serve.add_argument("--port", type=int, help="overrides MELDHALL_PORT")
    commands.add_parser("migrate", help="apply every migration to the configured database")
    ratings = commands.add_parser("ratings", help="the players' ratings")
    ratings_commands = ratings.add_subparsers(dest="ratings_command", required=True)
    ratings_commands.add_parser(
        "rebuild", help="compute every rating again from the finished matches (server stopped)"
    )
    admin_client.add_commands(commands)
    args = parser.parse_args(argv)
    if args.command == "admin":
        # A client of a server, maybe another machine's: this one's settings play no part.
        admin_client.run(args)
        return
    try:
        settings = get_settings()
    except ValidationError as exc:
        fail(describe_settings_error(exc), code=2)
    configure_logging(settings)
    if args.command == "migrate":
        migrate(settings)
        return
    if args.command == "ratings":
        rebuild_ratings(settings)
        return
    overrides = {key: value for key, value in (("host", args.host), ("port", args.port)) if value}
    if overrides:
        settings = settings.model_copy(update=overrides)
    # The lifespan applies the migrations before the first request is served; if it cannot,
    # it says why in one line and the server stops.
    server = uvicorn.Server(uvicorn_config(settings))
    logging.getLogger("uvicorn.error").addFilter(drop_generic_startup_failure)
    server.run()
    if not server.started:
        sys.exit(STARTUP_FAILURE)


def drop_generic_startup_failure(record: logging.LogRecord) -> bool:
    # uvicorn follows the lifespan's own line ("start-up failed: ...") with a generic one.
    return record.getMessage() != "Application startup failed. Exiting."


def migrate(settings: Settings) -> None:
    from app.storage.failures import describe_open_failure
    from app.storage.migrate import upgrade_to_head_sync

    url = settings.resolved_database_url
    try:
        if not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        upgrade_to_head_sync(url)
    except Exception as exc:
        log.debug("migrations failed", exc_info=exc)
        fail(f"migrations failed: {describe_open_failure(exc, url)}", code=STARTUP_FAILURE)
    print("migrations applied")


def rebuild_ratings(settings: Settings) -> None:
    import asyncio
    import time

    from app.players.rebuild import Rebuilt
    from app.players.rebuild import rebuild_ratings as rebuild
    from app.storage.database import create_engine
    from app.storage.exclusive import DatabaseInUse, hold_database
    from app.storage.failures import describe_open_failure
    from app.storage.migrate import upgrade_to_head

    url = settings.resolved_database_url
    if url.startswith("memory://"):
        fail("ratings live in a database; this server keeps its matches in memory", code=2)

    async def run() -> Rebuilt:
        # Held as a server alone holds it: a running server (or cluster) is refused.
        hold = await hold_database(url, cluster=False)
        try:
            await upgrade_to_head(url)
            engine = create_engine(url)
            try:
                return await rebuild(engine)
            finally:
                await engine.dispose()
        finally:
            await hold.release()

    started = time.perf_counter()
    try:
        done = asyncio.run(run())
    except DatabaseInUse as refused:
        fail(f"stop the server first: {refused}", code=STARTUP_FAILURE)
    except Exception as exc:
        log.debug("rebuild failed", exc_info=exc)
        fail(f"rebuild failed: {describe_open_failure(exc, url)}", code=STARTUP_FAILURE)
    seconds = time.perf_counter() - started
    print(f"ratings rebuilt: {done.matches} matches, {done.ratings} ratings, {seconds:.1f} s")


if __name__ == "__main__":
    main()
