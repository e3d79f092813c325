"""The in-memory store keeps its action log as text: a long log is no work for the garbage
collector, whose young collections would otherwise scan every action once more."""

from __future__ import annotations

import gc

from app.storage.memory_store import MemoryMatchStore
from tests.storage.test_match_store import create


async def test_a_thousand_logged_actions_leave_nothing_for_the_collector_to_scan() -> None:
    store = MemoryMatchStore()
    await create(store)
    gc.collect()
    tracked_before = len(gc.get_objects())
    for index in range(1000):
        action = {"type": "knock", "card": "H7", "melds": [["H1", "H2", "H3"]]}
        await store.append_action(match_id="m1", index=index, seat=index % 2, action=action)
    gc.collect()
    # A few objects of the test's own may come and go; one per action would be a thousand.
    assert len(gc.get_objects()) - tracked_before < 50
    (match,) = await store.unfinished_matches()
    assert [a.index for a in match.actions] == list(range(1000))
    assert match.actions[7].action == {"type": "knock", "card": "H7", "melds": [["H1", "H2", "H3"]]}
    assert match.actions[7].seat == 1
