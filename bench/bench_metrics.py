"""What metrics cost: server CPU per move with /metrics off and on, in one run.

    .venv/bin/python bench/bench_metrics.py                  # 3 rounds each, the peers' pace
    .venv/bin/python bench/bench_metrics.py --rounds 5 --store sqlite

The load is bench/bench_server.py's human-pace phase (ROOMS two-player Gin Rummy rooms, both
seats played by clients that wait PACE seconds, +-JITTER, before each action), which the peers'
bench (boardgame.io, Colyseus) runs as its paced phase. Each round starts a fresh server, once
with MELDHALL_METRICS_TOKEN unset (off: no instrument counts anything) and once with it set
(on: every counter and histogram moves, and this script scrapes /metrics every SCRAPE_EVERY
seconds as Prometheus would). Rounds alternate off, on, off, on ... so that the machine's other
load falls on both alike. As in the peers' bench, the server runs on one core (--server-cpu)
and the clients on another (--client-cpu). Printed: each round's server CPU per move, then the
medians of both and their ratio (the target is at most 1.03), and, as a figure the machine's
other load does not blur, what the instruments a move touches cost in this process (a socket
action's count and time, its commit's time) next to the median CPU per move with metrics off.

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_server import (  # noqa: E402
    Phase,
    Server,
    free_port,
    launch,
    run_clients,
    run_phase,
    serve_meldhall,
    store_url,
)

TOKEN = "bench-metrics-token"
KINDS = ("off", "on")


def start(kind: str, store: str, server_cpu: str | None) -> Server:
    port = free_port()
    command = [sys.executable, __file__, "--serve", kind, "--port", str(port), "--store", store]
    if server_cpu is not None:
        command = ["taskset", "-c", server_cpu, *command]
    return launch(command, port, f"metrics {kind}")


async def scrape_every(server: Server, seconds: float) -> None:
    """Scrape /metrics every `seconds`, as Prometheus would, until cancelled."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(base_url=server.http, headers=headers, timeout=10) as http:
        while True:
            await asyncio.sleep(seconds)
            answer = await http.get("/metrics")
            answer.raise_for_status()


async def one_round(kind: str, store: str, options: argparse.Namespace) -> Phase:
    """One round on a fresh server; tried once more if the load could not be set up (on a
    crowded shared machine a connection is now and then cut while 1,000 sockets open)."""
    for attempt in (1, 2, 3):
        try:
            return await measured_round(kind, store, options)
        except (httpx.TransportError, ConnectionError) as error:
            if attempt == 3:
                raise
            print(f"  round of metrics {kind} failed to set up ({error!r}); once more", flush=True)
    raise AssertionError("unreachable")


async def measured_round(kind: str, store: str, options: argparse.Namespace) -> Phase:
    server = start(kind, store, options.server_cpu)

    async def scrape() -> None:
        await scrape_every(server, options.scrape_every)

    try:
        return await run_phase(
            server,
            "meldhall",
            options.rooms,
            options.pace,
            options.seconds,
            options,
            during=scrape if kind == "on" else None,
        )
    finally:
        server.stop()


def instruments_per_move_us(moves: int = 200_000) -> float:
    """The instruments one socket action passes, on an app's meters with metrics on."""
    from prometheus_client import CollectorRegistry

    from app.metrics.meters import Meters

    meters = Meters(CollectorRegistry(), "bench")
    accepted, action, commit = meters.actions_accepted, meters.action_seconds, meters.commit_seconds
    clock = time.perf_counter
    started = clock()
    for _ in range(moves):
        began = clock()
        committing = clock()
        commit.observe(clock() - committing)
        accepted.inc()
        action.observe(clock() - began)
    return (clock() - started) / moves * 1e6


async def bench(options: argparse.Namespace) -> None:
    folder = tempfile.mkdtemp(prefix="meldhall-bench-metrics-")
    store = store_url(options.store, folder)
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for round_number in range(1, options.rounds + 1):
        for kind in KINDS:
            phase = await one_round(kind, store, options)
            cpu[kind].append(phase.cpu_per_move_us)
            print(
                f"  round {round_number} metrics {kind:3}: {phase.cpu_per_move_us:6.1f} us/move "
                f"server CPU ({phase.moves_per_s:5.0f} moves/s, server at "
                f"{phase.cpu_share * 100:3.0f}% of its core, load {phase.load:4.1f})",
                flush=True,
            )
    off, on = statistics.median(cpu["off"]), statistics.median(cpu["on"])
    print(
        f"{started}: store {options.store}, {options.rooms} rooms at {options.pace * 1e3:.0f} ms "
        f"pace (+-{options.jitter * 100:.0f}%), {options.seconds:.0f} s per round, "
        f"{options.rounds} rounds each, /metrics scraped every {options.scrape_every:.0f} s"
    )
    print(f"  server CPU per move, median: off {off:.1f} us, on {on:.1f} us")
    print(f"  on / off = {on / off:.3f} (target <= 1.03)")
    spent = instruments_per_move_us()
    print(
        f"  instruments one move passes: {spent:.2f} us = {spent / off * 100:.1f}% of the "
        "median CPU per move with metrics off"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--store", default="memory", help="memory, sqlite or a database URL")
    parser.add_argument("--rooms", type=int, default=500)
    parser.add_argument("--pace", type=float, default=0.2, help="seconds before each action")
    parser.add_argument("--jitter", type=float, default=0.5)
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each, off and on")
    parser.add_argument("--scrape-every", type=float, default=5.0)
    parser.add_argument("--server-cpu", default="0", help="the server's core (taskset -c)")
    parser.add_argument("--client-cpu", type=int, default=1, help="the clients' core")
    options = parser.parse_args()
    if options.serve is not None:
        token = TOKEN if options.serve == "on" else ""
        serve_meldhall(options.port, options.store, False, None, metrics_token=token)
        return
    if options.client_cpu >= 0:
        os.sched_setaffinity(0, {options.client_cpu})
    if options.server_cpu == "":
        options.server_cpu = None
    run_clients(bench(options))


if __name__ == "__main__":
    main()
