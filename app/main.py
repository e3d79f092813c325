"""The ASGI application: routes, error handlers, and the lifespan that owns store and rooms."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from app.api.errors import install_error_handlers
from app.api.routes import games, hints, pages, play, rooms, ws
from app.api.routes.pages import STATIC, ClientFiles
from app.bots.registry import make_bot
from app.bots.rummikub_solver import warm_up_in_background
from app.rooms.directory import RoomDirectory
from app.rooms.room import RoomTimings
from app.rooms.sweeper import IdleRoomSweeper
from app.settings import Settings, get_settings
from app.storage.store import MatchStore, open_store

log = logging.getLogger("meldhall")

# Rooms make a few long-lived objects per move (the log's records, documents) among many
# short-lived ones. With Python's default thresholds (700, 10, 10) the collector took a fifth of
# the server's CPU at 500 rooms and its full collections stopped every room for ~200 ms
# (bench/bench_server.py); with these it takes a few per cent and full collections are rare.
# Young collections still reach 10-20 ms every second or so at 500 rooms: the trigger counts
# allocations minus deallocations of any age, and a move frees its room's previous (old)
# documents as it makes new ones. Collecting the young generation on a 20 ms clock instead
# bounded those pauses to ~1 ms but scanned each document before it died: bench_server at
# human pace then took ~20 us more CPU per move and its p99 was worse (21-23 ms against
# 15-18 ms), so the server keeps the collector's own trigger. With the collector off for a
# whole run, the p99 at 500 rooms stayed at 17-22 ms: the tail there is queueing on a busy
# server, and these pauses are a small part of it.
GC_THRESHOLDS = (10_000, 50, 100)


def tune_garbage_collector() -> tuple[int, int, int]:
    """Raise the collector's thresholds and freeze what exists now; returns the old thresholds.

    Frozen objects (modules, the app, rooms rebuilt at start) are never scanned again, which
    keeps every later collection short.
    """
    previous = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    return previous


def restore_garbage_collector(thresholds: tuple[int, int, int]) -> None:
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def timings(settings: Settings) -> RoomTimings:
    return RoomTimings(
        bot_delay_s=settings.bot_delay_ms / 1000,
        reconnect_grace_s=settings.reconnect_grace_s,
        between_hands_s=settings.between_hands_s,
    )


async def open_database(url: str, settings: Settings) -> MatchStore:
    if not url.startswith("memory://"):
        if url == settings.resolved_database_url and not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        from app.storage.migrate import upgrade_to_head

        await upgrade_to_head(url)
    store = open_store(url, sqlite_synchronous=settings.sqlite_synchronous)
    await store.start()
    return store


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    store = await open_database(app.state.store_url or settings.resolved_database_url, settings)
    directory = RoomDirectory(store=store, timings=timings(settings), make_bot=make_bot)
    app.state.store = store
    app.state.directory = directory
    recovered = await directory.recover()
    if recovered:
        log.info("recovered %d rooms", recovered)
    sweeper = IdleRoomSweeper(directory, settings.room_idle_close_s)
    sweeper.start()
    warming = asyncio.create_task(warm_up_in_background()) if settings.solver_warm_up else None
    thresholds = tune_garbage_collector()
    try:
        yield
    finally:
        restore_garbage_collector(thresholds)
        if warming is not None:
            warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await warming
        await sweeper.stop()
        await directory.close()
        await store.close()


def include_history(app: FastAPI) -> None:
    try:
        from app.api.routes import history
    except ImportError:
        return
    app.include_router(history.router)


class Meldhall(FastAPI):
    """FastAPI, with room sockets handed to their handler before any middleware.

    A room socket needs nothing from the layers below (exception handlers answer HTTP
    requests, FastAPI's exit stacks serve dependencies, the router would find this one path),
    and each costs memory for as long as the socket is open and a step every time its session
    wakes for a message: a coroutine resumes through every layer that awaits it
    (bench/bench_server.py: memory per room, CPU per move).
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        room_id = ws.room_socket_id(scope)
        if room_id is None:
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        scope["path_params"] = {"room_id": room_id}
        await ws.room_socket(scope, receive, send)


def create_app(settings: Settings | None = None, store_url: str | None = None) -> FastAPI:
    """The app; `store_url` ("memory://" or a database URL) overrides the settings' database."""
    app = Meldhall(title="meldhall", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings or get_settings()
    app.state.store_url = store_url

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    install_error_handlers(app)
    for module in (games, rooms, play, hints, pages):
        app.include_router(module.router)
    include_history(app)
    app.mount("/", ClientFiles(directory=STATIC, check_dir=False, html=False), name="static")
    return app
