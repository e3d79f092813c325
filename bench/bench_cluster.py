"""A cluster's costs and its failover, on real nodes over PostgreSQL and a Redis of its own.

    .venv/bin/python bench/bench_cluster.py                       # every part
    .venv/bin/python bench/bench_cluster.py failover overhead     # some parts
    .venv/bin/python bench/bench_cluster.py --lease 2 failover    # a shorter lease

Parts (each starts its own nodes, `meldhall serve` subprocesses on 127.0.0.1, on a fresh
database of the PostgreSQL named by --postgres, and a redis-server on a free port):
- failover: ROOMS two-person Gin Rummy rooms owned by one node of three; that node is killed
  -9, and for every room a prober on another node tries a move until one is accepted. Printed:
  the time from the kill to each room accepting moves again (median, p90, max), then the same
  for a graceful stop (SIGTERM) of the node that took most of them over.
- overhead: the load of bench/bench_server.py (two-seat rooms, every seat a client at a pace,
  then flat out) on a server alone on PostgreSQL, then on one node of a two-node cluster
  holding all the rooms with every socket on it. Printed: each one's server CPU per move, the
  cluster's overhead (target: at most 15%), and Redis's CPU per move.
- relay: rooms owned by one node, their sockets on that node, then on another node (every
  move relayed both ways through Redis). Printed: the move round trip (send to own ack) p50 and
  p99 of each, and the difference at the median (target: at most 1 ms).
- scale: flat out on one node, then on two nodes with half the rooms each (sockets on their
  owner), then on two nodes with every socket on the node that does not own its room. Printed:
  moves per CPU-second of the nodes (moves over the nodes' CPU time, which other processes on
  a shared machine disturb far less than wall-clock rates), and two nodes against one (target:
  within 15% of twice one node's rate, i.e. at least 0.85 of one node's moves per CPU-second).
Every phase is bounded in time, every process is stopped by its PID, and the figures are
printed with the machine's load average, which says how far the figures are the machine's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_server import percentile, run_clients  # noqa: E402
from bench.load_clients import GinTable, Pacing, Stats  # noqa: E402
from tests.cluster.cluster import RedisServer  # noqa: E402
from tests.processes import ServerProcess, free_port, server_env  # noqa: E402
from tests.storage.databases import drop_postgres_database, fresh_postgres_database  # noqa: E402

BENCH_SETTINGS = {
    "MELDHALL_BOT_DELAY_MS": "0",
    "MELDHALL_BETWEEN_HANDS_S": "0",
    "MELDHALL_WS_MESSAGES_PER_SECOND": "1000",
    "MELDHALL_WS_BURST": "1000",
    "MELDHALL_LOG_LEVEL": "warning",
    "MELDHALL_SOLVER_WARM_UP": "false",
}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def port_of(node: ServerProcess) -> int:
    return int(node.env["MELDHALL_PORT"])


def pid_of(node: ServerProcess) -> int:
    assert node.process is not None
    return node.process.pid


@dataclass
class Nodes:
    """Nodes on one database: a cluster with a Redis, or (`redis` None) a server alone."""

    folder: Path
    database_url: str
    redis: RedisServer | None
    lease_s: float
    nodes: list[ServerProcess]

    @classmethod
    def start(
        cls, folder: Path, database_url: str, count: int, *, cluster: bool, lease_s: float
    ) -> Nodes:
        redis = RedisServer(free_port()).start() if cluster else None
        nodes = []
        for index in range(count):
            settings = {**BENCH_SETTINGS, "DATABASE_URL": database_url}
            if redis is not None:
                settings |= {
                    "MELDHALL_REDIS_URL": redis.url,
                    "MELDHALL_NODE_ID": f"n{index}",
                    "MELDHALL_LEASE_S": str(lease_s),
                }
            node = ServerProcess(
                server_env(folder / f"n{index}", **settings), folder / f"n{index}.log"
            )
            nodes.append(node.start(wait=False))
        for node in nodes:
            node.wait_healthy()
        return cls(folder, database_url, redis, lease_s, nodes)

    def stop(self) -> None:
        for node in self.nodes:
            if node.running:
                node.stop(30)
        if self.redis is not None:
            self.redis.stop()

    def cpu(self) -> list[float]:
        return [cpu_seconds(pid_of(node)) for node in self.nodes]

    def redis_cpu(self) -> float:
        if self.redis is None or self.redis.process is None:
            return 0.0
        return cpu_seconds(self.redis.process.pid)


class SpreadTable(GinTable):
    """A bench table whose room is made on one node and whose seats' sockets are on others."""

    def __init__(self, owner: int, seat_ports: tuple[int, int], *args: Any) -> None:
        super().__init__(owner, *args)
        self.seat_ports = seat_ports

    def socket_port(self, seat: int) -> int:
        return self.seat_ports[seat]


