"""The ASGI application: routes, error handlers, and the lifespan that owns store and rooms."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
)
from pydantic import ValidationError
from sqlalchemy.engine import make_url
from starlette.types import Receive, Scope, Send

from app.api import contract
from app.api.errors import install_error_handlers
from app.api.last_resort import LastResort
from app.api.operator_door import OperatorDoor
from app.api.request_guard import RequestGuard
from app.api.routes import (
    admin,
    chat,
    games,
    hints,
    history,
    metrics,
    pages,
    play,
    players,
    rooms,
    ws,
)
from app.api.routes.pages import ClientFiles
from app.bots.registry import make_bot
from app.bots.rummikub.solver import warm_up_in_background
from app.cluster.joining import stop_node
from app.cluster.node import ClusterNode
from app.log_format import name_the_node
from app.logging_setup import configure_logging
from app.metrics.gauges import Held, RoomGauges
from app.metrics.meters import OFF, Meters
from app.players.identity import Identities
from app.players.standings import Standings
from app.resources import STATIC
from app.rooms.directory import RoomDirectory
from app.rooms.room import RoomTimings
from app.rooms.sweeper import IdleRoomSweeper
from app.settings import Settings, get_settings, new_node_id
from app.slow_stop import reported_if_slow
from app.startup import StartupFailure, describe_settings_error, fail, failure_lines
from app.storage.exclusive import DatabaseInUse, hold_database
from app.storage.failures import describe_open_failure
from app.storage.sql_store import SqlMatchStore
from app.storage.store import MatchStore, open_store

log = logging.getLogger("meldhall")

# Rooms keep a few long-lived objects per move among many short-lived ones: with Python's
# default thresholds the collector takes a large share of a busy server's CPU and its full
# collections stop every room. Higher thresholds make them rare; what was measured and what
# else was tried: docs/performance.md, "Decisions in the code".
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
        chat_lines_per_s=settings.chat_lines_per_second,
        chat_burst=settings.chat_burst,
    )


async def open_database(url: str, settings: Settings) -> MatchStore:
    if not url.startswith("memory://"):
        if url == settings.resolved_database_url and not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        from app.storage.migrate import upgrade_to_head

        await upgrade_to_head(url)
    store = open_store(
        url,
        sqlite_synchronous=settings.sqlite_synchronous,
        # A node frozen mid-transaction must not hold its rooms' rows locked past its lease:
        # the node taking them over claims them then (docs/cluster.md).
        idle_in_transaction_s=settings.lease_s / 2 if settings.cluster else None,
    )
    await store.start()
    return store


def shown_url(url: str) -> str:
    """A database URL fit for a log line: the password masked."""
    if url.startswith("memory://"):
        return "memory (lost when the server stops)"
    return make_url(url).render_as_string(hide_password=True)


async def open_store_and_rooms(app: FastAPI, settings: Settings, url: str) -> RoomDirectory:
    """The store, migrated, and the rooms: every one rebuilt by a server alone, none yet by a
    cluster node (it takes its share as it goes). StartupFailure in one line if that fails."""
    try:
        store = await open_database(url, settings)
        directory = RoomDirectory(
            store=store,
            timings=timings(settings),
            make_bot=make_bot,
            meters=app.state.meters,
            node_id=app.state.node_id,
        )
        app.state.store = store
        app.state.directory = directory
        if isinstance(store, SqlMatchStore):
            app.state.identities = Identities(store.engine)
            app.state.standings = Standings(store.engine)
        if settings.cluster:
            from app.rooms.recovery import adopt_roomless_matches

            # Matches begun before rooms had rows get one, to be taken over like any room.
            await adopt_roomless_matches(store)
            return directory
        recovered = await directory.recover()
    except Exception as exc:
        log.debug("start-up failed", exc_info=exc)
        raise StartupFailure(describe_open_failure(exc, url)) from exc
    if recovered:
        log.info("recovered %d rooms", recovered)
    return directory


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    url = app.state.store_url or settings.resolved_database_url
    name_the_node(app.state.node_id)
    if settings.cluster:
        if not url.startswith("postgresql"):
            raise StartupFailure("a cluster node needs PostgreSQL, which every node shares")
        from app.cluster.joining import ClusterUnreachable, reach_redis

        try:
            await reach_redis(settings.redis_url)
        except ClusterUnreachable as error:
            raise StartupFailure(str(error)) from error
    try:
        hold = await hold_database(url, cluster=settings.cluster)
    except DatabaseInUse as refused:
        raise StartupFailure(str(refused)) from refused
    except Exception as exc:
        log.debug("start-up failed", exc_info=exc)
        raise StartupFailure(describe_open_failure(exc, url)) from exc
    try:
        async with serving(app, settings, url):
            yield
    finally:
        await hold.release()


@asynccontextmanager
async def serving(app: FastAPI, settings: Settings, url: str) -> AsyncIterator[None]:
    directory = await open_store_and_rooms(app, settings, url)
    log.info("matches are kept in %s", shown_url(url))
    store = directory.store
    node = await join_cluster(settings, directory, app.state.node_id) if settings.cluster else None
    app.state.rooms = directory if node is None else node
    sweeper = IdleRoomSweeper(directory, settings.room_idle_close_s)
    sweeper.start()
    warming = asyncio.create_task(warm_up_in_background()) if settings.solver_warm_up else None
    thresholds = tune_garbage_collector()
    try:
        yield
    finally:
        restore_garbage_collector(thresholds)
        async with reported_if_slow():
            if warming is not None:
                warming.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await warming
            await sweeper.stop()
            if node is not None:
                # Before the store closes: handing rooms over finishes their writes first.
                await stop_node(node)
            await directory.close()
            await store.close()


async def join_cluster(settings: Settings, directory: RoomDirectory, node_id: str) -> ClusterNode:
    from app.cluster.joining import ClusterUnreachable, start_node

    try:
        node = await start_node(
            redis_url=settings.redis_url,
            directory=directory,
            node_id=node_id,
            cluster_name=settings.cluster_name,
            lease_s=settings.lease_s,
        )
    except ClusterUnreachable as error:
        raise StartupFailure(str(error)) from error
    log.info("node %s joined cluster %r", node_id, settings.cluster_name)
    return node


def answer_validation_errors_as_error_bodies(document: dict[str, Any]) -> None:
    """A 422 is an ErrorBody (`bad_request`, see app.api.errors), not FastAPI's default."""
    error_body = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            answer = operation.get("responses", {}).get("422")
            if answer is not None:
                answer["content"] = error_body
    schemas = document["components"]["schemas"]
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)


