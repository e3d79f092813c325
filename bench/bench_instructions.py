"""Instructions per move inside a room, counted by valgrind's callgrind: the same figure on
every run of the same code, however busy the machine.

    .venv/bin/python bench/bench_instructions.py [--games gin_rummy,rummikub] [--moves 1000]
    .venv/bin/python bench/bench_instructions.py --root <another checkout>   # its app/, the same

Runs bench/bench_room_moves.py (the room alone: apply, log, patch, encode; no sockets) under
`valgrind --tool=callgrind`, counting only inside its moves (`room.act`, which it runs within
sys.call_tracing for this: `--toggle-collect`), not the choice of the next move or the deals
between hands. Twice per game, with a few moves and with `--moves` more, and prints the
difference per move, so what happens once (a first move's caches) drops out. Hash seeds are
fixed and numpy's BLAS runs one thread (its idle threads spin for a varying number of
instructions); then two runs of the same code differ by a few instructions a move. An
instruction is not a unit of time (a cache miss costs more than an addition), so this measures a
change to the code, not to the machine: use it to compare two versions of the code, and
bench/bench_server.py or the peers' runner for what a move costs in time. valgrind runs a
program about fifty times slower: each game takes about a minute.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Moves of the short run, whose count is taken off the long one's.
BASE_MOVES = 200
TOTAL = re.compile(r"Collected : (\d+)")


def instructions(root: Path, game: str, moves: int) -> int:
    """Instructions of `moves` moves of `game` in the room bench of checkout `root`."""
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",
        "MELDHALL_ROOT": str(root.resolve()),
    }
    with tempfile.TemporaryDirectory(prefix="meldhall-callgrind-") as folder:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={folder}/callgrind.out",
            "--toggle-collect=sys_call_tracing",
            sys.executable,
            str(ROOT / "bench" / "bench_room_moves.py"),
            "--games",
            game,
            "--repeats",
            "1",
            "--moves",
            str(moves),
        ]
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800, check=False
        )
    found = TOTAL.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run failed ({done.returncode}):\n{done.stderr[-2000:]}")
    if int(found.group(1)) == 0:
        raise SystemExit("no instructions counted inside the moves")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="gin_rummy,rummikub")
    parser.add_argument("--moves", type=int, default=1000, help="moves counted, past the first")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install -y valgrind)")
    if args.moves < 1:
        raise SystemExit("--moves must be at least 1")
    for game in args.games.split(","):
        short = instructions(args.root, game, BASE_MOVES)
        long = instructions(args.root, game, BASE_MOVES + args.moves)
        print(
            f"{game:10} instructions per move: {(long - short) / args.moves:9.0f} "
            f"({args.moves} moves past the first {BASE_MOVES}; {args.root.name})",
            flush=True,
        )


if __name__ == "__main__":
    main()