@dataclass
class Load:
    moves: int
    seconds: float
    cpu: list[float]
    redis_cpu: float
    own: list[float]
    load: float

    @property
    def cpu_per_move_us(self) -> float:
        return sum(self.cpu) / max(1, self.moves) * 1e6

    @property
    def moves_per_cpu_second(self) -> float:
        return self.moves / max(1e-9, sum(self.cpu))


async def load(
    nodes: Nodes,
    placements: list[tuple[int, tuple[int, int]]],
    pace: float,
    seconds: float,
) -> Load:
    """Tables placed as (owner node, (seat 0's node, seat 1's node)), played for `seconds`."""
    stats = Stats()
    pacing = Pacing(pace, 0.5)
    tables: list[SpreadTable] = []
    clients = {}
    try:
        for owner, seats in placements:
            if owner not in clients:
                clients[owner] = httpx.AsyncClient(base_url=nodes.nodes[owner].url, timeout=30)
            ports = (port_of(nodes.nodes[seats[0]]), port_of(nodes.nodes[seats[1]]))
            tables.append(
                SpreadTable(port_of(nodes.nodes[owner]), ports, clients[owner], stats, pacing)
            )
        for start in range(0, len(tables), 50):
            await asyncio.gather(*(table.open() for table in tables[start : start + 50]))
        for table in tables:
            table.begin()
        await asyncio.sleep(min(3.0, seconds / 4))
        stats.measuring = True
        cpu0, redis0, moves0, t0 = nodes.cpu(), nodes.redis_cpu(), stats.moves, time.perf_counter()
        await asyncio.sleep(seconds)
        cpu1, redis1, moves1, t1 = nodes.cpu(), nodes.redis_cpu(), stats.moves, time.perf_counter()
        stats.measuring = False
    finally:
        await asyncio.gather(*(table.close() for table in tables), return_exceptions=True)
        for client in clients.values():
            await client.aclose()
    return Load(
        moves=moves1 - moves0,
        seconds=t1 - t0,
        cpu=[b - a for a, b in zip(cpu0, cpu1, strict=True)],
        redis_cpu=redis1 - redis0,
        own=stats.own,
        load=os.getloadavg()[0],
    )


def describe(name: str, result: Load) -> str:
    return (
        f"  {name:38} {result.moves / result.seconds:6.0f} moves/s | nodes' CPU "
        f"{result.cpu_per_move_us:5.0f} us/move = {result.moves_per_cpu_second:5.0f} moves per "
        f"CPU-second | redis {result.redis_cpu / max(1, result.moves) * 1e6:4.0f} us/move | "
        f"own p50 {percentile(result.own, 0.5) * 1e3:5.2f} ms p99 "
        f"{percentile(result.own, 0.99) * 1e3:6.2f} ms | load {result.load:.1f}"
    )


async def with_nodes(options: argparse.Namespace, count: int, cluster: bool, work: Any) -> Any:
    folder = Path(tempfile.mkdtemp(prefix="meldhall-cluster-bench-"))
    url = options.postgres or await fresh_postgres_database()
    nodes = await asyncio.to_thread(
        Nodes.start, folder, url, count, cluster=cluster, lease_s=options.lease
    )
    try:
        return await work(nodes)
    finally:
        await asyncio.to_thread(nodes.stop)
        if options.postgres is None:
            await drop_postgres_database(url)


