"""Who holds each room: owners looked up, rooms taken over and handed over, and the
database's fences checked while the leases are in doubt."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time

from redis.exceptions import RedisError

from app.cluster import wire
from app.cluster.lobby_publishing import LobbyPublishing
from app.cluster.node_state import TRY_AGAIN, UNAVAILABLE, unavailable
from app.cluster.relaying import Relaying
from app.rooms.errors import RoomError
from app.rooms.room import Room

# Every part of a node logs as the node.
log = logging.getLogger("app.cluster.node")


class Tenancy(Relaying, LobbyPublishing):
    """The node's rooms taken, kept and given up."""

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

    async def _take_quietly(self, room_id: str) -> None:
        # A little spread, so that the rooms of a stopping node do not all go to one node.
        await asyncio.sleep(random.uniform(0, 0.05))
        try:
            await self._take(room_id)
        except Exception:
            log.exception("could not take room %s over", room_id)

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
