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
import itertools
import logging
import math
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

import orjson
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.cluster import wire
from app.cluster.answers import HANDLERS, serve
from app.cluster.bus import Bus
from app.cluster.calls import CHECK_S, Calls, Lapsed, NotHere, Unreachable
from app.cluster.clients import redis_client
from app.cluster.keys import ClusterKeys
from app.cluster.leases import Leases
from app.cluster.remote import RelayedConnection, RemoteOutbox, RemoteRoom
from app.rooms.access import RoomAccess
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.fanout import Connection, dumps
from app.rooms.room import CLOSE_ROOM_MOVED, Room
from app.storage.store import StoreError

log = logging.getLogger(__name__)

UNAVAILABLE = "room_unavailable"
# Rooms described at once for the operator's list.
ADMIN_CALLS = 16
TRY_AGAIN = "the server holding this room cannot be reached; it is being taken over, try again"
MAYBE_MADE = (
    "the server holding this room did not answer; your request may or may not have been made: "
    "read the room's state before trying again"
)


# What a node's mark of being alive says it reads, after the time the mark runs to: a node
# of a release before numbered bundles marks only the time.
READS = "numbered"
# ... and that it reaches the database (it did within the last lease).
DATABASE = "database"


def unavailable(error: BaseException) -> RoomError:
    failed = RoomError(UNAVAILABLE, TRY_AGAIN)
    failed.__cause__ = error
    return failed