async def overhead(options: argparse.Namespace) -> None:
    print("overhead: the same load on a server alone and on a cluster node holding every room")
    results = {}
    for name, count, cluster in (("alone", 1, False), ("cluster", 2, True)):
        for phase, rooms, pace, seconds in (
            ("paced", options.rooms, options.pace, options.seconds),
            ("flat", options.flat_rooms, 0.0, options.flat_seconds),
        ):

            async def run(nodes: Nodes, rooms: int = rooms, pace: float = pace,
                          seconds: float = seconds) -> Load:  # fmt: skip
                return await load(nodes, [(0, (0, 0))] * rooms, pace, seconds)

            results[name, phase] = await with_nodes(options, count, cluster, run)
            print(describe(f"{name}, {phase}", results[name, phase]), flush=True)
    for phase in ("paced", "flat"):
        alone = results["alone", phase].cpu_per_move_us
        # Only the node holding the rooms: the idle node's renewals are its own cost.
        node = results["cluster", phase]
        holder = node.cpu[0] / max(1, node.moves) * 1e6
        print(
            f"  {phase}: cluster node {holder:.0f} us/move against {alone:.0f} alone = "
            f"{holder / alone - 1:+.1%} (target <= +15%); the idle node "
            f"{node.cpu[1] / node.seconds * 100:.1f}% of a core"
        )


async def relay(options: argparse.Namespace) -> None:
    print(
        f"relay: sockets on the room's owner against sockets on another node, alternated "
        f"{options.repeat} times"
    )

    async def run(nodes: Nodes) -> list[tuple[float, float]]:
        pairs = []
        for _ in range(options.repeat):
            results = {}
            for name, seats in (("on the owner", (0, 0)), ("on another node", (1, 1))):
                results[name] = await load(
                    nodes, [(0, seats)] * options.relay_rooms, options.pace, options.seconds
                )
                print(describe(name, results[name]), flush=True)
            local = percentile(results["on the owner"].own, 0.5)
            relayed = percentile(results["on another node"].own, 0.5)
            pairs.append((local, relayed))
        return pairs

    pairs = await with_nodes(options, 2, True, run)
    local = statistics.median(p[0] for p in pairs)
    relayed = statistics.median(p[1] for p in pairs)
    differences = sorted((r - o) * 1e3 for o, r in pairs)
    print(
        f"  round trip p50, the median of {len(pairs)} alternated runs: {relayed * 1e3:.2f} ms "
        f"relayed against {local * 1e3:.2f} ms on the owner = {(relayed - local) * 1e3:+.2f} ms "
        f"(target <= +1 ms); per pair: {', '.join(f'{d:+.2f}' for d in differences)} ms"
    )


async def scale(options: argparse.Namespace) -> None:
    print("scale: moves per CPU-second, flat out, on one node and on two")
    rooms = options.flat_rooms

    async def one(nodes: Nodes) -> Load:
        return await load(nodes, [(0, (0, 0))] * rooms, 0.0, options.flat_seconds)

    single = await with_nodes(options, 1, True, one)
    print(describe("one node", single), flush=True)

    async def two(nodes: Nodes) -> dict[str, Load]:
        results = {}
        owned = [(i % 2, (i % 2, i % 2)) for i in range(rooms)]
        crossed = [(i % 2, (1 - i % 2, 1 - i % 2)) for i in range(rooms)]
        for name, placement in (("two nodes, sockets on owners", owned),
                                ("two nodes, every socket relayed", crossed)):  # fmt: skip
            results[name] = await load(nodes, placement, 0.0, options.flat_seconds)
            print(describe(name, results[name]), flush=True)
        return results

    doubled = await with_nodes(options, 2, True, two)
    for name, result in doubled.items():
        share = result.moves_per_cpu_second / single.moves_per_cpu_second
        print(
            f"  {name}: {2 * result.moves_per_cpu_second:.0f} against twice one node's "
            f"{2 * single.moves_per_cpu_second:.0f} moves per CPU-second of a node each = "
            f"{share:.2f} (target >= 0.85)"
        )


