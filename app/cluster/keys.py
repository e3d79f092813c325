"""The names of a cluster's Redis keys and channels, all under the cluster's prefix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClusterKeys:
    prefix: str

    def lease(self, room_id: str) -> str:
        """Who owns the room: a node id, for as long as the lease lasts."""
        return f"{self.prefix}:lease:{room_id}"

    def alive(self, node_id: str) -> str:
        """Present while the node runs (it renews it with its leases)."""
        return f"{self.prefix}:node:{node_id}"

    def inbox(self, node_id: str) -> str:
        """The channel a node reads: calls, replies and messages for the sockets it holds."""
        return f"{self.prefix}:to:{node_id}"

    @property
    def everyone(self) -> str:
        """The channel every node reads: rooms handed over."""
        return f"{self.prefix}:all"

    @property
    def nodes(self) -> str:
        """A sorted set of node ids, scored by when each stops counting as alive (ms)."""
        return f"{self.prefix}:nodes"

    def lobby(self, node_id: str) -> str:
        """A hash of the node's public waiting rooms (room id -> its info as JSON)."""
        return f"{self.prefix}:lobby:{node_id}"
