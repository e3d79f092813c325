"""One match inside a room: the engine, and the write-ahead log that every action passes.

An action is applied to the engine first (the engine is the only judge of legality), then
appended to the store; only when the store has it is the change kept. If the write fails (or the
engine itself fails) the engine is rebuilt from a recent checkpoint of its JSON by replaying the
actions applied since, so nothing unlogged is ever shown. Engines are deterministic, so the
replay gives back exactly the state before the failed action; taking the checkpoint only every
CHECKPOINT_EVERY actions keeps the cost of this off the path of every move.

A write that failed without the store's refusal (a connection lost, most often) is in doubt: the
database may have committed it before the answer was lost. The room goes on as if it had not;
if it had, the match's next write at that index is refused as a duplicate, and the action in
doubt is then taken into the engine (`SavedAfterAll`): the room holds what its log holds.
"""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from app.games.engine import Action, Engine, IllegalAction, Seat, known_fields
from app.metrics.meters import OFF, Meters
from app.players.rating_math import SeatAtEnd, mode_of, places, rated_sides
from app.rooms.errors import RoomError
from app.storage.store import (
    FINISHED,
    Fence,
    MatchStore,
    RatingUpdate,
    SeatRecord,
    StoreError,
)

log = logging.getLogger(__name__)

# Serialising a Gin Rummy engine costs about as much as applying ten actions to it; a checkpoint
# every 8 actions keeps that near a microsecond per move, the actions kept for the replay under
# 2 KB per room, and the replay on a failure short.
CHECKPOINT_EVERY = 8


@dataclass(frozen=True, slots=True)
class MatchEnding:
    """Its room's seats as the match ends, and whether the room rates its matches."""

    game: str
    rated: bool
    public: bool
    seats: tuple[SeatAtEnd, ...]

    def places_and_rating(
        self, match_id: str, result: dict[str, Any] | None
    ) -> tuple[list[int] | None, RatingUpdate | None]:
        if not result:
            return None, None
        seat_places = places(result, self.seats)
        sides = rated_sides(self.game, result, self.seats) if self.rated else []
        if not sides:
            return seat_places, None
        mode = mode_of(self.game, len(self.seats))
        return seat_places, RatingUpdate(match_id, mode, tuple(sides), self.public)


class SavedAfterAll(Exception):
    """The action in doubt was in the log: it is in the engine now, and the action being
    applied was not (it was chosen before the one taken in)."""


def new_match_id() -> str:
    return uuid.uuid4().hex


def new_seed() -> int:
    # 62 bits: plenty of distinct deals, and it fits a signed 64-bit database column.
    return secrets.randbits(62)


def new_identity() -> tuple[str, int]:
    """A new match's id and seed (looked up here when called, so a test that replaces
    `new_seed` deals every match from its seed)."""
    return new_match_id(), new_seed()


