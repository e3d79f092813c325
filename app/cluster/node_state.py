"""A node's state, shared by the parts of app.cluster.node: its leases, its sockets, its view
of the other nodes, and its background tasks."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Awaitable
from typing import Any

from redis.asyncio import Redis

from app.cluster.bus import Bus
from app.cluster.calls import Calls
from app.cluster.keys import ClusterKeys
from app.cluster.leases import Leases
from app.cluster.remote import RelayedConnection
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.fanout import Connection
from app.rooms.room import Room

UNAVAILABLE = "room_unavailable"
TRY_AGAIN = "the server holding this room cannot be reached; it is being taken over, try again"


def unavailable(error: BaseException) -> RoomError:
    failed = RoomError(UNAVAILABLE, TRY_AGAIN)
    failed.__cause__ = error
    return failed


class NodeState:
    """What a node holds; the parts of a `ClusterNode` each act on some of it."""

    bus: Bus
    calls: Calls

    def __init__(
        self,
        *,
        redis: Redis,
        directory: RoomDirectory,
        node_id: str,
        cluster_name: str,
        lease_s: float,
    ) -> None:
        self.redis = redis
        self.directory = directory
        self.node_id = node_id
        self.keys = ClusterKeys(cluster_name)
        self.lease_s = lease_s
        self.tick_s = lease_s / 4
        self.leases = Leases(redis, self.keys, node_id, int(lease_s * 1000))
        # This process among the node's lives: connection and call ids carry it, so that one
        # restarted under the same name never reuses an id its previous process gave out
        # (another node may still be sending to a socket of that process).
        self.incarnation = secrets.token_hex(6)
        self.meters = directory.meters
        # Owner side: sockets other nodes hold, by (their node, their connection id).
        self._remote: dict[tuple[str, str], tuple[Room, Connection]] = {}
        # Relaying side: sockets held here for rooms owned elsewhere, and who owns those.
        self._relayed: dict[str, RelayedConnection] = {}
        self._connection_ids = itertools.count(1)
        self._owners: dict[str, str] = {}
        self._missing_since: dict[str, float] = {}
        self._taking: dict[str, asyncio.Task[Room | None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._ticker: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._call_watcher: asyncio.Task[None] | None = None
        self._beside: dict[str, asyncio.Task[None]] = {}
        # When this node last reached the database (app start counts: it had just migrated).
        self._database_at = time.monotonic()
        # The nodes whose marks of being alive the last tick read, each with what it says.
        self._alive: dict[str, list[bytes]] = {}
        # ... and those it read no mark of: gone.
        self._gone: set[str] = set()
        # Whether another node said at the last tick that it reaches the database.
        self._others_reach_database = False
        self._lobby_soon = False
        self._stopping = False
        # When the last renewal that went through began (its leases run a lease from then).
        self._renewed_at = time.monotonic()

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
