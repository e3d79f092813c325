"""A room's own steps (bot turns, the turn clock, dealing between hands, starting) are tried
again after a store failure until they succeed, and a seat handed to a bot on its own turn is
played by the bot at once."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from app.bots.registry import make_bot
from app.rooms import flow
from app.rooms.directory import RoomDirectory
from app.rooms.room import Room, RoomTimings
from app.rooms.tokens import hash_token, new_token
from app.rooms.types import RoomStatus
from app.storage.memory_store import MemoryMatchStore
from app.storage.store import StoreError
from tests.rooms.test_write_ahead import TIMINGS, FlakyStore, next_to_act

# Long enough that every room below is stuck if its failed step is never tried again.
OUTAGE_S = 0.5
SHORT_TURN_S = 0.2


class OutageStore(FlakyStore):
    """Log writes fail while `failing`; `fail_after_hand` turns failing on as a hand ends."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_after_hand = False
        self.failures = 0

    async def append_action(self, **kwargs: Any) -> None:
        if self.failing:
            self.failures += 1
        await super().append_action(**kwargs)

    async def record_hand(self, **kwargs: Any) -> None:
        await super().record_hand(**kwargs)
        if self.fail_after_hand:
            self.failing = True


async def eventually(done: Callable[[], bool], seconds: float = 10) -> None:
    """Wait for `done` to hold: the room has no event to wait on, so it is polled."""
    for _ in range(int(seconds * 100)):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still not done after {seconds} s")


async def outage(store: OutageStore, until: Callable[[], bool] = lambda: True) -> None:
    """Keep the store failing for a while once `until` holds, then bring it back."""
    await eventually(lambda: until() and store.failures > 0)
    await asyncio.sleep(OUTAGE_S)
    store.failing = False


def logged(room: Room) -> int:
    assert room.match is not None
    return room.match.next_index


def directory_on(store: MemoryMatchStore, timings: RoomTimings = TIMINGS) -> RoomDirectory:
    return RoomDirectory(store=store, timings=timings, make_bot=make_bot)


async def bots_alone(directory: RoomDirectory, game: str = "gin_rummy") -> Room:
    """A room of two easy bots: it starts, and plays, by itself."""
    return await directory.create(
        game=game,
        players=2,
        options={},
        bots=[(0, "easy"), (1, "easy")],
        public=False,
        spectators=True,
    )


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
async def test_a_bot_turn_that_failed_on_the_store_is_played_once_the_store_is_back(
    game: str,
) -> None:
    store = OutageStore()
    store.failing = True
    directory = directory_on(store)
    room = await bots_alone(directory, game)
    await outage(store)
    assert logged(room) == 0
    await eventually(lambda: logged(room) > 0)
    await directory.close()


async def players_ready(room: Room, count: int = 2) -> list[str]:
    hashes = [hash_token(new_token()) for _ in range(count)]
    for index, token_hash in enumerate(hashes):
        await room.join(f"p{index}", None, token_hash)
    for token_hash in hashes:
        await room.ready(token_hash)
    return hashes


async def play_to_the_end_of_the_hand(room: Room, hashes: list[str]) -> None:
    assert room.match is not None
    while room.status is RoomStatus.PLAYING:
        seat = await next_to_act(room)
        action = room.match.engine.legal_actions(seat)[0]
        await room.act(hashes[seat], action, room.version)


async def test_a_deal_that_failed_when_everyone_was_ready_happens_once_the_store_is_back() -> None:
    store = OutageStore()
    # The pause between hands is long: only everyone being ready deals the next hand here.
    directory = directory_on(store, dataclasses.replace(TIMINGS, between_hands_s=3600))
    room = await directory.create(
        game="gin_rummy", players=2, options={}, bots=[], public=False, spectators=True
    )
    hashes = await players_ready(room)
    await play_to_the_end_of_the_hand(room, hashes)
    assert room.status is RoomStatus.BETWEEN_HANDS
    store.failing = True
    for token_hash in hashes:
        # Being ready is taken even while the deal cannot be logged.
        await room.ready(token_hash)
    await outage(store)
    assert room.status is RoomStatus.BETWEEN_HANDS
    await eventually(lambda: room.status is RoomStatus.PLAYING)
    await directory.close()