class Match:
    def __init__(
        self,
        *,
        match_id: str,
        engine_cls: type[Engine],
        engine: Engine,
        seed: int,
        store: MatchStore,
        fence: Fence,
        next_index: int = 0,
    ) -> None:
        self.match_id = match_id
        # Every write of the match is made under its room's fence.
        self.fence = fence
        self.engine_cls = engine_cls
        self.engine = engine
        self.seed = seed
        self.store = store
        self.next_index = next_index
        # Its room's, set as the room takes the match on.
        self.meters: Meters = OFF
        self.hands_recorded = 0
        self.finished_recorded = False
        # The engine's JSON text at some earlier point, and every action applied since.
        self._checkpoint: str | None = None
        self._since: list[tuple[Seat | None, Action]] = []
        # The last action whose write failed in doubt, at index `next_index`.
        self._in_doubt: tuple[Seat | None, Action] | None = None

    @classmethod
    async def begin(
        cls,
        *,
        engine_cls: type[Engine],
        store: MatchStore,
        room_id: str,
        game: str,
        config: dict[str, Any],
        players: int,
        seats: list[SeatRecord],
        room_meta: dict[str, Any],
        fence: Fence,
        match_id: str | None = None,
        seed: int | None = None,
    ) -> Match:
        """A new match, created in the store; `match_id` and `seed` (new when not given) are a
        creation tried again: one already committed with them is the match (its id and seed
        name it, and the caller tries again with the same from which it was made)."""
        match_id = new_match_id() if match_id is None else match_id
        seed = new_seed() if seed is None else seed
        engine = engine_cls.new(config, players, seed=seed)
        try:
            await store.create_match(
                match_id=match_id,
                room_id=room_id,
                game=game,
                config=config,
                seed=seed,
                players=players,
                seats=seats,
                room_meta=room_meta,
                fence=fence,
            )
        except StoreError as exc:
            raise_moved(exc)
            if exc.code != "duplicate_match":
                log.exception("could not create match %s", match_id)
                raise RoomError("storage_unavailable", "the match could not be saved") from exc
            log.warning("match %s was created after all", match_id)
        except Exception as exc:
            log.exception("could not create match %s", match_id)
            raise RoomError("storage_unavailable", "the match could not be saved") from exc
        return cls(
            match_id=match_id,
            engine_cls=engine_cls,
            engine=engine,
            seed=seed,
            store=store,
            fence=fence,
        )

    async def apply(self, seat: Seat | None, action: Mapping[str, Any]) -> None:
        """Apply, then log durably; IllegalAction or RoomError leave everything as it was."""
        if self._checkpoint is None or len(self._since) >= CHECKPOINT_EVERY:
            # As text: orjson's bytes keep their whole write buffer (8 KB) alive, str is exact.
            self._checkpoint, self._since = orjson.dumps(self.engine.to_json()).decode(), []
        logged = dict(action)
        try:
            self.engine.apply(seat, logged)
        except IllegalAction:
            raise
        except Exception as exc:
            # An engine bug must not leave a half-applied state behind the room's back.
            log.exception("engine failed on %r in match %s", action, self.match_id)
            self._roll_back()
            raise RoomError("internal_error", "the server could not apply this action") from exc
        started = time.perf_counter()
        try:
            await self.store.append_action(
                match_id=self.match_id,
                index=self.next_index,
                seat=seat,
                action=logged,
                fence=self.fence,
            )
        except StoreError as exc:
            self._roll_back()
            raise_moved(exc)
            if exc.code == "duplicate_action" and self._in_doubt is not None:
                self._take_in_doubt()
                raise SavedAfterAll() from exc
            self.meters.storage_errors["action"].inc()
            log.exception("action %d of match %s not logged", self.next_index, self.match_id)
            raise RoomError(
                "storage_unavailable", "the action could not be saved, so it was not made"
            ) from exc
        except Exception as exc:
            self._roll_back()
            self._in_doubt = (seat, logged)
            self.meters.storage_errors["action"].inc()
            log.exception("action %d of match %s in doubt", self.next_index, self.match_id)
            raise RoomError(
                "storage_unavailable",
                "the action could not be saved; it may have been saved after all, as the "
                "room's state will then show: read it before repeating the action",
            ) from exc
        self.meters.commit_seconds.observe(time.perf_counter() - started)
        self._in_doubt = None
        self._since.append((seat, logged))
        self.next_index += 1

    def _take_in_doubt(self) -> None:
        assert self._in_doubt is not None
        seat, action = self._in_doubt
        self._in_doubt = None
        index, match_id = self.next_index, self.match_id
        log.warning("action %d of match %s was saved after all; taking it in", index, match_id)
        self.replay(seat, action)

    def _roll_back(self) -> None:
        """Rebuild the engine as it was before the action being applied."""
        assert self._checkpoint is not None
        engine = self.engine_cls.from_json(orjson.loads(self._checkpoint))
        for seat, action in self._since:
            engine.apply(seat, action)
        self.engine = engine

    def replay(self, seat: Seat | None, action: Action) -> None:
        """Re-apply an action already in the log (crash recovery)."""
        self.engine.apply(seat, known_fields(action, self.engine_cls.action_fields))
        self._checkpoint = None
        self.next_index += 1

    def progress_to_record(self) -> bool:
        """Whether a hand finished or the match ended since the progress was last recorded."""
        engine = self.engine
        return engine.hands_finished() > self.hands_recorded or (
            not self.finished_recorded and engine.is_over()
        )

    async def record_progress(self, ending: MatchEnding) -> None:
        """Store finished hands and the end of the match (rating it, as `ending` says, in the
        same transaction); derived data, so failures only log."""
        try:
            if self.engine.hands_finished() > self.hands_recorded:
                results = self.engine.hand_results()
                for index in range(self.hands_recorded, len(results)):
                    await self.store.record_hand(
                        match_id=self.match_id,
                        hand_index=index,
                        result=results[index],
                        fence=self.fence,
                    )
                self.hands_recorded = len(results)
            if self.engine.is_over() and not self.finished_recorded:
                result = self.engine.result()
                seat_places, rating = ending.places_and_rating(self.match_id, result)
                await self.store.finish_match(
                    match_id=self.match_id,
                    status=FINISHED,
                    result=result,
                    final_scores=final_scores(result),
                    fence=self.fence,
                    places=seat_places,
                    rating=rating,
                )
                self.finished_recorded = True
        except Exception:
            self.meters.storage_errors["progress"].inc()
            log.exception("could not record the progress of match %s", self.match_id)


def raise_moved(error: BaseException) -> None:
    """A write refused by the fence means another owner has the room: say so, not "retry"."""
    if isinstance(error, StoreError) and error.code == "fenced":
        raise RoomError(
            "room_moved", "this room is now served by another server; reconnect to carry on"
        ) from error


def final_scores(result: dict[str, Any] | None) -> list[int] | None:
    if not result:
        return None
    # Every engine's result carries "scores", one total per seat (partners share their side's).
    value = result.get("scores")
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return value
    return None
