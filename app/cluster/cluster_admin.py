"""The operator's routes across the cluster (app.api.routes.admin): every room as its owner
sees it, rooms closed and seats handed to bots through their owners, notices to every node."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.cluster import wire
from app.cluster.calling_owners import CallingOwners
from app.cluster.node_state import unavailable
from app.rooms.errors import RoomError

# Every part of a node logs as the node.
log = logging.getLogger("app.cluster.node")

# Rooms described at once for the operator's list.
ADMIN_CALLS = 16


class ClusterAdmin(CallingOwners):
    """What the operator does to the cluster's rooms."""

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