async def failover(options: argparse.Namespace) -> None:
    print(f"failover: {options.failover_rooms} rooms, lease {options.lease:g} s, three nodes")

    async def run(nodes: Nodes) -> None:
        owner, prober = nodes.nodes[0], nodes.nodes[1]
        rooms = []
        async with httpx.AsyncClient(base_url=owner.url, timeout=30) as http:
            for _ in range(options.failover_rooms):
                room_id = (await http.post("/api/rooms", json={"game": "gin_rummy"})).json()[
                    "room_id"
                ]
                tokens = []
                for name in ("ann", "bob"):
                    joined = await http.post(f"/api/rooms/{room_id}/join", json={"name": name})
                    tokens.append(joined.json()["token"])
                for token in tokens:
                    await http.post(
                        f"/api/rooms/{room_id}/ready", headers={"Authorization": f"Bearer {token}"}
                    )
                rooms.append((room_id, tokens))
        owner.kill()
        killed = time.monotonic()
        times = await probe_all(prober.url, rooms, killed, options.lease * 6 + 30)
        report("kill -9", times)
        # Then a graceful stop of the node holding most of them: handed over, not waited out.
        held = await owners(nodes, [room_id for room_id, _ in rooms])
        busiest = max(set(held), key=held.count)
        stopping = nodes.nodes[int(busiest[1:])]
        survivor = next(n for n in nodes.nodes if n.running and n is not stopping)
        mine = [room for room, owner_id in zip(rooms, held, strict=True) if owner_id == busiest]
        stopped = time.monotonic()
        await asyncio.to_thread(stopping.stop)
        times = await probe_all(survivor.url, mine, stopped, options.lease * 6 + 30)
        report(f"SIGTERM ({len(mine)} rooms)", times)

    await with_nodes(options, 3, True, run)


async def owners(nodes: Nodes, room_ids: list[str]) -> list[str]:
    import redis.asyncio as aioredis

    assert nodes.redis is not None
    client = aioredis.Redis.from_url(nodes.redis.url)
    try:
        held = await client.mget([f"meldhall:lease:{room_id}" for room_id in room_ids])
    finally:
        await client.aclose()
    return [bytes(h).decode() if h else "" for h in held]


async def probe_all(
    url: str, rooms: list[tuple[str, list[str]]], since: float, bound_s: float
) -> list[float]:
    async with httpx.AsyncClient(base_url=url, timeout=bound_s) as http:
        return list(await asyncio.gather(*(probe(http, room, since, bound_s) for room in rooms)))


async def probe(
    http: httpx.AsyncClient, room: tuple[str, list[str]], since: float, bound_s: float
) -> float:
    """Seconds from `since` until a move in the room is accepted (nan past `bound_s`)."""
    room_id, tokens = room
    while time.monotonic() - since < bound_s:
        for token in tokens:
            auth = {"Authorization": f"Bearer {token}"}
            try:
                legal = await http.get(f"/api/rooms/{room_id}/legal", headers=auth)
                if legal.status_code != 200 or not legal.json()["actions"]:
                    continue
                body = {"action": legal.json()["actions"][0], "version": legal.json()["version"]}
                moved = await http.post(f"/api/rooms/{room_id}/actions", json=body, headers=auth)
            except httpx.TransportError:
                continue
            if moved.status_code == 200:
                return time.monotonic() - since
        await asyncio.sleep(0.05)
    return float("nan")


def report(what: str, times: list[float]) -> None:
    done = sorted(t for t in times if t == t)
    missing = len(times) - len(done)
    if not done:
        print(f"  {what}: no room accepted a move again")
        return
    print(
        f"  {what}: rooms accepting moves again after median {statistics.median(done):.2f} s, "
        f"p90 {percentile(done, 0.9):.2f} s, max {done[-1]:.2f} s over {len(done)} rooms"
        + (f"; {missing} never did" if missing else "")
        + f" | load {os.getloadavg()[0]:.1f}"
    )


PARTS = {"failover": failover, "overhead": overhead, "relay": relay, "scale": scale}


async def bench(options: argparse.Namespace) -> None:
    for part in options.parts or list(PARTS):
        await PARTS[part](options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help=f"some of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--postgres", help="a database URL to use (default: a fresh one)")
    parser.add_argument("--lease", type=float, default=5.0, help="MELDHALL_LEASE_S of the nodes")
    parser.add_argument("--rooms", type=int, default=200, help="paced rooms (overhead)")
    parser.add_argument("--relay-rooms", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="alternated relay runs")
    parser.add_argument("--failover-rooms", type=int, default=30)
    parser.add_argument("--pace", type=float, default=0.2)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--flat-rooms", type=int, default=40)
    parser.add_argument("--flat-seconds", type=float, default=10.0)
    options = parser.parse_args()
    unknown = set(options.parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    run_clients(bench(options))


if __name__ == "__main__":
    main()
