"""Load on the real server over real WebSockets, next to a bare FastAPI broadcast server.

    .venv/bin/python bench/bench_server.py                        # memory log, defaults
    .venv/bin/python bench/bench_server.py --store sqlite          # durable log in a temp file
    .venv/bin/python bench/bench_server.py --store postgresql+asyncpg://postgres@127.0.0.1/test
    .venv/bin/python bench/bench_server.py --compression           # permessage-deflate on
    .venv/bin/python bench/bench_server.py --ws websockets          # another WebSocket stack

Phases (each server is a subprocess on 127.0.0.1 with the same uvicorn settings; the clients
live in this process, on uvloop, with the light callback sockets of bench/light_socket.py):
1. human pace: ROOMS two-player Gin Rummy rooms, both seats played by clients that wait PACE
   seconds before each action; the bare server gets as many two-socket groups, each socket
   sending once per PACE in turn, and broadcasts a ~300-byte message to its group.
2. flat out: FLAT_ROOMS rooms (groups) acting as soon as they may.
Printed: move round trip p50/p99 (until the actor has its own patch, and until every seat has
it), moves (broadcasts) per second flat out, server CPU per move, server memory per room, and
the ratios to the bare server, also as moves per second of server CPU, which other processes on
a shared machine disturb far less than wall-clock rates, and the machine's one-minute load
average at the end of each phase (above the core count, every figure but CPU per move is the
machine's, not the server's). Every phase is bounded in time; the script stops by itself.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load_clients import BareGroup, GinTable, Pacing, Stats  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bench_settings(port: int, compression: bool) -> Any:
    from app.settings import Settings

    return Settings(
        host="127.0.0.1",
        port=port,
        bot_delay_ms=0,
        between_hands_s=0,
        ws_messages_per_second=1000.0,
        ws_burst=1000,
        log_level="warning",
        ws_compression=compression,
        # The load is Gin Rummy only; on a fresh machine the solver's first compile (a child
        # process, about 35 s of a core) would otherwise run during the first phase.
        solver_warm_up=False,
    )


def ws_overrides(ws: str | None) -> dict[str, Any]:
    return {} if ws is None else {"ws": ws}


def serve_meldhall(
    port: int, store: str, compression: bool, ws: str | None, **overrides: Any
) -> None:
    """The server as the bench runs it; `overrides` replace some of bench_settings' values."""
    import uvicorn

    from app.cli import uvicorn_config
    from app.main import create_app

    settings = bench_settings(port, compression).model_copy(update=overrides)
    app = create_app(settings, store_url=store)
    config = uvicorn_config(settings, app, backlog=4096, **ws_overrides(ws))
    uvicorn.Server(config).run()


def serve_bare(port: int, compression: bool, ws: str | None) -> None:
    import uvicorn

    from app.cli import uvicorn_config
    from app.main import tune_garbage_collector

    app = FastAPI()
    groups: dict[str, set[WebSocket]] = {}
    padding = "x" * 230

    @app.websocket("/ws/{group}")
    async def broadcast(websocket: WebSocket, group: str) -> None:
        await websocket.accept()
        members = groups.setdefault(group, set())
        members.add(websocket)
        try:
            while True:
                text = await websocket.receive_text()
                message = f'{{"type":"patch","seq":{text},"patch":[{{"value":"{padding}"}}]}}'
                for peer in list(members):
                    await peer.send_text(message)
        except WebSocketDisconnect:
            members.discard(websocket)

    # The same uvicorn settings as meldhall's (WebSocket implementation, frame cap, pings,
    # compression, backlog) and the same garbage collector settings, so the ratios compare the
    # servers and not their configuration.
    tune_garbage_collector()
    settings = bench_settings(port, compression)
    config = uvicorn_config(settings, app, backlog=4096, lifespan="off", **ws_overrides(ws))
    uvicorn.Server(config).run()


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start(kind: str, store: str, compression: bool, ws: str | None = None) -> Server:
    port = free_port()
    command = [sys.executable, __file__, "--serve", kind, "--port", str(port), "--store", store]
    if compression:
        command.append("--compression")
    if ws is not None:
        command += ["--ws", ws]
    return launch(command, port, kind)


