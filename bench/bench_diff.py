"""The room's JSON Patch differ against the jsonpatch library, on real Gin Rummy documents.

    .venv/bin/python bench/bench_diff.py

Plays seeded Gin Rummy hands with the baseline bots, takes each seat's view before and after
every action, and prints the median time per patch and the median patch size of both differs,
and the time to turn a patch message into text with json and with the room's `dumps` (orjson).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import jsonpatch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.bots.registry import make_bot
from app.games.gin_rummy import GinRummy
from app.rooms.documents import make_patch
from app.rooms.fanout import dumps

PAIRS = 2000


def view_pairs() -> list[tuple[Any, Any]]:
    pairs: list[tuple[Any, Any]] = []
    seed = 0
    while len(pairs) < PAIRS:
        seed += 1
        game = GinRummy.new(GinRummy.validate_config({}, 2), 2, seed=seed)
        bots = [make_bot("gin_rummy", "normal", seed + seat) for seat in range(2)]
        while game.to_act() and len(pairs) < PAIRS:
            seat = game.to_act()[0]
            before = [game.view(s) for s in range(2)]
            game.apply(seat, bots[seat].choose(game.view(seat), game.legal_actions(seat)))
            pairs.extend(zip(before, (game.view(s) for s in range(2)), strict=True))
    return pairs


def measure(name: str, differ: Any, pairs: list[tuple[Any, Any]]) -> None:
    times, sizes = [], []
    for old, new in pairs:
        start = time.perf_counter()
        patch = differ(old, new)
        times.append(time.perf_counter() - start)
        sizes.append(len(json.dumps(patch if isinstance(patch, list) else patch.patch)))
    print(
        f"{name:10} median {statistics.median(times) * 1e6:7.1f} us/patch, "
        f"p99 {sorted(times)[int(0.99 * len(times))] * 1e6:7.1f} us, "
        f"median patch {statistics.median(sizes):5.0f} bytes"
    )


def measure_text(name: str, encode: Any, messages: list[dict[str, Any]]) -> None:
    times = []
    for message in messages:
        start = time.perf_counter()
        encode(message)
        times.append(time.perf_counter() - start)
    print(f"{name:10} median {statistics.median(times) * 1e6:7.1f} us per patch message as text")


def main() -> None:
    pairs = view_pairs()
    full = statistics.median(len(json.dumps(new)) for _, new in pairs)
    print(f"{len(pairs)} view pairs from Gin Rummy; median whole view {full:.0f} bytes")
    measure("meldhall", make_patch, pairs)
    measure("jsonpatch", jsonpatch.make_patch, pairs)
    messages = [
        {"type": "patch", "from": 1, "version": 2, "patch": make_patch(old, new)}
        for old, new in pairs
    ]
    measure_text(
        "json", lambda m: json.dumps(m, separators=(",", ":"), ensure_ascii=False), messages
    )
    measure_text("dumps", dumps, messages)


if __name__ == "__main__":
    main()