class ClusterNode:
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
        self.meters = directory.meters
        self.bus.published_again = self.meters.messages_published_again
        self.calls = Calls(self.bus.send, node_id, self.incarnation)
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

    def _spawn(self, work: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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

    async def lobby(self, game: str | None = None) -> list[dict[str, Any]]:
        """Every node's public waiting rooms: this one's as they are now, the others' as they
        published them (at their last tick, or just after a change); only this node's while
        Redis is away."""
        found = {info["room_id"]: info for info in await self.directory.lobby(game)}
        try:
            now_ms = int(time.time() * 1000)
            members: list[Any] = await self.redis.zrangebyscore(self.keys.nodes, now_ms, "+inf")
            alive = [bytes(member).decode() for member in members]
            others = [node for node in alive if node != self.node_id]
            pipe = self.redis.pipeline(transaction=False)
            for node in others:
                pipe.hvals(self.keys.lobby(node))
            published = await pipe.execute()
        except (RedisError, OSError) as error:
            # Without Redis the others' rooms cannot be listed; this node's still can.
            log.warning("listing the lobby without the other nodes' rooms: %s", error)
            published = []
        for entries in published:
            for entry in entries:
                info = orjson.loads(entry)
                if game is not None and info["game"] != game:
                    continue
                kept = found.get(info["room_id"])
                if kept is None or kept["version"] < info["version"]:
                    found[info["room_id"]] = info
        return sorted(found.values(), key=lambda info: str(info["room_id"]))

    def lobby_changed(self) -> None:
        """Publish this node's lobby soon, rather than at the next tick."""
        if not self._lobby_soon:
            self._lobby_soon = True
            self._spawn(self._publish_lobby_soon())

    async def _publish_lobby_soon(self) -> None:
        await asyncio.sleep(0.02)
        self._lobby_soon = False
        with contextlib.suppress(RedisError, OSError):
            pipe = self.redis.pipeline(transaction=True)
            await self._queue_lobby(pipe)
            await pipe.execute()

    # -- owners and takeovers -------------------------------------------------------------

    async def _owner(self, room_id: str) -> str | None:
        owner = self._owners.get(room_id)
        if owner is not None:
            return owner
        try:
            owner = await self.leases.owner(room_id)
        except (RedisError, OSError) as error:
            raise unavailable(error) from error
        if owner is not None and owner != self.node_id:
            self._owners[room_id] = owner
        return owner

    async def _take(self, room_id: str) -> Room | None:
        """Take a room nobody owns over now: one attempt at a time per room on this node."""
        taking = self._taking.get(room_id)
        if taking is None:
            taking = asyncio.get_running_loop().create_task(self._take_over(room_id))
            self._taking[room_id] = taking
            taking.add_done_callback(lambda _: self._taking.pop(room_id, None))
        return await asyncio.shield(taking)

    async def _take_over(self, room_id: str) -> Room | None:
        room = self.directory.rooms.get(room_id)
        if room is not None and not room.lost:
            return room
        if self._stopping:
            return None
        if not self._reaches_database() and self._others_reach_database:
            # It could not be rebuilt here, and its lease, taken, would keep it from a node
            # that can.
            raise RoomError(UNAVAILABLE, TRY_AGAIN)
        try:
            owner = await self.leases.owner(room_id)
            if owner is None and not await self.leases.take(room_id):
                return None
            if owner not in (None, self.node_id):
                self._owners[room_id] = str(owner)
                return None
        except (RedisError, OSError) as error:
            raise unavailable(error) from error
        try:
            room = await self.directory.take_over(room_id)
        except Exception:
            log.exception("could not take room %s over", room_id)
            await self._release(room_id)
            raise
        if room is None:
            await self._release(room_id)
            return None
        self._owners.pop(room_id, None)
        self._missing_since.pop(room_id, None)
        self._close_relays_elsewhere(room_id, self.node_id)
        self.bus.send_everyone(wire.moved(room_id, self.node_id))
        self.lobby_changed()
        return room

    async def _watch_calls(self) -> None:
        """Give up the calls whose owner no longer holds their room (app.cluster.calls): a
        frozen owner's inbox is still read by Redis, so its calls would otherwise wait out
        CALL_TIMEOUT_S, after its lease ran out, before the room could be taken over."""
        loop = asyncio.get_running_loop()
        while not self._stopping:
            await asyncio.sleep(CHECK_S)
            overdue = self.calls.overdue(loop.time())
            if not overdue:
                continue
            rooms = sorted({room_id for _, _, room_id in overdue})
            try:
                holders = dict(zip(rooms, await self.leases.owners(rooms), strict=True))
            except (RedisError, OSError):
                # Redis cannot tell who holds them: the calls wait on (for their timeout).
                continue
            for call_id, owner, room_id in overdue:
                holder = holders[room_id]
                if holder != owner:
                    if self._owners.get(room_id) == owner:
                        del self._owners[room_id]
                    self.calls.lapsed(call_id, holder)

    # -- the database ----------------------------------------------------------------------

    def _reaches_database(self, within_leases: float = 1.0) -> bool:
        return time.monotonic() - self._database_at < within_leases * self.lease_s

    async def _watch_database(self) -> None:
        """Every tick, one round trip to the database, bounded by the tick. A node that has not
        reached it for two leases while another node does hands its rooms over, as a stopping
        node would: they would wait for the database for as long as it is away from this node,
        while another can serve them now. Two leases, not one: when the database goes away
        for every node, a mark written just before still says "database" for a lease, and
        handing rooms to nodes that cannot take them would only close everyone's sockets."""
        while True:
            await asyncio.sleep(self.tick_s)
            if self._stopping:
                return
            try:
                async with asyncio.timeout(self.tick_s):
                    await self.directory.store.ping()
            except Exception as error:
                if self._reaches_database():
                    log.warning("could not reach the database: %r", error)
            else:
                self._database_at = time.monotonic()
                continue
            if not self._reaches_database(within_leases=2) and self._others_reach_database:
                self._hand_over_without_database()

    def _hand_over_without_database(self) -> None:
        rooms = [room for room in self.directory.rooms.values() if not room.lost]
        if not rooms:
            return
        log.warning(
            "handing %d rooms over: this node has not reached the database for %.0f s and "
            "another node does",
            len(rooms),
            time.monotonic() - self._database_at,
        )
        for room in rooms:
            # Not under the room's lock: an action under way may wait for the database as
            # long as it is away. The fence keeps its write out once another node claims the
            # room; one that was committed before, the new owner reads after its claim.
            self.directory.drop(room)
            self.directory.handed_over(room)
            self._spawn(self._handed_over(room.room_id))

    async def _handed_over(self, room_id: str) -> None:
        await self._release(room_id)
        self.bus.send_everyone(wire.moved(room_id, None))

    def _leases_in_doubt(self, now: float | None = None) -> bool:
        """Whether this node's leases may have run out: its last renewal is near a lease old."""
        now = time.monotonic() if now is None else now
        return now - self._renewed_at >= self.lease_s - self.tick_s

    async def _still_ours(self, room: Room) -> bool:
        """Whether a room held here is still this node's to serve: asked of the database only
        while the leases are in doubt. RoomError if the database cannot tell."""
        return not self._leases_in_doubt() or await self._still_held([room])

    async def _still_held(self, rooms: list[Room]) -> bool:
        """Drop those of `rooms` another node has claimed since this one did (by their epochs
        in the database); whether they were all still this node's. RoomError if the database
        cannot tell."""
        if not rooms:
            return True
        try:
            epochs = await self.directory.store.room_epochs([room.room_id for room in rooms])
        except Exception as error:
            # The database away too: nothing tells whose the rooms are.
            raise unavailable(error) from error
        held = True
        for room in rooms:
            if epochs.get(room.room_id) == room.fence.epoch or room.lost:
                continue
            held = False
            if self.directory.rooms.get(room.room_id) is room:
                log.warning(
                    "room %s was claimed past epoch %d while the leases were in doubt; dropping it",
                    room.room_id,
                    room.fence.epoch,
                )
                self.directory.drop(room)
        return held

    async def _release(self, room_id: str) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self.leases.release(room_id)

    def _room_closed(self, room: Room) -> None:
        """A room left this node (closed, lost or handed over): its sockets elsewhere go."""
        for key, (held, _) in list(self._remote.items()):
            if held is room:
                del self._remote[key]
        self.lobby_changed()
        if not self._stopping:
            # Only if still this node's: a room lost to another owner keeps that owner's lease.
            self._spawn(self._release(room.room_id))

    # -- calling owners -------------------------------------------------------------------

    async def call_room(
        self, room_id: str, op: str, arguments: dict[str, Any], *, again: bool
    ) -> Any:
        """Call `op` on the room wherever it is held; RoomError with the owner's refusal.

        Tried again while the room changes hands, up to two leases and a call's wait; `again`
        also after an owner that did not answer (for calls that change nothing).
        """
        result, _ = await self.call_room_from(room_id, op, arguments, again=again)
        return result

    async def call_room_from(
        self, room_id: str, op: str, arguments: dict[str, Any], *, again: bool
    ) -> tuple[Any, str]:
        """`call_room`, with the node that answered."""
        deadline = time.monotonic() + 2 * self.lease_s + 5
        delay = 0.05
        while True:
            room = self.directory.rooms.get(room_id)
            if room is not None and not room.lost:
                answer = await HANDLERS[op](self, room, {**arguments, "from": self.node_id})
                return answer, self.node_id
            owner = await self._owner(room_id)
            if owner is None or owner == self.node_id:
                if await self._take(room_id) is None and await self._owner(room_id) is None:
                    raise RoomError("room_not_found", f"no room {room_id!r}")
                continue
            try:
                return await self.calls.call(owner, op, room_id, arguments), owner
            except NotHere:
                self._owners.pop(room_id, None)
            except Unreachable as error:
                self._owners.pop(room_id, None)
                if not again:
                    if isinstance(error, Lapsed) and error.holder is None:
                        # Nobody holds the room now (its owner froze or died): taken over at
                        # once, as a room asked for while nobody owns it is, so that its sockets
                        # are served again without waiting for the orphan scan.
                        self._spawn(self._take_quietly(room_id))
                    raise RoomError(UNAVAILABLE, MAYBE_MADE) from error
            if time.monotonic() > deadline:
                raise RoomError(UNAVAILABLE, TRY_AGAIN)
            await asyncio.sleep(delay)
            delay = min(0.5, delay * 2)

    # -- the operator (app.api.routes.admin) ----------------------------------------------

    @property
    def relayed_sockets(self) -> int:
        """Sockets held here for rooms other nodes own."""
        return len(self._relayed)

    @property
    def attached_sockets(self) -> int:
        """Sockets other nodes hold for rooms owned here."""
        return len(self._remote)

    async def every_room(self) -> list[dict[str, Any]]:
        """Every open room of the cluster, each as its owner sees it (a room nobody holds is
        taken over by the asking, as any call on it would)."""
        room_ids = set(await self._open_room_ids()) | set(self.directory.rooms)
        slots = asyncio.Semaphore(ADMIN_CALLS)

        async def describe(room_id: str) -> dict[str, Any] | None:
            async with slots:
                try:
                    info, _ = await self.call_room_from(room_id, "admin_info", {}, again=True)
                except RoomError as error:
                    if error.code != "room_not_found":
                        log.warning("could not describe room %s: %s", room_id, error.message)
                    return None
            described: dict[str, Any] = info
            return described

        found = await asyncio.gather(*(describe(room_id) for room_id in sorted(room_ids)))
        return [info for info in found if info is not None]

    async def _open_room_ids(self) -> list[str]:
        try:
            return await self.directory.store.open_room_ids()
        except Exception as error:
            raise unavailable(error) from error

    async def close_room(self, room_id: str, reason: str) -> dict[str, Any]:
        closed: dict[str, Any] = await self.call_room(
            room_id, "admin_close", {"reason": reason}, again=False
        )
        return closed

    async def seat_to_bot(
        self, room_id: str, seat: int, level: str, revoke: bool
    ) -> dict[str, Any]:
        arguments = {"seat": seat, "level": level, "revoke": revoke}
        info: dict[str, Any] = await self.call_room(
            room_id, "admin_seat_to_bot", arguments, again=False
        )
        return info

    async def post_notice(self, notice: dict[str, Any]) -> None:
        """Every node sends the notice to the sockets of its rooms (this one at once)."""
        await self.directory.post_notice(notice)
        self.bus.send_everyone(wire.notice(self.node_id, notice))

    # -- the relaying side ---------------------------------------------------------------

    def new_connection_id(self) -> str:
        return f"{self.incarnation}.{next(self._connection_ids)}"

    def relay(self, connection: RelayedConnection) -> None:
        self._relayed[connection.conn_id] = connection

    def unrelay(self, connection: RelayedConnection) -> None:
        if self._relayed.pop(connection.conn_id, None) is None:
            return
        if connection.owner is not None:
            self.bus.send(connection.owner, wire.gone(self.node_id, connection.conn_id))

    def _close_relayed(self, owner: str | None, reason: str) -> None:
        """Close the relayed sockets of rooms `owner` held (all of them for None)."""
        self._close_relays(lambda c: owner is None or c.owner == owner, reason)

    def _close_relays_elsewhere(self, room_id: str, owner: str) -> None:
        """The room is `owner`'s now: its sockets relayed from another node close (that node
        lost it, perhaps cut off, and may never tell them), and reconnect to the new owner."""
        self._close_relays(
            lambda c: c.room_id == room_id and c.owner not in (None, owner),
            "the room moved; reconnect",
        )

    def _close_relays(self, which: Callable[[RelayedConnection], bool], reason: str) -> None:
        for connection in [c for c in self._relayed.values() if which(c)]:
            del self._relayed[connection.conn_id]
            connection.outbox.close(CLOSE_ROOM_MOVED, reason)

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

    async def _take_quietly(self, room_id: str) -> None:
        # A little spread, so that the rooms of a stopping node do not all go to one node.
        await asyncio.sleep(random.uniform(0, 0.05))
        try:
            await self._take(room_id)
        except Exception:
            log.exception("could not take room %s over", room_id)

    def _undelivered(self, node: str, messages: list[bytes]) -> None:
        """Nobody read `node`'s inbox: it is gone, with the sockets it held."""
        self.calls.undelivered(messages)
        for key in [key for key in self._remote if key[0] == node]:
            self._drop_remote(*key)

    def _drop_remote(self, node: str, conn_id: str) -> None:
        held = self._remote.pop((node, conn_id), None)
        if held is not None:
            room, connection = held
            self._spawn(room.disconnect(connection))

    def _missed_from(self, node: str) -> None:
        # Some of what `node` sent here was lost: the sockets relayed from its rooms may have
        # missed patches, so they reconnect for a fresh snapshot.
        self._close_relayed(node, "the server lost messages from the room's server; reconnect")

    async def _resubscribed(self) -> None:
        # What was published to this node while it was away is lost: the sockets it relays
        # reconnect, for a fresh start.
        self._owners.clear()
        self._close_relayed(None, "the server lost touch with the cluster; reconnect")

    # -- the owning side -----------------------------------------------------------------

    async def held_room(self, room_id: str) -> Room | None:
        """The room if this node holds it, taking it up if its lease names this node although
        the node does not hold it (a node restarted under the same name, before its old
        leases ran out)."""
        room = self.directory.rooms.get(room_id)
        if room is not None:
            if room.lost:
                return None
            # A call held up on the way (Redis hung) may come after another node claimed the
            # room: only the owner of its epoch answers it.
            try:
                return room if await self._still_ours(room) else None
            except RoomError:
                return None
        try:
            if await self.leases.owner(room_id) != self.node_id:
                return None
            return await self._take(room_id)
        except (RoomError, StoreError, RedisError, OSError):
            return None

    def remote_connection(self, node: str, conn_id: str) -> Connection:
        held = self._remote.get((node, conn_id))
        if held is None:
            raise RoomError("room_moved", "the socket is not attached to this room's server")
        return held[1]

    async def connect_remote(
        self, room: Room, node: str, conn_id: str, token_hash: str | None
    ) -> int | None:
        # A call tried again after a lost answer attaches the socket once, not twice.
        self._drop_remote(node, conn_id)
        outbox = RemoteOutbox(self.bus, self.node_id, node, conn_id, self._remote_closed)
        connection = await room.connect(outbox, token_hash)
        self._remote[(node, conn_id)] = (room, connection)
        return connection.seat

    def _remote_closed(self, outbox: RemoteOutbox) -> None:
        self._remote.pop((outbox.node, outbox.conn_id), None)

    # -- the tick --------------------------------------------------------------------------

    async def _tick_forever(self) -> None:
        ticks = 0
        # Ended by `_stopping` as well as by the stop's cancel: a cancel that lands inside a
        # library's call may be swallowed there, and the stop, which awaits this task, would
        # wait for ever (seen in a rolling restart: the node never exited; the call was a
        # Redis write on Python 3.11, which `clients` now makes pass the cancel on).
        while True:
            await asyncio.sleep(self.tick_s)
            if self._stopping:
                return
            ticks += 1
            try:
                await self._tick(scan=ticks % 2 == 0)
            except (RedisError, OSError) as error:
                # The rooms play on: the database's fence, not the lease, keeps them safe.
                log.warning("could not reach Redis this tick: %r", error)
                if self._leases_in_doubt():
                    self._beside_ticks("fence check", self._check_fences())
            except Exception:
                log.exception("the cluster tick failed")

    async def _tick(self, *, scan: bool) -> None:
        started = time.monotonic()
        in_doubt = self._leases_in_doubt(started)
        for room_id in await self.leases.renew(list(self.directory.rooms)):
            room = self.directory.rooms.get(room_id)
            if room is not None:
                log.warning("room %s is held by another node now; dropping it", room_id)
                self.directory.drop(room)
        self._renewed_at = started
        if in_doubt:
            # The leases may have run out before this renewal, and a room been claimed and
            # given up by another node since: the renewal took its lease again.
            self._beside_ticks("fence check", self._check_fences())
        await self._mark_alive()
        self._close_relays_of_dead_owners()
        self._drop_sockets_of_dead_nodes()
        if scan:
            self._beside_ticks("orphan scan", self._scan_orphans())

    def _beside_ticks(self, name: str, work: Coroutine[Any, Any, None]) -> None:
        """Work that reads the database runs beside the ticks, never in their way: a slow
        database must not hold up the renewals (the leases would run out on every node). One
        of each at a time; a tick that finds it still running skips it."""
        running = self._beside.get(name)
        if running is not None and not running.done():
            work.close()
            return

        async def run() -> None:
            try:
                await work
            except (RoomError, StoreError, RedisError, OSError) as error:
                log.warning("%s failed: %r", name, error)
            except Exception:
                log.exception("%s failed", name)

        self._beside[name] = asyncio.get_running_loop().create_task(run(), name=name)

    async def _check_fences(self) -> None:
        await self._still_held(list(self.directory.rooms.values()))

    async def _mark_alive(self) -> None:
        now_ms = int(time.time() * 1000)
        until = now_ms + int(self.lease_s * 1000)
        pipe = self.redis.pipeline(transaction=True)
        # The mark says what the node reads besides: numbered bundles (app.cluster.bus).
        reads = f"{until} {READS} {DATABASE}" if self._reaches_database() else f"{until} {READS}"
        pipe.set(self.keys.alive(self.node_id), reads, px=int(self.lease_s * 1000))
        pipe.zadd(self.keys.nodes, {self.node_id: until})
        # Nodes gone for a minute leave the set.
        pipe.zremrangebyscore(self.keys.nodes, "-inf", until - 60_000)
        await self._queue_lobby(pipe)
        pipe.zrangebyscore(self.keys.nodes, now_ms, "+inf")
        members = (await pipe.execute())[-1]
        # The marks of the nodes alive, and of every node this one relays for or holds sockets
        # of, in one read: whose mark is gone is gone.
        nodes = sorted(
            {bytes(member).decode() for member in members}
            | {c.owner for c in self._relayed.values() if c.owner is not None}
            | {node for node, _ in self._remote}
        )
        marks: list[Any] = await self.redis.mget([self.keys.alive(node) for node in nodes])
        self._alive = {
            node: bytes(mark).split()[1:]
            for node, mark in zip(nodes, marks, strict=True)
            if mark is not None
        }
        self._gone = {node for node, mark in zip(nodes, marks, strict=True) if mark is None}
        self._forget_gone_owners()
        self.bus.numbered = {node for node, said in self._alive.items() if READS.encode() in said}
        self.bus.forget_silent(set(self._alive))
        self._others_reach_database = any(
            DATABASE.encode() in said for node, said in self._alive.items() if node != self.node_id
        )

    async def _queue_lobby(self, pipe: Any) -> None:
        lobby = self.keys.lobby(self.node_id)
        entries = {info["room_id"]: orjson.dumps(info) for info in await self.directory.lobby()}
        pipe.delete(lobby)
        if entries:
            pipe.hset(lobby, mapping=entries)
            pipe.pexpire(lobby, int(self.lease_s * 3000))

    def _forget_gone_owners(self) -> None:
        """Nodes whose marks are gone (dead, or frozen past a lease) own nothing any more: the
        calls waiting on them are given up, and their rooms are looked up again."""
        if not self._gone:
            return
        for room_id in [r for r, owner in self._owners.items() if owner in self._gone]:
            del self._owners[room_id]
        for node in self._gone:
            self.calls.owner_gone(node)

    def _close_relays_of_dead_owners(self) -> None:
        """By the marks `_mark_alive` read just before."""
        for owner in {c.owner for c in self._relayed.values() if c.owner in self._gone}:
            self._close_relayed(owner, "the room's server stopped; reconnect")

    def _drop_sockets_of_dead_nodes(self) -> None:
        """The sockets other nodes held here, of nodes that are gone (a room nobody sends to
        would keep them for good, and never count as idle); by the marks read just before."""
        for key in [key for key in self._remote if key[0] in self._gone]:
            self._drop_remote(*key)

    async def _scan_orphans(self) -> None:
        now = time.monotonic()
        held = self.directory.rooms
        open_ids = [r for r in await self.directory.store.open_room_ids() if r not in held]
        owners = await self.leases.owners(open_ids)
        orphans = []
        for room_id, owner in zip(open_ids, owners, strict=True):
            if owner is not None:
                self._missing_since.pop(room_id, None)
                continue
            since = self._missing_since.setdefault(room_id, now)
            if now - since >= 1.5 * self.tick_s:
                orphans.append(room_id)
        for room_id in set(self._missing_since) - set(open_ids):
            del self._missing_since[room_id]
        if not orphans:
            return
        alive = await self.redis.zcount(self.keys.nodes, int(time.time() * 1000), "+inf")
        random.shuffle(orphans)
        for room_id in orphans[: math.ceil(len(orphans) / max(1, alive))]:
            try:
                await self._take(room_id)
            except (RoomError, StoreError) as error:
                log.warning("could not take room %s over: %s", room_id, error)


async def start_node(
    *,
    redis_url: str,
    directory: RoomDirectory,
    node_id: str,
    cluster_name: str,
    lease_s: float,
) -> ClusterNode:
    """Connect to Redis and join the cluster; ClusterUnreachable if Redis does not answer."""
    options: dict[str, Any] = {"socket_connect_timeout": 3, "socket_keepalive": True}
    redis = redis_client(redis_url, socket_timeout=lease_s, **options)
    subscriber = redis_client(redis_url, **options)
    node = ClusterNode(
        redis=redis,
        subscriber=subscriber,
        directory=directory,
        node_id=node_id,
        cluster_name=cluster_name,
        lease_s=lease_s,
    )
    try:
        async with asyncio.timeout(10):
            await node.start()
    except (RedisError, OSError, TimeoutError) as error:
        await close_clients(redis, subscriber)
        raise unreachable(redis_url, error) from error
    return node


async def reach_redis(redis_url: str) -> None:
    """Check that Redis answers; ClusterUnreachable with what to do if it does not."""
    client = redis_client(redis_url, socket_connect_timeout=3, socket_timeout=3)
    try:
        await client.ping()
    except (RedisError, OSError) as error:
        raise unreachable(redis_url, error) from error
    finally:
        await close_clients(client)


def unreachable(redis_url: str, error: BaseException) -> ClusterUnreachable:
    return ClusterUnreachable(
        f"cannot reach Redis at {redact(redis_url)} ({error}): start it, or fix MELDHALL_REDIS_URL"
    )


async def stop_node(node: ClusterNode) -> None:
    try:
        await node.stop()
    finally:
        await close_clients(node.redis, node.bus.subscriber)


async def close_clients(*clients: Redis) -> None:
    for client in clients:
        with contextlib.suppress(RedisError, OSError):
            await client.aclose()


class ClusterUnreachable(Exception):
    """Redis, which a cluster node needs, cannot be reached at start."""


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    scheme, sep, rest = url.partition("://")
    if "@" not in rest:
        return url
    return f"{scheme}{sep}***@{rest.rsplit('@', 1)[1]}"