def launch(command: list[str], port: int, name: str) -> Server:
    """Run `command`, a server that will listen on `port`, and wait until it does."""
    process = subprocess.Popen(command, cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                time.sleep(0.3)
                return Server(process, port)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the {name} server did not start")


@dataclass
class Phase:
    own: list[float] = field(default_factory=list)
    everyone: list[float] = field(default_factory=list)
    moves_per_s: float = 0.0
    cpu_per_move_us: float = 0.0
    cpu_share: float = 0.0
    kb_per_room: float = 0.0
    client_share: float = 0.0
    load: float = 0.0


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def run_phase(
    server: Server,
    kind: str,
    rooms: int,
    pace: float,
    seconds: float,
    options: argparse.Namespace,
    during: Callable[[], Coroutine[Any, Any, None]] | None = None,
) -> Phase:
    """One phase on `server`; `during()`, if given, runs only while the phase is measured."""
    stats = Stats()
    # The same seed for both servers: the same sequence of waits.
    pacing = Pacing(pace, options.jitter)
    rss_before = server.rss_kb()
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=server.http, limits=limits, timeout=30) as http:
        tables: list[GinTable | BareGroup] = []
        for start_at in range(0, rooms, 50):
            # With compression on, the clients offer permessage-deflate so that it is used.
            deflate = bool(getattr(options, "compression", False))
            batch = [
                GinTable(server.port, http, stats, pacing, deflate)
                if kind == "meldhall"
                else BareGroup(server.port, stats, pacing, f"g{index}", deflate)
                for index in range(start_at, min(rooms, start_at + 50))
            ]
            await asyncio.gather(*(table.open() for table in batch))
            tables.extend(batch)
        for table in tables:
            table.begin()
        await asyncio.sleep(min(3.0, seconds / 4))
        rss_after = server.rss_kb()
        stats.measuring = True
        cpu0, moves0, t0 = server.cpu_seconds(), stats.moves, time.perf_counter()
        own0 = sum(os.times()[:2])
        beside = None if during is None else asyncio.get_running_loop().create_task(during())
        await asyncio.sleep(seconds)
        cpu1, moves1, t1 = server.cpu_seconds(), stats.moves, time.perf_counter()
        if beside is not None:
            beside.cancel()
            await asyncio.wait((beside,))
        own1 = sum(os.times()[:2])
        stats.measuring = False
        await asyncio.gather(*(table.close() for table in tables), return_exceptions=True)
    moves = max(1, moves1 - moves0)
    return Phase(
        own=stats.own,
        everyone=stats.everyone,
        moves_per_s=moves / (t1 - t0),
        cpu_per_move_us=(cpu1 - cpu0) / moves * 1e6,
        cpu_share=(cpu1 - cpu0) / (t1 - t0),
        kb_per_room=(rss_after - rss_before) / rooms,
        client_share=(own1 - own0) / (t1 - t0),
        load=os.getloadavg()[0],
    )


def line(name: str, phase: Phase) -> str:
    return (
        f"  {name:9} own p50 {percentile(phase.own, 0.5) * 1e3:6.2f} ms  p99 "
        f"{percentile(phase.own, 0.99) * 1e3:6.2f} ms | all seats p50 "
        f"{percentile(phase.everyone, 0.5) * 1e3:6.2f} ms  p99 "
        f"{percentile(phase.everyone, 0.99) * 1e3:6.2f} ms | {phase.moves_per_s:7.0f} moves/s "
        f"| server CPU {phase.cpu_share * 100:4.0f}% = {phase.cpu_per_move_us:5.0f} us/move "
        f"| {phase.kb_per_room:6.1f} KB/room | client CPU {phase.client_share * 100:3.0f}% "
        f"| load {phase.load:4.1f} ({len(phase.own)} samples)"
    )


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def store_url(store: str, folder: str) -> str:
    if store == "memory":
        return "memory://"
    if store == "sqlite":
        return f"sqlite+aiosqlite:///{folder}/bench.db"
    return store


