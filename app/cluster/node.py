"""One node of a cluster: the rooms it owns, how it keeps and gives them up, and how it reaches
the rooms of the others.

Every tick (a quarter of the lease) the node renews the leases of its rooms in one step and
drops those another node holds now, marks itself alive, publishes its public waiting rooms, and
closes the sockets it relays for owners that are gone. Every other tick it looks for orphans,
open rooms nobody holds a lease on, and takes its share of those missing for a tick and a half
(Redis forgets every lease when it restarts; their owners take them back at their next renewal,
before anyone else moves). A room is also taken over at once by a node asked for it while
nobody owns it, and by the first node to hear that its owner handed it over.

A node whose last renewal is close to a lease old (Redis, or the way to it, is away) cannot
tell whether another node has claimed its rooms: until it renews again, and once after that, it
checks its rooms' epochs in the database every tick and before it serves one, and drops those
claimed past its own, so a socket is never given a room's older state than one it has seen.

A node that has not reached the database for two leases, while another node says it does,
hands its rooms over (`_watch_database`). The orphan scan and the epoch checks read the
database, so they run beside the ticks: a slow database never holds up the renewals.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import Any

import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.cluster import wire
from app.cluster.answers import serve
from app.cluster.bus import Bus
from app.cluster.calls import Calls
from app.cluster.cluster_admin import ClusterAdmin
from app.cluster.node_state import unavailable
from app.cluster.remote import RemoteRoom
from app.cluster.ticking import Ticking
from app.rooms.access import RoomAccess
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.fanout import dumps


class ClusterNode(ClusterAdmin, Ticking):
    """A node's `Rooms`: its own rooms, and every other node's through their owners."""

    def __init__(
        self,
        *,
        redis: Redis,
        subscriber: Redis,
        directory: RoomDirectory,
        node_id: str,
        cluster_name: str,
        lease_s: float,
    ) -> None:
        super().__init__(
            redis=redis,
            directory=directory,
            node_id=node_id,
            cluster_name=cluster_name,
            lease_s=lease_s,
        )
        self.bus = Bus(
            redis,
            subscriber,
            self.keys,
            node_id,
            self.incarnation,
            on_message=self._on_message,
            on_resubscribed=self._resubscribed,
            on_undelivered=self._undelivered,
            on_gap=self._missed_from,
        )
        self.bus.published_again = self.meters.messages_published_again
        self.calls = Calls(self.bus.send, node_id, self.incarnation)
        directory.on_room_closed = self._room_closed

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        self._renewed_at = time.monotonic()
        await self.redis.ping()
        await self.bus.start()
        await self._mark_alive()
        loop = asyncio.get_running_loop()
        self._ticker = loop.create_task(self._tick_forever(), name="ticker")
        self._watcher = loop.create_task(self._watch_database(), name="database-watch")
        self._call_watcher = loop.create_task(self._watch_calls(), name="call-watch")

    async def stop(self) -> None:
        """Hand every room over to the other nodes, then leave the cluster."""
        self._stopping = True
        for task in (self._ticker, self._watcher, self._call_watcher, *self._beside.values()):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in list(self.directory.rooms.values()):
            await self.directory.hand_over(room)
            with contextlib.suppress(RedisError, OSError):
                await self.leases.release(room.room_id)
            self.bus.send_everyone(wire.moved(room.room_id, None))
        self._close_relayed(None, "this server is stopping; reconnect")
        with contextlib.suppress(RedisError, OSError):
            pipe = self.redis.pipeline(transaction=False)
            pipe.delete(self.keys.alive(self.node_id), self.keys.lobby(self.node_id))
            pipe.zrem(self.keys.nodes, self.node_id)
            await pipe.execute()
        await self.bus.stop()
        for task in list(self._tasks):
            task.cancel()

    # -- Rooms ---------------------------------------------------------------------------

    async def create(
        self,
        *,
        game: str,
        players: int,
        options: Mapping[str, Any],
        bots: list[tuple[int | None, str]],
        public: bool,
        spectators: bool,
        hints: bool = True,
        rated: bool = True,
        chat: bool = True,
    ) -> RoomAccess:
        room = await self.directory.create(
            game=game,
            players=players,
            options=options,
            bots=bots,
            public=public,
            spectators=spectators,
            hints=hints,
            rated=rated,
            chat=chat,
            before_save=self._lease_new_room,
        )
        self.lobby_changed()
        return room

    async def _lease_new_room(self, room_id: str) -> None:
        try:
            taken = await self.leases.take(room_id)
        except (RedisError, OSError) as error:
            raise unavailable(error) from error
        if not taken:
            raise RoomError("internal_error", "a new room's id was taken already")

    async def find(self, room_id: str) -> RoomAccess:
        room = self.directory.rooms.get(room_id)
        if room is not None and not room.lost and await self._still_ours(room):
            return room
        owner = await self._owner(room_id)
        if owner is None or owner == self.node_id:
            taken = await self._take(room_id)
            if taken is not None:
                return taken
            owner = await self._owner(room_id)
            if owner is None or owner == self.node_id:
                raise RoomError("room_not_found", f"no room {room_id!r}")
        return RemoteRoom(self, room_id)

    # -- the bus ---------------------------------------------------------------------------

    def _on_message(self, data: bytes) -> None:
        kind, body = data[:1], data[1:]
        if kind == wire.FRAME:
            owner, conn_id, text = wire.addressed(body)
            relayed = self._relayed.get(conn_id)
            if relayed is not None and relayed.owner is None:
                # The first frame names the owner that attached the socket.
                relayed.owner = owner
            if relayed is None or relayed.owner != owner:
                # Gone, or attached by another owner: a late call (held up on the way while
                # the room changed hands) attached it here too, and this one must let go.
                self.bus.send(owner, wire.gone(self.node_id, conn_id))
            else:
                relayed.outbox.send(text.decode())
                self.meters.messages_relayed.inc()
        elif kind == wire.ANSWER:
            self.calls.answered(orjson.loads(body))
        elif kind == wire.CALL:
            self._spawn(serve(self, orjson.loads(body)))
        elif kind == wire.CLOSE:
            owner, conn_id, reason = wire.addressed(body)
            relayed = self._relayed.get(conn_id)
            if relayed is not None and relayed.owner in (None, owner):
                del self._relayed[conn_id]
                code, text = orjson.loads(reason)
                relayed.outbox.close(code, text)
        elif kind == wire.GONE:
            node, conn_id, _ = wire.addressed(body)
            self._drop_remote(node, conn_id)
        elif kind == wire.MOVED:
            self._moved(orjson.loads(body))
        elif kind == wire.NOTICE:
            news = orjson.loads(body)
            if news["from"] != self.node_id:
                self.directory.send_notice(dumps(news["notice"]))

    def _moved(self, news: dict[str, Any]) -> None:
        room_id, owner = news["room"], news["node"]
        if owner == self.node_id:
            return
        if owner is not None:
            self._owners[room_id] = owner
            self._close_relays_elsewhere(room_id, owner)
            return
        self._owners.pop(room_id, None)
        # Handed over: the first node to hear it takes it.
        if not self._stopping and room_id not in self.directory.rooms:
            self._spawn(self._take_quietly(room_id))

    def _undelivered(self, node: str, messages: list[bytes]) -> None:
        """Nobody read `node`'s inbox: it is gone, with the sockets it held."""
        self.calls.undelivered(messages)
        for key in [key for key in self._remote if key[0] == node]:
            self._drop_remote(*key)

    def _missed_from(self, node: str) -> None:
        # Some of what `node` sent here was lost: the sockets relayed from its rooms may have
        # missed patches, so they reconnect for a fresh snapshot.
        self._close_relayed(node, "the server lost messages from the room's server; reconnect")

    async def _resubscribed(self) -> None:
        # What was published to this node while it was away is lost: the sockets it relays
        # reconnect, for a fresh start.
        self._owners.clear()
        self._close_relayed(None, "the server lost touch with the cluster; reconnect")
