"""Group commit: one writer task commits every write waiting in its queue in one transaction.

A caller's `submit` returns only after the transaction holding its write has committed, so
nothing is acknowledged that is not durable. While one commit is in flight the next writes
gather in the queue and share the following commit: under load a single fsync covers many
actions from many rooms, and when idle a write is committed at once, with no added delay.

If a batch fails, each of its writes is retried in a transaction of its own, so that one bad
write (a duplicate action index) fails only its own caller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.storage.records import StoreError

T = TypeVar("T")

# A bound keeps one transaction (and the memory of one batch) small even under a flood.
MAX_BATCH = 1000


@dataclass
class _Pending(Generic[T]):
    item: T
    future: asyncio.Future[None]


class GroupCommitWriter(Generic[T]):
    def __init__(
        self,
        commit_batch: Callable[[list[T]], Awaitable[None]],
        commit_one: Callable[[T], Awaitable[None]],
        max_batch: int = MAX_BATCH,
    ) -> None:
        self._commit_batch = commit_batch
        self._commit_one = commit_one
        self._max_batch = max_batch
        self._queue: asyncio.Queue[_Pending[T] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.batches = 0
        self.items = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="group-commit")

    async def submit(self, item: T) -> None:
        """Return once `item` is committed; raise what its commit raised."""
        if self._closing or self._task is None:
            raise StoreError("store_closed", "the match store is not running")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Pending(item, future))
        # The write is committed or refused either way; a cancelled caller only stops waiting.
        await asyncio.shield(future)

    async def close(self) -> None:
        """Commit everything already submitted, then stop the writer."""
        if self._task is None or self._closing:
            return
        self._closing = True
        self._queue.put_nowait(None)
        await self._task

    async def _run(self) -> None:
        while True:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while len(batch) < self._max_batch and not self._queue.empty():
                pending = self._queue.get_nowait()
                if pending is None:
                    stop = True
                    break
                batch.append(pending)
            await self._commit(batch)
            if stop:
                return

    async def _commit(self, batch: list[_Pending[T]]) -> None:
        self.batches += 1
        self.items += len(batch)
        try:
            await self._commit_batch([p.item for p in batch])
        except Exception:
            await self._commit_each(batch)
            return
        for pending in batch:
            if not pending.future.done():
                pending.future.set_result(None)

    async def _commit_each(self, batch: list[_Pending[T]]) -> None:
        for pending in batch:
            try:
                await self._commit_one(pending.item)
            except Exception as error:
                if not pending.future.done():
                    pending.future.set_exception(error)
                    # Mark it retrieved: a caller that stopped waiting must not warn at exit.
                    pending.future.exception()
            else:
                if not pending.future.done():
                    pending.future.set_result(None)
