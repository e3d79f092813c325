"""The gauges of a server's state, read from its rooms when Prometheus scrapes.

Counted at the scrape rather than kept up to date at every change: the rooms already hold the
answers (their status, their connections, whether a bot is thinking), and a gauge moved at
every change would cost the hot paths and drift wherever one change was missed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from app.rooms.room import Room
from app.rooms.types import BETWEEN_HANDS, PLAYING


@dataclass(frozen=True)
class Held:
    """What a node holds now: its rooms, and the sockets it holds for rooms on other nodes
    (`relayed`) and other nodes hold for its rooms (`attached`)."""

    rooms: Iterable[Room]
    relayed: int = 0
    attached: int = 0


class RoomGauges(Collector):
    def __init__(self, node: str, held: Callable[[], Held | None]) -> None:
        self.node = node
        self.held = held

    def describe(self) -> Iterable[Metric]:
        # Known names without a scrape of the rooms at registration.
        return list(self._families(None))

    def collect(self) -> Iterable[Metric]:
        return list(self._families(self.held()))

    def _families(self, held: Held | None) -> Iterator[Metric]:
        node = self.node
        rooms = GaugeMetricFamily(
            "meldhall_rooms",
            "Rooms this node holds, by game and status",
            labels=("node", "game", "status"),
        )
        sockets = GaugeMetricFamily(
            "meldhall_sockets",
            "Room sockets this node holds: for its own rooms, or relayed from another node's",
            labels=("node", "kind"),
        )
        playing = GaugeMetricFamily(
            "meldhall_matches_in_play",
            "Matches being played (a hand, or between hands)",
            labels=("node", "game"),
        )
        thinking = GaugeMetricFamily(
            "meldhall_bots_thinking", "Bots choosing a move now", labels=("node",)
        )
        if held is None:
            yield from (rooms, sockets, playing, thinking)
            return
        by_status: Counter[tuple[str, str]] = Counter()
        in_play: Counter[str] = Counter()
        connections = bots = 0
        for room in held.rooms:
            game = room.spec.game
            by_status[game, room.status.value] += 1
            if room.status is PLAYING or room.status is BETWEEN_HANDS:
                in_play[game] += 1
            connections += len(room.fanout.connections)
            bots += room.bots.thinking
        for (game, status), count in sorted(by_status.items()):
            rooms.add_metric((node, game, status), count)
        for game, count in sorted(in_play.items()):
            playing.add_metric((node, game), count)
        sockets.add_metric((node, "own"), connections - held.attached)
        sockets.add_metric((node, "relayed"), held.relayed)
        thinking.add_metric((node,), bots)
        yield from (rooms, sockets, playing, thinking)