async def test_a_deal_between_bot_hands_that_failed_happens_once_the_store_is_back() -> None:
    store = OutageStore()
    store.fail_after_hand = True
    directory = directory_on(store)
    room = await bots_alone(directory)
    await outage(store, until=lambda: room.status is RoomStatus.BETWEEN_HANDS)
    store.fail_after_hand = False
    assert room.status is RoomStatus.BETWEEN_HANDS
    await eventually(lambda: room.match is not None and room.match.engine.hands_finished() >= 2)
    await directory.close()


async def test_a_start_that_failed_when_everyone_was_ready_happens_once_the_store_is_back() -> None:
    class MatchesFailing(MemoryMatchStore):
        failing = False

        async def create_match(self, **kwargs: Any) -> None:
            if self.failing:
                raise StoreError("unavailable", "the disk is gone")
            await super().create_match(**kwargs)

    store = MatchesFailing()
    directory = directory_on(store)
    room = await directory.create(
        game="gin_rummy", players=2, options={}, bots=[], public=False, spectators=True
    )
    store.failing = True
    await players_ready(room)
    await asyncio.sleep(OUTAGE_S)
    assert room.status is RoomStatus.WAITING
    store.failing = False
    await eventually(lambda: room.status is RoomStatus.PLAYING)
    await directory.close()


async def test_a_turn_that_ran_out_while_the_store_was_away_ends_once_it_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quick = dataclasses.replace(
        flow.FLOWS["rummikub"],
        turn_seconds=lambda options: SHORT_TURN_S if options["turn_timer_s"] else 0,
    )
    monkeypatch.setitem(flow.FLOWS, "rummikub", quick)
    store = OutageStore()
    directory = directory_on(store)
    room = await directory.create(
        game="rummikub",
        players=2,
        options={"turn_timer_s": 60},
        bots=[],
        public=False,
        spectators=True,
    )
    await players_ready(room)
    assert room.match is not None
    sleeper = room.match.engine.to_act()[0]
    store.failing = True
    await outage(store)
    assert room.match.engine.to_act() == [sleeper]
    await eventually(lambda: room.match is not None and room.match.engine.to_act() != [sleeper])
    await directory.close()


@pytest.mark.parametrize("game", ["gin_rummy", "rummikub"])
@pytest.mark.parametrize("how", ["leave", "absent"])
async def test_a_seat_handed_to_a_bot_on_its_own_turn_is_played_by_the_bot(
    game: str, how: str
) -> None:
    directory = directory_on(MemoryMatchStore())
    room = await directory.create(
        game=game, players=2, options={}, bots=[], public=False, spectators=True
    )
    hashes = await players_ready(room)
    seat = await next_to_act(room)
    version = room.version
    if how == "leave":
        await room.leave(hashes[seat])
    else:
        await room.hand_to_bot(hashes[1 - seat], seat)
    assert room.seats[seat].is_bot
    await eventually(lambda: logged(room) > 0)
    assert room.version > version + 1
    await directory.close()


class CountingStore(MemoryMatchStore):
    def __init__(self) -> None:
        super().__init__()
        self.appends = 0

    async def append_action(self, **kwargs: Any) -> None:
        self.appends += 1
        await super().append_action(**kwargs)


async def test_a_bot_turn_refused_because_another_owner_claimed_the_room_is_not_tried_again() -> (
    None
):
    """The room is lost (another server has it now): trying its step again could only be
    refused again, for as long as this process runs."""
    store = CountingStore()
    directory = directory_on(store)
    room = await bots_alone(directory)
    await eventually(lambda: logged(room) > 2)
    await store.claim_room(room_id=room.room_id, epoch=room.fence.epoch)
    await eventually(lambda: room.lost)
    tries = store.appends
    # Longer than the first few pauses between tries (0.1 s, doubling).
    await asyncio.sleep(1.0)
    assert store.appends == tries
    assert room.room_id not in directory.rooms
    assert not room.bot_timer.armed
    await directory.close()
