"""Players that keep playing through a cluster's faults: a socket to some node, and when it
closes, another socket to the next node, until the match is over.

Each player records what a fault test counts: every message it got (for the hidden-hand spy),
the actions the server acknowledged, the actions in doubt (sent, then the socket closed before
the answer), every refusal, and every time a version went back; and a timeline (wall-clock
times, to set beside the servers' logs) of its sockets opened and closed, its snapshots, and the
actions it sent and the answers it got, so that a test failing on timing can say where the time
went.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import websockets

from app.bots.base import Bot
from app.bots.registry import make_bot
from app.storage.store import StoredMatch

# Refusals a player meets in a healthy cluster under faults, and carries on from: the game moved
# on (another seat, a bot), or the room was changing hands when the move arrived.
EXPECTED_REFUSALS = frozenset({"stale_version", "room_moved", "room_unavailable", "not_your_turn"})
# A player whose socket closed opens another this long after.
RECONNECT_PAUSE_S = 0.1


@dataclass
class Player:
    urls: list[str]
    token: str | None
    bot: Bot | None
    name: str = ""
    received: list[tuple[int, str]] = field(default_factory=list)
    acknowledged: list[dict[str, Any]] = field(default_factory=list)
    in_doubt: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    versions_back: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    connections: int = 0
    doc: dict[str, Any] | None = None
    version: int = -1
    finished: bool = False
    finished_at: float = 0.0
    # Seconds a person "thinks" before each move (0: at once, as a program plays).
    pace_s: float = 0.0
    # (time.time(), what happened)
    timeline: list[tuple[float, str]] = field(default_factory=list)

    @property
    def seat(self) -> int | None:
        return None if self.doc is None or self.token is None else self.doc["you"]["seat"]

    async def play(self, seconds: float) -> None:
        """Play until the match is over (or the room closed), reconnecting as needed."""
        deadline = time.monotonic() + seconds
        nodes = itertools.cycle(self.urls)
        while not self.finished:
            assert time.monotonic() < deadline, f"{self.name}: the match did not end in time"
            with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
                await self._connection(next(nodes), deadline)
            if not self.finished:
                await asyncio.sleep(RECONNECT_PAUSE_S)

    def note(self, what: str) -> None:
        self.timeline.append((time.time(), f"{self.name}: {what}"))

    async def _connection(self, url: str, deadline: float) -> None:
        pending: tuple[int, dict[str, Any]] | None = None
        seq = 0
        self.note("connecting")
        try:
            async with websockets.connect(url, open_timeout=10, close_timeout=2) as socket:
                self.note("socket open")
                self.connections += 1
                await socket.send(json.dumps({"type": "hello", "token": self.token}))
                while True:
                    left = deadline - time.monotonic()
                    text = await asyncio.wait_for(socket.recv(), max(0.1, min(left, 20)))
                    assert isinstance(text, str)
                    message = self._take(text)
                    if pending is not None and self._answers(message, pending):
                        pending = None
                    if self.finished:
                        return
                    if pending is None and self.bot is not None and self._my_turn():
                        if self.pace_s:
                            await asyncio.sleep(self.pace_s)
                            if not self._my_turn():
                                continue
                        assert self.doc is not None
                        seq += 1
                        action = self.bot.choose(self.doc["game"], self.doc["you"]["legal"])
                        pending = (seq, dict(action))
                        self.note(f"sent {action['type']} at version {self.version}")
                        await socket.send(
                            json.dumps(
                                {"type": "action", "seq": seq, "action": action,
                                 "version": self.version}
                            )
                        )  # fmt: skip
        except BaseException as error:
            self.note(f"socket closed: {error!r}"[:200])
            raise
        finally:
            if pending is not None:
                self.in_doubt.append(pending[1])

    def _answers(self, message: dict[str, Any], pending: tuple[int, dict[str, Any]]) -> bool:
        """Whether the message answers the pending action; records how."""
        if message.get("type") not in ("ack", "error") or message.get("seq") != pending[0]:
            return False
        if message["type"] == "ack":
            self.acknowledged.append(pending[1])
            self.note(f"acknowledged at version {message['version']}")
            return True
        self.refusals.append(message)
        self.note(f"refused: {message['code']}")
        if message["code"] == "room_unavailable":
            # "may or may not have been made"
            self.in_doubt.append(pending[1])
        return True

    def _take(self, text: str) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(text)
        kind = message["type"]
        if kind == "snapshot":
            self.note(f"snapshot at version {message['version']}")
            self._reached(message["version"])
            self.doc = message["state"]
        elif kind in ("patch", "ack"):
            if message["from"] != self.version:
                self.gaps.append(f"{self.name}: a patch from {message['from']} at {self.version}")
                raise ConnectionError("a gap in the patches: reconnect for a snapshot")
            self._reached(message["version"])
            self.doc = jsonpatch.apply_patch(self.doc, message["patch"])
        self.received.append((self.version, text))
        if self.doc is not None and self.doc["room"]["status"] == "finished" and not self.finished:
            self.finished, self.finished_at = True, time.monotonic()
        return message

    def _reached(self, version: int) -> None:
        if version < self.version:
            self.versions_back.append(f"{self.name}: {self.version} -> {version}")
        self.version = version

    def _my_turn(self) -> bool:
        assert self.doc is not None
        return self.doc["room"]["status"] == "playing" and bool(self.doc["you"]["legal"])


def players_for(urls: list[str], tokens: list[str], game: str, seed: int) -> list[Player]:
    """A player per seat token (each starting on its own node), and a spectator."""
    players = []
    for seat, token in enumerate(tokens):
        order = urls[seat % len(urls) :] + urls[: seat % len(urls)]
        players.append(Player(order, token, make_bot(game, "normal", seed + seat), f"seat{seat}"))
    players.append(Player(urls[::-1], None, None, "spectator"))
    return players


def log_faults(stored: StoredMatch, player: Player) -> list[str]:
    """The log against what the player was told: every acknowledged action is in it, in order,
    and every other action of its seat there is one it was left in doubt about (once each)."""
    seat = player.seat
    logged = [a.action for a in stored.actions if a.seat == seat]
    faults = []
    doubts = list(player.in_doubt)
    at = 0
    for acked in player.acknowledged:
        while at < len(logged) and logged[at] != acked:
            if logged[at] in doubts:
                doubts.remove(logged[at])
            else:
                faults.append(f"{player.name}: {logged[at]} logged but never acknowledged")
            at += 1
        if at == len(logged):
            faults.append(f"{player.name}: acknowledged {acked} is not in the log")
            return faults
        at += 1
    for extra in logged[at:]:
        if extra in doubts:
            doubts.remove(extra)
        else:
            faults.append(f"{player.name}: {extra} logged but never acknowledged")
    return faults