async def bench(options: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="meldhall-bench-")
    store = store_url(options.store, folder)
    results: dict[tuple[str, str], Phase] = {}
    for kind in ("bare", "meldhall"):
        for phase, rooms, pace, seconds in (
            ("human", options.rooms, options.pace, options.seconds),
            ("flat", options.flat_rooms, 0.0, options.flat_seconds),
        ):
            server = start(kind, store, options.compression, options.ws)
            try:
                results[kind, phase] = await run_phase(server, kind, rooms, pace, seconds, options)
            finally:
                server.stop()
            print(line(f"{kind}/{phase}", results[kind, phase]), flush=True)
    human, bare_human = results["meldhall", "human"], results["bare", "human"]
    flat, bare_flat = results["meldhall", "flat"], results["bare", "flat"]
    compression = "on" if options.compression else "off"
    print(
        f"store {options.store}, compression {compression}, WebSocket stack "
        f"{options.ws or 'websockets-sansio'}, {options.rooms} rooms at "
        f"{options.pace * 1e3:.0f} ms pace (+-{options.jitter * 100:.0f}%), "
        f"{options.flat_rooms} flat out"
    )
    p50 = ratio(percentile(human.own, 0.5), percentile(bare_human.own, 0.5))
    p99 = ratio(percentile(human.own, 0.99), percentile(bare_human.own, 0.99))
    all50 = ratio(percentile(human.everyone, 0.5), percentile(bare_human.everyone, 0.5))
    all99 = ratio(percentile(human.everyone, 0.99), percentile(bare_human.everyone, 0.99))
    print(f"  human pace vs bare: own p50 {p50} (target <= 1.5x), own p99 {p99} (target <= 2x);")
    print(f"                      all seats p50 {all50}, all seats p99 {all99}")
    flat_ratio = ratio(flat.moves_per_s, bare_flat.moves_per_s)
    print(f"  flat out: {flat_ratio} of the bare server's broadcasts per second (target >= 0.33x)")
    # Other processes on a shared machine take CPU from both servers unevenly between phases;
    # moves per second of the server's own CPU time compares them without that noise.
    per_cpu = ratio(bare_flat.cpu_per_move_us, flat.cpu_per_move_us)
    print(
        f"  per CPU second flat out: {1e6 / flat.cpu_per_move_us:.0f} moves against "
        f"{1e6 / bare_flat.cpu_per_move_us:.0f} bare broadcasts = {per_cpu}"
    )
    print(
        f"  memory: {human.kb_per_room:.1f} KB per active room, sockets included "
        f"(target <= 100 KB; bare {bare_human.kb_per_room:.1f} KB per group)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=["meldhall", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--store", default="memory", help="memory, sqlite or a database URL")
    parser.add_argument("--compression", action="store_true", help="permessage-deflate on")
    parser.add_argument(
        "--ws", choices=["websockets-sansio", "websockets"], help="uvicorn's WebSocket stack"
    )
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--pace", type=float, default=0.2, help="seconds before each action")
    parser.add_argument(
        "--jitter",
        type=float,
        default=0.5,
        help="each wait is drawn evenly from pace*(1-J)..pace*(1+J); 0: every wait is the pace",
    )
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--flat-rooms", type=int, default=40)
    parser.add_argument("--flat-seconds", type=float, default=10.0)
    options = parser.parse_args()
    if options.serve == "meldhall":
        serve_meldhall(options.port, options.store, options.compression, options.ws)
    elif options.serve == "bare":
        serve_bare(options.port, options.compression, options.ws)
    else:
        run_clients(bench(options))


def run_clients(main: Coroutine[Any, Any, None]) -> None:
    # The clients share the machine with the servers: uvloop keeps their share small.
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


if __name__ == "__main__":
    main()
