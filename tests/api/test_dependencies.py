"""Requests never hop to the thread pool for a dependency: each would start or wake a pool
thread, and starting one stalled the event loop (every room on it) under load."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, APIWebSocketRoute

from app.api.routes import games, hints, history, pages, play, rooms


def dependants(dependant: Dependant) -> Iterator[Dependant]:
    for sub in dependant.dependencies:
        yield sub
        yield from dependants(sub)


def is_coroutine(call: object) -> bool:
    # Security schemes such as HTTPBearer are objects whose __call__ is a coroutine.
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(type(call).__call__)


def test_every_route_and_dependency_runs_on_the_event_loop() -> None:
    plain: list[str] = []
    routers = (games, hints, history, pages, play, rooms)
    routes = [
        route
        for module in routers
        for route in module.router.routes
        if isinstance(route, (APIRoute, APIWebSocketRoute))
    ]
    assert len(routes) > 20
    for route in routes:
        if not is_coroutine(route.endpoint):
            plain.append(f"{route.path}: {route.endpoint.__name__}")
        for dependant in dependants(route.dependant):
            if dependant.call is not None and not is_coroutine(dependant.call):
                plain.append(f"{route.path}: {getattr(dependant.call, '__name__', dependant.call)}")
    assert plain == []