class Meldhall(FastAPI):
    """FastAPI, with room sockets handed to their handler before any middleware.

    A room socket needs nothing from the layers below (exception handlers answer HTTP
    requests, FastAPI's exit stacks serve dependencies, the router would find this one path),
    and each costs memory for as long as the socket is open and a step every time its session
    wakes for a message: a coroutine resumes through every layer that awaits it
    (bench/bench_server.py: memory per room, CPU per move).
    """

    def openapi(self) -> dict[str, Any]:
        """FastAPI's document with the protocol's schemas added (app.api.contract)."""
        if self.openapi_schema is None:
            document = super().openapi()
            schemas = document.setdefault("components", {}).setdefault("schemas", {})
            for name, schema in contract.components().items():
                schemas.setdefault(name, schema)
            answer_validation_errors_as_error_bodies(document)
            self.openapi_schema = document
        return self.openapi_schema

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await super().__call__(scope, receive, failure_lines(send))
            return
        room_id = ws.room_socket_id(scope)
        if room_id is None:
            door: OperatorDoor = self.state.door
            if scope["type"] == "http" and door.guarded(scope["path"]) and not door.opens(scope):
                await door.refuse(scope, receive, send)
                return
            await super().__call__(scope, receive, send)
            return
        scope["app"] = self
        scope["path_params"] = {"room_id": room_id}
        await ws.room_socket(scope, receive, send)


def create_app(settings: Settings | None = None, store_url: str | None = None) -> FastAPI:
    """The app; `store_url` ("memory://" or a database URL) overrides the settings' database."""
    app = Meldhall(title="meldhall", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings = settings or get_settings()
    app.state.store_url = store_url
    # The server's name: its cluster node's, its metrics' `node` label, its JSON log lines'.
    app.state.node_id = settings.node_id or new_node_id()
    app.state.meters = measure(app) if settings.metrics_token else OFF
    app.state.door = OperatorDoor(
        metrics_token=settings.metrics_token, admin_token=settings.admin_token
    )
    # Set once the store is open: players live in its database (none in a memory store).
    app.state.identities = None
    app.state.standings = None
    app.state.link_limits = players.LinkLimits()

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    install_error_handlers(app)
    # The socket's cap serves for REST bodies too: no call needs more, and one figure is
    # simpler to reason about than two.
    app.add_middleware(RequestGuard, max_body_bytes=app.state.settings.ws_max_message_bytes)
    # Outermost of the app's own layers, so that whatever fails under it answers JSON.
    app.add_middleware(LastResort)
    for module in (games, rooms, chat, play, hints, history, players, pages, admin, metrics):
        app.include_router(module.router)
    app.mount("/", ClientFiles(directory=STATIC, check_dir=False, html=False), name="static")
    return app


def measure(app: FastAPI) -> Meters:
    """The app's own metrics: its registry, the process's figures and the rooms' gauges."""
    registry = CollectorRegistry(auto_describe=True)
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    node_id: str = app.state.node_id

    def held() -> Held | None:
        directory: RoomDirectory | None = getattr(app.state, "directory", None)
        if directory is None:
            return None
        rooms = getattr(app.state, "rooms", None)
        if isinstance(rooms, ClusterNode):
            return Held(
                list(directory.rooms.values()), rooms.relayed_sockets, rooms.attached_sockets
            )
        return Held(list(directory.rooms.values()))

    registry.register(RoomGauges(node_id, held))
    # Registers itself: its counters and histograms are read at each scrape.
    return Meters(registry, node_id)


def __getattr__(name: str) -> Any:
    """`app.main:app`: the server as `uvicorn app.main:app` (or another ASGI server) loads it.

    Built from the environment on first use rather than on import, so importing this module
    reads no settings. `meldhall serve` is the same app with uvicorn configured from the
    settings; an ASGI server's own command line decides its address and socket options.
    """
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        settings = get_settings()
    except ValidationError as exc:
        # The same words and status as `meldhall serve`, not a traceback from the import.
        fail(describe_settings_error(exc), code=2)
    configure_logging(settings)
    log.info(
        "loaded as app.main:app: the ASGI server's own options set its address, WebSocket "
        "stack, frame size cap, compression and pings (meldhall serve sets them from MELDHALL_*)"
    )
    built = globals()["app"] = create_app(settings)
    return built
