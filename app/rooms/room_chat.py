"""A room's talk: lines said at the table, the last lines read, and seats muted by the host."""

from __future__ import annotations

import logging
from typing import Any

from app.rooms.chat import HISTORY, checked_line, line_out
from app.rooms.errors import RoomError
from app.rooms.fanout import dumps
from app.rooms.room_state import RoomState
from app.storage.store import StoreError

# Every part of a room logs as the room (operators filter on it: docs/operating.md).
log = logging.getLogger("app.rooms.room")


class RoomChat(RoomState):
    """What the room's seats say to each other."""

    async def chat(self, token_hash: str, text: str | None, reaction: str | None) -> dict[str, Any]:
        """Say one line from the token's seat: kept, then sent to every connection; the line.

        Outside the room's lock (a move never waits for talk); the talk's own lock keeps the
        lines in one order, the order they are kept and sent in."""
        self._refuse_if_closed()
        seat = self.seats.authenticate(token_hash)
        talk = self.talk
        talk.refuse_from(seat.index)
        line = checked_line(text, reaction)
        async with talk.lock:
            self._refuse_if_closed()
            talk.take_turn(seat.index)
            match_id = None if self.match is None else self.match.match_id
            record = talk.record(self.room_id, talk.new_id(), match_id, seat.index, seat.name, line)
            try:
                await self.store.append_chat(chat=record, fence=self.fence)
            except StoreError as exc:
                if exc.code == "fenced":
                    self._lose_if_moved(RoomError("room_moved", "the room moved"))
                    self._refuse_if_closed()
                self.meters.storage_errors["chat"].inc()
                log.error("could not keep a chat line of room %s: %r", self.room_id, exc)
                raise RoomError("storage_unavailable", "the message could not be kept") from exc
            except Exception as exc:
                self.meters.storage_errors["chat"].inc()
                log.error("could not keep a chat line of room %s: %r", self.room_id, exc)
                raise RoomError("storage_unavailable", "the message could not be kept") from exc
            out = line_out(record)
            talk.lines.append(out)
            message = dumps({"type": "chat", **out})
            for connection in self.fanout.connections:
                connection.outbox.send(message)
            return out

    async def chat_lines(self, token_hash: str | None) -> list[dict[str, Any]]:
        """The last lines, for whoever may read the room (its seats; spectators if allowed)."""
        self._refuse_if_closed()
        if token_hash is not None:
            self.seats.authenticate(token_hash)
        elif not self.spec.spectators:
            raise RoomError("spectators_not_allowed", "this room does not allow spectators")
        return list(self.talk.lines)[-HISTORY:]

    async def mute_chat(self, token_hash: str, index: int, muted: bool) -> None:
        """The host mutes (or unmutes) a seat's talk for everyone at the table."""
        async with self.lock:
            seat = await self._touch(token_hash)
            if self.talk.host != seat.index:
                raise RoomError("not_chat_host", "only the room's host mutes a seat for everyone")
            target = self.seats.checked(index).index
            before = set(self.talk.muted)
            if muted:
                self.talk.muted.add(target)
            else:
                self.talk.muted.discard(target)
            try:
                await self.save()
            except RoomError:
                self.talk.muted = before
                raise
            self._changed(game=False)
