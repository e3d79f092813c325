"""Fencing: once a room is claimed at a higher epoch, writes made under the old one are refused.

Run against every store; the race between a claim and an old owner's writes runs on PostgreSQL,
where several servers share one database.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from app.storage.migrate import upgrade_to_head
from app.storage.sql_store import SqlMatchStore
from app.storage.store import Fence, MatchStore, SeatRecord, StoreError, open_store
from tests.storage.databases import (
    drop_postgres_database,
    fresh_postgres_database,
    plain_dsn,
)
from tests.storage.test_chat_store import line as chat_line
from tests.storage.test_room_store import waiting_room

SEATS = [SeatRecord(seat=0, name="ann", kind="human", level=None, token_hash="h0")]


async def new_match(store: MatchStore, fence: Fence, match_id: str = "m1") -> None:
    await store.create_match(
        match_id=match_id,
        room_id=fence.room_id,
        game="gin_rummy",
        config={},
        seed=7,
        players=2,
        seats=SEATS,
        room_meta={},
        fence=fence,
    )


async def logged(store: MatchStore, match_id: str = "m1") -> list[int]:
    stored = await store.load_match(match_id=match_id)
    assert stored is not None
    return [action.index for action in stored.actions]


async def test_a_new_room_is_at_epoch_zero_and_a_claim_raises_it_by_one(
    store: MatchStore,
) -> None:
    await store.save_room(room=waiting_room())
    (stored,) = await store.open_rooms()
    assert stored.room.epoch == 0
    assert await store.claim_room(room_id="r1", epoch=0) == Fence("r1", 1)
    loaded = await store.load_room(room_id="r1")
    assert loaded is not None
    assert loaded.room.epoch == 1


async def test_a_claim_from_a_stale_epoch_is_lost(store: MatchStore) -> None:
    await store.save_room(room=waiting_room())
    await store.claim_room(room_id="r1", epoch=0)
    with pytest.raises(StoreError) as lost:
        await store.claim_room(room_id="r1", epoch=0)
    assert lost.value.code == "claim_lost"


async def test_a_closed_or_unknown_room_cannot_be_claimed(store: MatchStore) -> None:
    await store.save_room(room=waiting_room())
    await store.close_room(room_id="r1")
    for room_id in ("r1", "nowhere"):
        with pytest.raises(StoreError) as lost:
            await store.claim_room(room_id=room_id, epoch=0)
        assert lost.value.code == "claim_lost"


async def test_room_epochs_gives_the_open_rooms_epochs_after_their_claims(
    store: MatchStore,
) -> None:
    for room_id in ("r1", "r2", "r3"):
        await store.save_room(room=waiting_room(room_id))
    await store.claim_room(room_id="r1", epoch=0)
    await store.claim_room(room_id="r1", epoch=1)
    await store.close_room(room_id="r3")
    assert await store.room_epochs(["r1", "r2", "r3", "nowhere"]) == {"r1": 2, "r2": 0}
    assert await store.room_epochs([]) == {}


async def test_writes_under_the_current_epoch_are_kept(store: MatchStore) -> None:
    await store.save_room(room=waiting_room())
    fence = await store.claim_room(room_id="r1", epoch=0)
    await new_match(store, fence)
    for index in range(3):
        await store.append_action(
            match_id="m1", index=index, seat=0, action={"type": "pass"}, fence=fence
        )
    await store.record_hand(match_id="m1", hand_index=0, result={"winner": 0}, fence=fence)
    await store.save_room(room=replace(waiting_room(), status="playing", epoch=1, match_id="m1"))
    assert await logged(store) == [0, 1, 2]


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.postgres)])
async def sharing_store(request: pytest.FixtureRequest) -> AsyncIterator[MatchStore]:
    """A store where a room's writes may come from more than one owner: every write is fenced.

    A SQLite file belongs to one server alone (app.storage.exclusive), so only its room rows
    carry the check there; the test of that is below.
    """
    url = "memory://"
    if request.param == "postgres":
        url = await fresh_postgres_database()
        await upgrade_to_head(url)
    opened = open_store(url)
    await opened.start()
    try:
        yield opened
    finally:
        await opened.close()
        if request.param == "postgres":
            await drop_postgres_database(url)


async def test_a_sqlite_room_row_is_replaced_only_under_its_epoch(
    sqlite_url: str,
) -> None:
    await upgrade_to_head(sqlite_url)
    store = open_store(sqlite_url)
    await store.start()
    try:
        await store.save_room(room=waiting_room())
        old = await store.claim_room(room_id="r1", epoch=0)
        await store.claim_room(room_id="r1", epoch=old.epoch)
        for attempt in (
            store.save_room(room=replace(waiting_room(), status="finished", epoch=old.epoch)),
            store.close_room(room_id="r1", epoch=old.epoch),
        ):
            with pytest.raises(StoreError) as refused:
                await attempt
            assert refused.value.code == "fenced"
        (room,) = await store.open_rooms()
        assert (room.room.status, room.room.epoch) == ("waiting", 2)
    finally:
        await store.close()


async def test_every_write_of_an_old_owner_is_refused_after_a_claim(
    sharing_store: MatchStore,
) -> None:
    store = sharing_store
    await store.save_room(room=waiting_room())
    old = await store.claim_room(room_id="r1", epoch=0)
    await new_match(store, old)
    await store.append_action(match_id="m1", index=0, seat=0, action={"type": "a"}, fence=old)
    new = await store.claim_room(room_id="r1", epoch=old.epoch)
    attempts = [
        store.append_action(match_id="m1", index=1, seat=0, action={"type": "b"}, fence=old),
        store.record_hand(match_id="m1", hand_index=0, result={}, fence=old),
        store.update_seat(match_id="m1", seat=SEATS[0], fence=old),
        store.update_room_meta(match_id="m1", room_meta={"x": 1}, fence=old),
        store.finish_match(
            match_id="m1", status="finished", result=None, final_scores=None, fence=old
        ),
        store.save_room(room=replace(waiting_room(), status="finished", epoch=old.epoch)),
        store.close_room(room_id="r1", epoch=old.epoch),
        new_match(store, old, "m2"),
    ]
    for attempt in attempts:
        with pytest.raises(StoreError) as refused:
            await attempt
        assert refused.value.code == "fenced"
    # The new owner's writes go on; nothing of the old one's after the claim is there.
    await store.append_action(match_id="m1", index=1, seat=0, action={"type": "c"}, fence=new)
    stored = await store.load_match(match_id="m1")
    assert stored is not None
    assert [a.action["type"] for a in stored.actions] == ["a", "c"]
    assert stored.status == "active"
    assert await store.load_match(match_id="m2") is None
    (room,) = await store.open_rooms()
    assert room.room.status == "waiting"


async def test_a_batch_keeps_the_writes_of_rooms_still_owned(sharing_store: MatchStore) -> None:
    store = sharing_store
    # Actions of several rooms share a commit; a fenced room's are refused, the others kept.
    for room_id in ("r1", "r2"):
        await store.save_room(room=waiting_room(room_id))
    fences = [await store.claim_room(room_id=r, epoch=0) for r in ("r1", "r2")]
    for fence, match_id in zip(fences, ("m1", "m2"), strict=True):
        await new_match(store, fence, match_id)
    await store.claim_room(room_id="r1", epoch=1)
    results = await asyncio.gather(
        *(
            store.append_action(
                match_id=match_id, index=index, seat=0, action={"i": index}, fence=fence
            )
            for index in range(5)
            for fence, match_id in zip(fences, ("m1", "m2"), strict=True)
        ),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, StoreError)]
    assert len(refused) == 5
    assert {r.code for r in refused} == {"fenced"}
    assert await logged(store, "m1") == []
    assert await logged(store, "m2") == [0, 1, 2, 3, 4]


@pytest.mark.postgres
async def test_a_claim_racing_an_old_owners_actions_leaves_no_write_unseen(
    postgres_store_url: str,
) -> None:
    """Whatever the old owner got committed is in the log the claimant reads after its claim;
    whatever it did not is refused. Many rounds of an owner writing while another claims."""
    old_owner, claimant = open_store(postgres_store_url), open_store(postgres_store_url)
    await old_owner.start()
    await claimant.start()
    try:
        for round_ in range(20):
            room_id, match_id = f"race{round_}", f"m{round_}"
            await old_owner.save_room(room=waiting_room(room_id))
            fence = await old_owner.claim_room(room_id=room_id, epoch=0)
            await new_match(old_owner, fence, match_id)
            writer = asyncio.create_task(write_until_fenced(old_owner, fence, match_id))
            await asyncio.sleep(0.001 * (round_ % 7))
            await claimant.claim_room(room_id=room_id, epoch=fence.epoch)
            seen = await logged(claimant, match_id)
            committed = await writer
            # Everything acknowledged before or during the claim is in the claimant's read,
            # and nothing was acknowledged after it.
            assert seen == committed, round_
    finally:
        await old_owner.close()
        await claimant.close()


async def write_until_fenced(store: MatchStore, fence: Fence, match_id: str) -> list[int]:
    """Log actions until the fence refuses one; the indexes acknowledged."""
    committed: list[int] = []
    for index in range(40):
        try:
            await store.append_action(
                match_id=match_id, index=index, seat=0, action={"i": index}, fence=fence
            )
        except StoreError as error:
            if error.code != "fenced":
                raise
            break
        committed.append(index)
    return committed


@pytest.mark.postgres
async def test_an_old_owners_write_waits_for_a_claim_in_progress_and_is_then_refused(
    postgres_store_url: str,
) -> None:
    """The log's fence holds across transactions: a write that reads the room while a claim is
    not yet committed must wait for it, not go in under the epoch about to end."""
    store = open_store(postgres_store_url)
    await store.start()
    claim = await asyncpg.connect(plain_dsn(postgres_store_url))
    try:
        await store.save_room(room=waiting_room())
        old = await store.claim_room(room_id="r1", epoch=0)
        await new_match(store, old)
        async with claim.transaction():
            await claim.execute("UPDATE rooms SET epoch = epoch + 1 WHERE id = 'r1'")
            write = asyncio.create_task(
                store.append_action(match_id="m1", index=0, seat=0, action={}, fence=old)
            )
            await until_blocked_or_done(write, claim)
        with pytest.raises(StoreError) as refused:
            await write
        assert refused.value.code == "fenced"
        assert await logged(store) == []
    finally:
        await claim.close()
        await store.close()


async def until_blocked_or_done(write: asyncio.Task[None], claim: asyncpg.Connection) -> None:
    async with asyncio.timeout(10):
        while not write.done() and not await lock_waits(claim):  # noqa: ASYNC110  # polls SQL
            await asyncio.sleep(0.01)


async def lock_waits(connection: asyncpg.Connection) -> int:
    """How many other sessions of this database wait for a lock."""
    waiting: int = await connection.fetchval(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
    )
    return waiting


async def test_a_line_under_a_lost_epoch_is_refused(sharing_store: MatchStore) -> None:
    store = sharing_store
    await store.save_room(room=waiting_room())
    await store.claim_room(room_id="r1", epoch=0)
    with pytest.raises(StoreError) as refused:
        await store.append_chat(chat=chat_line(1), fence=Fence("r1", 0))
    assert refused.value.code == "fenced"
    await store.append_chat(chat=chat_line(2), fence=Fence("r1", 1))
    assert [chat.id for chat in await store.recent_chat(room_id="r1", limit=50)] == [2]


async def claim_within(claimant: MatchStore, seconds: float) -> bool:
    """Whether the claimant's claim of r1 from epoch 1 goes through within `seconds`."""
    claiming = asyncio.create_task(claimant.claim_room(room_id="r1", epoch=1))
    done, _ = await asyncio.wait((claiming,), timeout=seconds)
    if not done:
        claiming.cancel()
        with contextlib.suppress(asyncio.CancelledError, StoreError):
            await claiming
        return False
    await claiming
    return True


