"""What the server does to its own process while it runs, and undoes when it stops."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from app.api.routes.ws import ROOM_SOCKET_PATH, route_path
from app.main import GC_THRESHOLDS, create_app
from app.settings import Settings


def test_the_collector_runs_less_often_while_serving_and_as_before_after() -> None:
    before = gc.get_threshold()
    assert before != GC_THRESHOLDS
    with TestClient(create_app(store_url="memory://")) as client:
        assert client.get("/healthz").status_code == 200
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_room_sockets_are_found_below_the_apps_mount_point_too() -> None:
    mounted = {"type": "websocket", "path": "/games/ws/rooms/q3Yd", "root_path": "/games"}
    found = ROOM_SOCKET_PATH.fullmatch(route_path(mounted))
    assert found is not None
    assert found["room_id"] == "q3Yd"
    assert ROOM_SOCKET_PATH.fullmatch(route_path({"path": "/ws/rooms/q3Yd/x"})) is None


def test_the_sqlite_sync_level_setting_reaches_the_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(data_dir=tmp_path, sqlite_synchronous="normal")
    with TestClient(create_app(settings)) as client:
        assert client.get("/healthz").status_code == 200
        assert client.app.state.store.sqlite_synchronous == "normal"  # type: ignore[attr-defined]
