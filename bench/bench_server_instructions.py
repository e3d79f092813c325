"""Instructions per move of a whole server, sockets included, counted by valgrind's callgrind.

    .venv/bin/python bench/bench_server_instructions.py [--rooms 4] [--seconds 30]
    .venv/bin/python bench/bench_server_instructions.py --root <another checkout>
    .venv/bin/python bench/bench_server_instructions.py --servers bare   # the framework alone
    .venv/bin/python bench/bench_server_instructions.py --keep profiles  # keep callgrind's files

`--keep` leaves each server's callgrind file in that folder (`callgrind.<server>.out`), to read
where the instructions went: `callgrind_annotate --inclusive=yes <file>`.

bench/bench_instructions.py counts a room's own work; this counts what the server process does
for a move end to end: the frame read, the message's parsing, the room, the fan-out and the
frame writes, the event loop between them. Each server runs as bench/bench_server.py serves it
(`--serve meldhall`, the in-memory store; `--serve bare`, the bare FastAPI broadcast server on
the same uvicorn settings) under `valgrind --tool=callgrind --instr-atstart=no`, with hash
seeds fixed and numpy's BLAS on one thread. The bench's own clients (bench/load_clients.py:
two-seat Gin Rummy tables, two-socket groups on the bare server) play `--rooms` rooms flat
out; after a warm-up, counting is switched on with `callgrind_control -i on` for `--seconds`,
and the count is divided by the moves the clients saw completed meanwhile (a few moves in
flight at either end are the error: well under 1% at the defaults). User space only: the
kernel's socket work is not counted, so this measures a change to the code, and
bench/bench_server.py or the peers' runner what a move costs in time. Under valgrind a server
runs about fifty times slower; each server takes about a minute at the defaults.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_server import free_port  # noqa: E402
from bench.load_clients import BareGroup, GinTable, Pacing, Stats  # noqa: E402

TOTALS = re.compile(r"^totals:\s*(\d+)", re.MULTILINE)
# Under valgrind the server imports its modules fifty times slower than it would.
START_S = 300.0


def start_server(kind: str, root: Path, port: int, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
        sys.executable,
        # The measured checkout's own server script, which imports that checkout's app/.
        str(root / "bench" / "bench_server.py"),
        "--serve",
        kind,
        "--port",
        str(port),
        "--store",
        "memory://",
    ]
    # valgrind's and the server's messages, shown if the server does not come up.
    log = out.with_suffix(".log")
    with log.open("wb") as errors:
        process = subprocess.Popen(command, cwd=root, env=env, stderr=errors)
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise SystemExit(
                f"the {kind} server stopped while starting ({process.returncode}):\n{tail}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit(f"the {kind} server did not start within {START_S:.0f} s")


def instrument(process: subprocess.Popen[bytes], on: bool) -> None:
    switch = "on" if on else "off"
    subprocess.run(
        ["callgrind_control", "-i", switch, str(process.pid)],
        check=True,
        capture_output=True,
        timeout=60,
    )


async def play(
    kind: str, port: int, process: subprocess.Popen[bytes], rooms: int, warm: float, seconds: float
) -> int:
    """Moves completed while counting was on."""
    stats = Stats()
    pacing = Pacing(0.0)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
        tables: list[GinTable | BareGroup] = [
            GinTable(port, http, stats, pacing)
            if kind == "meldhall"
            else BareGroup(port, stats, pacing, f"g{index}")
            for index in range(rooms)
        ]
        for table in tables:
            await table.open()
        for table in tables:
            table.begin()
        await asyncio.sleep(warm)
        await asyncio.to_thread(instrument, process, True)
        before = stats.moves
        await asyncio.sleep(seconds)
        after = stats.moves
        await asyncio.to_thread(instrument, process, False)
        await asyncio.gather(*(table.close() for table in tables), return_exceptions=True)
    return after - before


def measure(
    kind: str, root: Path, rooms: int, warm: float, seconds: float, keep: Path | None
) -> tuple[int, int]:
    """(instructions counted, moves completed meanwhile) for one server."""
    with tempfile.TemporaryDirectory(prefix="meldhall-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        port = free_port()
        process = start_server(kind, root, port, out)
        try:
            moves = asyncio.run(play(kind, port, process, rooms, warm, seconds))
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        counts = [int(found) for found in TOTALS.findall(out.read_text())] if out.exists() else []
        if keep is not None and out.exists():
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out, keep / f"callgrind.{kind}.out")
    if not counts or not counts[0]:
        raise SystemExit(f"no instructions counted in the {kind} server")
    if moves < 1:
        raise SystemExit(f"no moves completed on the {kind} server while counting")
    return counts[0], moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", default="meldhall,bare", help="meldhall, bare or both")
    parser.add_argument("--rooms", type=int, default=4, help="rooms played flat out")
    parser.add_argument("--warm", type=float, default=10.0, help="seconds before counting")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds counted")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--keep", type=Path, help="a folder to keep callgrind's files in")
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (Debian: apt-get install -y valgrind)")
    kinds = args.servers.split(",")
    if not kinds or any(kind not in ("meldhall", "bare") for kind in kinds):
        raise SystemExit("--servers takes meldhall, bare or both, comma-separated")
    if args.rooms < 1 or args.seconds <= 0 or args.warm < 0:
        raise SystemExit("--rooms must be at least 1, --seconds above 0, --warm at least 0")
    per_move: dict[str, float] = {}
    for kind in kinds:
        counted, moves = measure(kind, args.root, args.rooms, args.warm, args.seconds, args.keep)
        per_move[kind] = counted / moves
        print(
            f"{kind:8} instructions per move: {per_move[kind]:9.0f} ({moves} moves of "
            f"{args.rooms} rooms flat out; {args.root.resolve().name})",
            flush=True,
        )
    if len(per_move) == 2:
        print(f"meldhall / bare: {per_move['meldhall'] / per_move['bare']:.2f}x")


if __name__ == "__main__":
    main()