@pytest.mark.postgres
@pytest.mark.parametrize("idle_in_transaction_s", [None, 0.5])
async def test_a_frozen_owners_open_transaction_holds_up_a_claim_only_for_its_idle_bound(
    postgres_store_url: str, idle_in_transaction_s: float | None
) -> None:
    """A node frozen (SIGSTOP) between two statements of a transaction keeps the room's row
    locked for as long as it is frozen; cluster nodes open their stores with a bound on idle
    transactions, after which PostgreSQL ends the frozen node's session and the claim of the
    node taking the room over goes through."""
    frozen = open_store(postgres_store_url, idle_in_transaction_s=idle_in_transaction_s)
    claimant = open_store(postgres_store_url)
    await frozen.start()
    await claimant.start()
    try:
        await frozen.save_room(room=waiting_room())
        await frozen.claim_room(room_id="r1", epoch=0)
        assert isinstance(frozen, SqlMatchStore)
        async with frozen.engine.connect() as connection:
            # The fenced writes' lock, in a transaction its client never ends.
            await connection.execute(text("SELECT id FROM rooms WHERE id = 'r1' FOR SHARE"))
            if idle_in_transaction_s is None:
                assert not await claim_within(claimant, 2.0)
            else:
                assert await claim_within(claimant, idle_in_transaction_s + 3.0)
                with pytest.raises(DBAPIError):
                    await connection.execute(text("SELECT 1"))
    finally:
        await frozen.close()
        await claimant.close()
