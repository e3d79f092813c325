"""An action's version guards what its seat could see change: in 4-player Gin Rummy the two
tables play apart, so a move at the other table does not make an action stale."""

from __future__ import annotations

import pytest

from app.bots.registry import make_bot
from app.rooms.directory import RoomDirectory
from app.rooms.errors import RoomError
from app.rooms.room import Room
from app.rooms.tokens import hash_token, new_token
from app.storage.memory_store import MemoryMatchStore
from tests.rooms.test_write_ahead import TIMINGS


async def gin_room(players: int, game: str = "gin_rummy") -> tuple[Room, list[str]]:
    """A started room of `players` people (of `game`, Gin Rummy unless named), no bots."""
    directory = RoomDirectory(store=MemoryMatchStore(), timings=TIMINGS, make_bot=make_bot)
    room = await directory.create(
        game=game, players=players, options={}, bots=[], public=False, spectators=True
    )
    hashes = [hash_token(new_token()) for _ in range(players)]
    for seat, token_hash in enumerate(hashes):
        await room.join(f"p{seat}", seat, token_hash)
    for token_hash in hashes:
        await room.ready(token_hash)
    return room, hashes


def to_act_at(room: Room, table: int) -> int:
    assert room.match is not None
    engine = room.match.engine
    (seat,) = [seat for seat in engine.to_act() if room.flow.table_of(engine, seat) == table]
    return seat


async def move(room: Room, hashes: list[str], seat: int, version: int | None) -> int:
    assert room.match is not None
    action = room.match.engine.legal_actions(seat)[0]
    return await room.act(hashes[seat], action, version)


async def test_a_move_at_the_other_table_leaves_an_action_current() -> None:
    room, hashes = await gin_room(4)
    chosen_at = room.version
    await move(room, hashes, to_act_at(room, 1), room.version)
    await move(room, hashes, to_act_at(room, 1), room.version)
    assert room.version == chosen_at + 2
    # Seat at table 0 chose before both moves at table 1: still current.
    assert await move(room, hashes, to_act_at(room, 0), chosen_at) == chosen_at + 3


async def test_a_move_at_ones_own_table_makes_an_older_action_stale() -> None:
    room, hashes = await gin_room(4)
    chosen_at = room.version
    await move(room, hashes, to_act_at(room, 0), chosen_at)
    with pytest.raises(RoomError) as refused:
        await move(room, hashes, to_act_at(room, 0), chosen_at)
    assert refused.value.code == "stale_version"


async def test_a_change_of_the_whole_room_makes_every_older_action_stale() -> None:
    room, hashes = await gin_room(4)
    chosen_at = room.version
    await move(room, hashes, to_act_at(room, 1), chosen_at)
    # Seat 3 leaves: a bot takes it over, which changes the room for both tables.
    await room.leave(hashes[3])
    for table in (0, 1):
        seat = to_act_at(room, table)
        if seat != 3:
            with pytest.raises(RoomError) as refused:
                await move(room, hashes, seat, chosen_at)
            assert refused.value.code == "stale_version"


async def test_with_two_players_every_move_makes_an_older_action_stale() -> None:
    room, hashes = await gin_room(2)
    chosen_at = room.version
    await move(room, hashes, room.match.engine.to_act()[0], chosen_at)  # type: ignore[union-attr]
    with pytest.raises(RoomError) as refused:
        await move(room, hashes, room.match.engine.to_act()[0], chosen_at)  # type: ignore[union-attr]
    assert refused.value.code == "stale_version"
