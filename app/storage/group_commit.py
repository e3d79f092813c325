"""Group commit: one writer task commits every write waiting in its queue in one transaction.

The future `submit` gives resolves only after the transaction holding its write has committed,
so nothing is acknowledged that is not durable (a cancelled caller only stops waiting: its
write stands). While one commit is in flight the next writes gather in the queue and share the
following commit: under load a single fsync covers many actions from many rooms, and when idle
a write is committed at once, with no added delay. PostgreSQL's writers are tasks of this kind;
SQLite's runs in a thread of its own (app.storage.commit_thread).

If a batch fails, each of its writes is retried in a transaction of its own, so that one bad
write (a duplicate action index) fails only its own caller; unless it failed with one of the
`shared_failures` (the connection lost or timed out), which every write of it is given. A
batch that commits may still report some of its writes as refused (fenced actions,
app.storage.prepared): `commit_batch` returns one outcome per write then, None when every
write is in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from app.storage.records import StoreError

T = TypeVar("T")

# A bound keeps one transaction (and the memory of one batch) small even under a flood.
MAX_BATCH = 1000


Pending = tuple[T, "asyncio.Future[None]"]
# None for a batch that committed whole, else one outcome per write (None when it committed).
Outcomes = list[BaseException | None] | None


class GroupCommitWriter(Generic[T]):
    def __init__(
        self,
        commit_batch: Callable[[list[T]], Awaitable[Outcomes]],
        commit_one: Callable[[T], Awaitable[None]],
        max_batch: int = MAX_BATCH,
        shared_failures: tuple[type[Exception], ...] = (),
    ) -> None:
        self._commit_batch = commit_batch
        self._commit_one = commit_one
        self._shared_failures = shared_failures
        self._max_batch = max_batch
        self._pending: list[Pending[T]] = []
        self._wakeup: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.batches = 0
        self.items = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="group-commit")

    def submit(self, item: T) -> asyncio.Future[None]:
        """A future that resolves once `item` is committed, or fails as its commit did."""
        if self._closing or self._task is None:
            raise StoreError("store_closed", "the match store is not running")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        self._wake()
        return future

    async def close(self) -> None:
        """Commit everything already submitted, then stop the writer."""
        if self._task is None or self._closing:
            return
        self._closing = True
        self._wake()
        await self._task

    def _wake(self) -> None:
        if self._wakeup is not None and not self._wakeup.done():
            self._wakeup.set_result(None)

    async def _run(self) -> None:
        while self._pending or not self._closing:
            if not self._pending:
                self._wakeup = asyncio.get_running_loop().create_future()
                await self._wakeup
                continue
            batch = self._pending[: self._max_batch]
            del self._pending[: self._max_batch]
            await self._commit(batch)

    async def _commit(self, batch: list[Pending[T]]) -> None:
        self.batches += 1
        self.items += len(batch)
        try:
            outcomes = await self._commit_batch([item for item, _ in batch])
        except self._shared_failures as error:
            resolve_batch(batch, [error] * len(batch))
        except Exception:
            resolve_batch(batch, [await self._commit_alone(item) for item, _ in batch])
        else:
            resolve_batch(batch, outcomes)

    async def _commit_alone(self, item: T) -> BaseException | None:
        try:
            await self._commit_one(item)
        except Exception as error:
            return error
        return None


def resolve_batch(batch: list[Pending[T]], outcomes: Outcomes) -> None:
    """Tell each caller of a batch how its write went (both writers, after each commit)."""
    for position, (_, future) in enumerate(batch):
        if future.done():  # its caller was cancelled; the write stands all the same
            continue
        error = None if outcomes is None else outcomes[position]
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
