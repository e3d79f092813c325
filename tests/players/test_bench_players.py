"""bench/bench_players.py runs at a tiny scale on SQLite: it generates, rebuilds, reads (through
the routes and over HTTP) and ends matches, and its counts come out right. Its times are
printed, never checked."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_players_bench_runs_at_a_tiny_scale() -> None:
    command = [sys.executable, str(ROOT / "bench" / "bench_players.py"), "--store", "sqlite"]
    command += ["--players", "200", "--matches", "2000", "--reads", "5", "--http-reads", "2"]
    command += ["--ends", "3"]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    generated = re.search(r"generated: 200 players \(\d+ with rated matches\), 2000 matches", out)
    assert generated, out
    rebuild = r"rebuild: `meldhall ratings rebuild` [\d.]+ s wall, [\d.]+ s CPU of the command \("
    assert re.search(rebuild + "ratings rebuilt: ", out), out
    counts = re.search(r"counts: matches 2000 \(expected 2000\), .*: (\w+)", out)
    assert counts, out
    assert counts.group(1) == "right", out
    rebuilt = re.search(r"ratings rebuilt: (\d+) matches, (\d+) ratings", out)
    events = re.search(r"rated matches (\d+) \(expected \d+\), .* ratings (\d+) \(", out)
    assert rebuilt, out
    assert events, out
    assert rebuilt.group(1) == events.group(1)
    assert rebuilt.group(2) == events.group(2)
    direct, http = out.split("the same reads over HTTP")
    for kind in ("board, first page", "board, deep offset", "circle, by activity"):
        row = r" +n=5 +p50 +[\d.]+ ms +p95 +[\d.]+ ms"
        assert re.search(re.escape(kind) + row, direct), (kind, out)
        assert re.search(re.escape(kind) + row.replace("5", "2", 1), http), (kind, out)
    assert re.search(r"profile, by activity +n=5 ", direct)
    assert re.search(r"profile, by activity +n=2 ", http)
    assert "all reads" in out
    ends = re.search(r"rating events (\d+), expected (\d+): right", out)
    assert ends, out
    assert ends.group(1) == ends.group(2) == str(3 * 3 + 3 * 2), out
    for kind in ("rummikub, 2 persons + bot", "gin_rummy, 2 persons"):
        assert re.search(re.escape(kind) + r" +unrated p50 .* rated p50 .* difference p50", out)
