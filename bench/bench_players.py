"""Players and ratings at scale, on a SQLite file and on PostgreSQL.

1. A match end with its rating updates against the same match end without a rating: pairs of
   matches of one kind (Rummikub with two persons and a bot; Gin Rummy with two persons), one
   rated and one not, ended in alternating order on the same store; finish_match's latency,
   median and p95 of each, and their difference (issue 36's target: at most 2 ms more).
2. Leaderboard and profile reads with --players players and --matches finished matches
   generated straight into a database migrated to head: persons play 2-4 player matches of both
   games, chosen with a skewed activity (Zipf, exponent --skew), some seats bots or anonymous
   guests, some players leaving, some rooms private or unrated. Each rated match that rates
   something carries its rating_seq, as a live end writes it; ratings and rating events are
   then filled by the real `meldhall ratings rebuild` (3.). The reads run the routes' own
   functions (`leaderboard` and `profile` in app.api.routes.players, with their Identities and
   Standings), then a few through a real server on 127.0.0.1 over HTTP, to show what HTTP adds
   (target: p95 at most 20 ms on PostgreSQL, 50 ms on SQLite).
3. `meldhall ratings rebuild` of those matches, run as the command with DATABASE_URL set
   (target: at most 10 minutes).

    .venv/bin/python bench/bench_players.py       # 100,000 players, 1,000,000 matches, both
    .venv/bin/python bench/bench_players.py --store sqlite --players 2000 --matches 20000

Every loop is bounded: --ends pairs of match ends, --reads reads of each kind, --http-reads
over HTTP. The PostgreSQL database is made fresh for the run (MELDHALL_TEST_POSTGRES_URL, default
the local test server) and dropped after it; the SQLite file is made in a temporary folder and
removed. Once the ratings are rebuilt, PostgreSQL's tables are vacuumed and analysed (what
autovacuum does after such a load); SQLite's are not analysed, as no server of the product
does it. `--keep` leaves the databases in place; `--reuse URL` reads from one again (same scale
and seed) without generating or rebuilding. `--generate-only` generates and keeps a database
without rebuilding; `--reuse URL --rebuild` then times the rebuild on it before reading (so a
rebuild can be measured again on the same matches after a change).

Measured figures, with their commands and dates, are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import bisect
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg
import httpx
import orjson
from sqlalchemy import DateTime, func, select, text
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from app.api.routes import players as routes
from app.players.identity import Identities, Player
from app.players.rating_math import SeatAtEnd, bot_player_id, mode_of, places, rated_sides
from app.players.standings import Standings
from app.storage.database import create_engine
from app.storage.migrate import upgrade_to_head
from app.storage.models import MATCHES, RATING_EVENTS, RATINGS
from app.storage.sql_store import SqlMatchStore
from app.storage.store import FINISHED, RatingUpdate, SeatRecord, open_store
from bench.bench_storage import drop_postgres, fresh_postgres

# (game, players) and the share of matches played so.
MODES = [
    (("gin_rummy", 2), 0.35),
    (("gin_rummy", 3), 0.05),
    (("gin_rummy", 4), 0.10),
    (("rummikub", 2), 0.15),
    (("rummikub", 3), 0.15),
    (("rummikub", 4), 0.20),
]
LEVELS = ("easy", "normal", "hard")
BOT_SHARE = 0.2  # matches with one bot seat
GUEST_SHARE = 0.03  # each other seat: an anonymous guest
LEFT_SHARE = 0.02  # a person's seat played out by a bot after they left
PRIVATE_SHARE = 0.1
UNRATED_SHARE = 0.05
CHUNK = 20_000  # matches generated and written at a time
SPAN = timedelta(days=365)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def median(values: list[float]) -> float:
    return percentile(values, 0.5)


# ---------------------------------------------------------------------------------------------
# Generation


@dataclass
class Generated:
    players: list[str]
    weights: list[float]
    matches: int = 0
    seats: int = 0
    rated: int = 0  # matches that rate something (they carry a rating_seq)
    events: int = 0  # rating events a rebuild writes
    ratings: set[tuple[str, str]] = field(default_factory=set)
    seats_of: list[int] = field(default_factory=list)  # rated matches per person, by index
    seconds: float = 0.0


class Generator:
    """Matches in the order they finished, with their seats, as the store writes them."""

    def __init__(self, players: int, skew: float, seed: int) -> None:
        self.rng = random.Random(seed)
        rng = self.rng
        self.ids = [base64.urlsafe_b64encode(rng.randbytes(12)).decode() for _ in range(players)]
        # Activity: the k-th most active person plays in proportion to 1 / k^skew; who is how
        # active is shuffled, so that activity is not in the order of the ids.
        weights = [1 / (rank + 1) ** skew for rank in range(players)]
        rng.shuffle(weights)
        self.weights = weights
        self.cumulative: list[float] = []
        total = 0.0
        for weight in weights:
            total += weight
            self.cumulative.append(total)
        self.total = total
        self.modes = [mode for mode, _ in MODES]
        self.mode_weights = [share for _, share in MODES]
        self.started = datetime.now(UTC) - SPAN - timedelta(days=1)
        self.summary = Generated(self.ids, weights, seats_of=[0] * players)
        self.seq = 0

    def player_rows(self) -> list[tuple[str, str, str, str, datetime]]:
        at = self.started - timedelta(days=30)
        return [
            (pid, f"Player {index}", f"player {index}", "person", at)
            for index, pid in enumerate(self.ids)
        ]

    def _people(self, count: int) -> list[int]:
        chosen: list[int] = []
        for _ in range(50 * count):
            if len(chosen) == count:
                break
            index = bisect.bisect_left(self.cumulative, self.rng.random() * self.total)
            index = min(index, len(self.ids) - 1)
            if index not in chosen:
                chosen.append(index)
        return chosen

    def matches(self, count: int) -> Iterator[tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]]:
        """Chunks of (match rows, seat rows), in the order the matches finished."""
        rng = self.rng
        summary = self.summary
        step = SPAN / max(count, 1)
        match_rows: list[tuple[Any, ...]] = []
        seat_rows: list[tuple[Any, ...]] = []
        for number in range(count):
            game, players = rng.choices(self.modes, self.mode_weights)[0]
            finished = self.started + step * number
            created = finished - timedelta(minutes=rng.uniform(4, 40))
            match_id = f"{rng.getrandbits(128):032x}"
            bot_seat = rng.randrange(players) if rng.random() < BOT_SHARE else None
            people = iter(self._people(players))
            seats: list[SeatAtEnd] = []
            persons: list[int | None] = []
            for seat in range(players):
                if seat == bot_seat:
                    seats.append(SeatAtEnd(seat, None, "bot", rng.choice(LEVELS)))
                    persons.append(None)
                    continue
                person = next(people, None)
                if person is None or rng.random() < GUEST_SHARE:
                    seats.append(SeatAtEnd(seat, None, "human", None))
                    persons.append(None)
                elif rng.random() < LEFT_SHARE:
                    seats.append(SeatAtEnd(seat, self.ids[person], "bot", "normal"))
                    persons.append(person)
                else:
                    seats.append(SeatAtEnd(seat, self.ids[person], "human", None))
                    persons.append(person)
            result = (
                gin_result(rng, players) if game == "gin_rummy" else rummikub_result(rng, players)
            )
            seat_places = places(result, seats)
            public = rng.random() >= PRIVATE_SHARE
            rated = rng.random() >= UNRATED_SHARE
            sides = rated_sides(game, result, seats) if rated else []
            seq = None
            if sides:
                self.seq += 1
                seq = self.seq
                summary.rated += 1
                mode = mode_of(game, players)
                for side in sides:
                    summary.events += len(side.players)
                    summary.ratings.update((pid, mode) for pid in side.players)
            for person in persons:
                if person is not None and seq is not None:
                    summary.seats_of[person] += 1
            match_rows.append(
                (
                    match_id,
                    base64.urlsafe_b64encode(rng.randbytes(9)).decode(),
                    game,
                    {"target": 100} if game == "gin_rummy" else {},
                    rng.getrandbits(62),
                    players,
                    FINISHED,
                    created,
                    finished,
                    result,
                    {"public": public, "rated": rated},
                    public,
                    rated,
                    seq,
                )
            )
            for at_end, person in zip(seats, persons, strict=True):
                if at_end.kind == "bot" and at_end.player_id is None:
                    name = f"Bot ({at_end.level})"
                elif person is None:
                    name = "Guest"
                else:
                    name = f"Player {person}"
                seat_rows.append(
                    (
                        match_id,
                        at_end.seat,
                        name,
                        at_end.kind,
                        at_end.level,
                        None,
                        result["scores"][at_end.seat],
                        at_end.player_id,
                        seat_places[at_end.seat],
                        finished,
                    )
                )
            summary.matches += 1
            summary.seats += players
            if len(match_rows) >= CHUNK:
                yield match_rows, seat_rows
                match_rows, seat_rows = [], []
        if match_rows:
            yield match_rows, seat_rows


def rummikub_result(rng: random.Random, players: int) -> dict[str, Any]:
    """A Rummikub round: the winner scores what the others are left holding."""
    winner = rng.randrange(players)
    scores = [0 if seat == winner else -rng.randint(1, 60) for seat in range(players)]
    scores[winner] = -sum(scores)
    return {"scores": scores, "winners": [winner], "winner": winner, "rounds": 1}


def gin_result(rng: random.Random, players: int) -> dict[str, Any]:
    """A Gin Rummy match as its score sheet ends it: per side, one of them past the target."""
    sides = [[0, 2], [1, 3]] if players == 4 else [[seat] for seat in range(players)]
    winner = rng.randrange(len(sides))
    totals = [rng.randint(0, 180) for _ in sides]
    totals[winner] = rng.randint(max(totals) + 1, max(totals) + 250)
    scores = [0] * players
    for side, total in zip(sides, totals, strict=True):
        for seat in side:
            scores[seat] = total
    return {
        "sides": [
            {"side": index, "seats": side, "total": total}
            for index, (side, total) in enumerate(zip(sides, totals, strict=True))
        ],
        "totals": totals,
        "scores": scores,
        "winner_side": winner,
        "winners": list(sides[winner]),
    }


MATCH_COLUMNS = (
    "id", "room_id", "game", "config", "seed", "players", "status", "created_at", "finished_at",
    "result", "room_meta", "public", "rated", "rating_seq",
)  # fmt: skip
SEAT_COLUMNS = (
    "match_id", "seat", "name", "kind", "level", "token_hash", "final_score", "player_id", "place",
    "ended_at",
)  # fmt: skip
JSON_AT = (3, 9, 10)  # config, result, room_meta


def _json_columns(row: tuple[Any, ...]) -> tuple[Any, ...]:
    values = list(row)
    for index in JSON_AT:
        values[index] = orjson.dumps(values[index]).decode()
    return tuple(values)


async def generate_postgres(url: str, generator: Generator, matches: int) -> None:
    """COPY into the migrated tables, indexes and constraints in place."""
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(dsn)
    try:
        await connection.copy_records_to_table(
            "players",
            records=generator.player_rows(),
            columns=["id", "name", "name_key", "kind", "created_at"],
        )
        for match_rows, seat_rows in generator.matches(matches):
            async with connection.transaction():
                await connection.copy_records_to_table(
                    "matches",
                    records=[_json_columns(row) for row in match_rows],
                    columns=list(MATCH_COLUMNS),
                )
                await connection.copy_records_to_table(
                    "seats", records=seat_rows, columns=list(SEAT_COLUMNS)
                )
        await connection.execute("UPDATE rating_clock SET seq = $1 WHERE id = 1", generator.seq)
    finally:
        await connection.close()


def generate_sqlite(url: str, generator: Generator, matches: int) -> None:
    """executemany in large transactions, values in the forms SQLAlchemy stores them."""
    dialect = sqlite_dialect.dialect()
    stamp = DateTime(timezone=True).dialect_impl(dialect).bind_processor(dialect)
    assert stamp is not None
    path = make_url(url).database
    assert path is not None
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA synchronous=OFF")
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO players (id, name, name_key, kind, created_at) VALUES (?, ?, ?, ?, ?)",
            [(*row[:4], stamp(row[4])) for row in generator.player_rows()],
        )
        connection.execute("COMMIT")
        match_sql = (
            f"INSERT INTO matches ({', '.join(MATCH_COLUMNS)})"
            f" VALUES ({', '.join('?' * len(MATCH_COLUMNS))})"
        )
        seat_sql = (
            f"INSERT INTO seats ({', '.join(SEAT_COLUMNS)})"
            f" VALUES ({', '.join('?' * len(SEAT_COLUMNS))})"
        )
        for match_rows, seat_rows in generator.matches(matches):
            rows = []
            for row in match_rows:
                values = list(_json_columns(row))
                values[7], values[8] = stamp(values[7]), stamp(values[8])
                values[11], values[12] = int(values[11]), int(values[12])
                rows.append(tuple(values))
            seats = [(*row[:-1], stamp(row[-1])) for row in seat_rows]
            connection.execute("BEGIN")
            connection.executemany(match_sql, rows)
            connection.executemany(seat_sql, seats)
            connection.execute("COMMIT")
        connection.execute("UPDATE rating_clock SET seq = ? WHERE id = 1", (generator.seq,))
    finally:
        connection.close()


# ---------------------------------------------------------------------------------------------
# The rebuild, as the command


def rebuild(url: str, folder: Path) -> tuple[float, float, str]:
    """The command's wall time, its own CPU time (the database server's is not in it) and
    what it printed."""
    command = Path(sys.executable).with_name("meldhall")
    env = {key: value for key, value in os.environ.items() if not key.startswith("MELDHALL_")}
    env.update(DATABASE_URL=url, MELDHALL_DATA_DIR=str(folder), MELDHALL_LOG_LEVEL="warning")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [str(command), "ratings", "rebuild"],
        env=env,
        capture_output=True,
        text=True,
        timeout=3 * 3600,
        check=False,
    )
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"the rebuild failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, cpu, done.stdout.strip()


# ---------------------------------------------------------------------------------------------
# Reads


Read = Callable[[], Awaitable[Any]]


@dataclass
class ReadPlan:
    """The reads of each kind, each as its route call and its HTTP path ("": none)."""

    kinds: dict[str, list[tuple[Read, str]]]
    engine: AsyncEngine
    busiest: int  # the busiest person's rated matches


async def plan_reads(url: str, generated: Generated, reads: int, seed: int) -> ReadPlan:
    rng = random.Random(seed + 1)
    engine = create_engine(url)
    identities = Identities(engine)
    standings = Standings(engine)
    try:
        async with engine.connect() as connection:
            totals: dict[str, int] = dict(
                list(
                    await connection.execute(
                        select(RATINGS.c.mode, func.count()).group_by(RATINGS.c.mode)
                    )
                )
            )
        ids = generated.players
        active = [index for index, count in enumerate(generated.seats_of) if count]
        weights = [generated.weights[index] for index in active]
        busiest = max(active, key=lambda index: generated.seats_of[index])

        def by_activity() -> str:
            return ids[rng.choices(active, weights)[0]]

        def uniform() -> str:
            return ids[rng.choice(active)]

        async def player(pid: str) -> Player:
            found = await identities.get(pid)
            assert found is not None, pid
            return found

        def board(game: str, players: int, offset: int, circle: str | None = None) -> Read:
            async def call() -> Any:
                return await routes.leaderboard(
                    game, None, identities, standings, players, circle, 20, offset
                )

            return call

        def profile(pid: str, reader: Player | None = None) -> Read:
            async def call() -> Any:
                return await routes.profile(pid, reader, standings)

            return call

        def board_path(game: str, players: int, offset: int, circle: str | None = None) -> str:
            path = f"/api/leaderboards/{game}?mode={players}&limit=20&offset={offset}"
            return path if circle is None else f"{path}&with={circle}"

        # A player "at random" is any player with a rated match, each as likely; one "by
        # activity" is drawn in proportion to how much they play, as readers of boards and
        # profiles are: those who play more look more, and their reads cost the most.
        kinds: dict[str, list[tuple[Read, str]]] = {
            "board, first page": [],
            "board, deep offset": [],
            "circle, player at random": [],
            "circle, by activity": [],
            "profile, player at random": [],
            "profile, by activity": [],
            "own profile, by activity": [],
        }
        modes = [mode for mode, _ in MODES]
        for _ in range(reads):
            game, players = rng.choice(modes)
            kinds["board, first page"].append(
                (board(game, players, 0), board_path(game, players, 0))
            )
            game, players = rng.choice(modes)
            total = totals.get(mode_of(game, players), 0)
            offset = rng.randrange(max(total - 20, 1))
            kinds["board, deep offset"].append(
                (board(game, players, offset), board_path(game, players, offset))
            )
            for kind, pid in (
                ("circle, player at random", uniform()),
                ("circle, by activity", by_activity()),
            ):
                game, players = rng.choice(modes)
                kinds[kind].append(
                    (board(game, players, 0, pid), board_path(game, players, 0, pid))
                )
            for kind, pid in (
                ("profile, player at random", uniform()),
                ("profile, by activity", by_activity()),
            ):
                kinds[kind].append((profile(pid), f"/api/players/{pid}"))
            pid = by_activity()
            kinds["own profile, by activity"].append((profile(pid, await player(pid)), ""))
        top = ids[busiest]
        bots = [
            bot_player_id(game, level) for game in ("gin_rummy", "rummikub") for level in LEVELS
        ]
        kinds["busiest person's profile"] = [(profile(top), f"/api/players/{top}")] * 5
        kinds["busiest person's circle"] = [
            (board(game, players, 0, top), board_path(game, players, 0, top))
            for game, players in modes
        ]
        kinds["bots' profiles"] = [(profile(bot), f"/api/players/{bot}") for bot in bots]
        return ReadPlan(kinds, engine, generated.seats_of[busiest])
    except BaseException:
        await engine.dispose()
        raise


async def run_reads(plan: ReadPlan) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {}
    # A few reads first, so that the connection pool and the statement caches are warm.
    for read, _ in plan.kinds["board, first page"][:5]:
        await read()
    for kind, reads in plan.kinds.items():
        times = []
        for read, _ in reads:
            started = time.perf_counter()
            await read()
            times.append((time.perf_counter() - started) * 1000)
        timings[kind] = times
    return timings


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_log(folder: Path) -> IO[bytes]:
    return (folder / "server.log").open("wb")


async def run_http_reads(
    url: str, plan: ReadPlan, count: int, folder: Path
) -> dict[str, list[float]]:
    """The same reads of each kind through `meldhall serve` on 127.0.0.1."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("MELDHALL_")}
    env.update(
        DATABASE_URL=url,
        MELDHALL_DATA_DIR=str(folder),
        MELDHALL_LOG_LEVEL="warning",
        MELDHALL_SOLVER_WARM_UP="false",
    )
    command = [str(Path(sys.executable).with_name("meldhall")), "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    log = server_log(folder)
    server = await asyncio.create_subprocess_exec(*command, env=env, stdout=log, stderr=log)
    timings: dict[str, list[float]] = {}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=300) as client:
            for _ in range(600):  # up to 60 s for the server to start
                if server.returncode is not None:
                    raise SystemExit(f"the server exited with {server.returncode}")
                try:
                    if (await client.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
            for _, path in plan.kinds["board, first page"][:5]:
                (await client.get(path)).raise_for_status()
            for kind, reads in plan.kinds.items():
                paths = [path for _, path in reads if path][:count]
                times = []
                for path in paths:
                    started = time.perf_counter()
                    answer = await client.get(path)
                    times.append((time.perf_counter() - started) * 1000)
                    answer.raise_for_status()
                if times:
                    timings[kind] = times
    finally:
        server.terminate()
        try:
            await asyncio.wait_for(server.wait(), 30)
        except TimeoutError:
            server.kill()
            await asyncio.wait_for(server.wait(), 30)
        log.close()
    return timings


# ---------------------------------------------------------------------------------------------
# Match ends


async def match_ends(url: str, generated: Generated, pairs: int, seed: int) -> dict[str, Any]:
    """Pairs of the same match ended with and without its rating, in alternating order."""
    rng = random.Random(seed + 2)
    store = open_store(url)
    assert isinstance(store, SqlMatchStore)
    await store.start()
    timings: dict[str, dict[bool, list[float]]] = {}
    rated_ids: list[str] = []
    expected = 0
    try:
        if len(generated.players) >= 4:
            people = rng.sample(generated.players, 4)
        else:
            identities = Identities(store.engine)
            people = [(await identities.create(f"Bench {n}"))[0].id for n in range(4)]
        kinds = {
            "rummikub, 2 persons + bot": (
                "rummikub",
                [
                    SeatAtEnd(0, people[0], "human", None),
                    SeatAtEnd(1, people[1], "human", None),
                    SeatAtEnd(2, None, "bot", "hard"),
                ],
            ),
            "gin_rummy, 2 persons": (
                "gin_rummy",
                [SeatAtEnd(0, people[2], "human", None), SeatAtEnd(1, people[3], "human", None)],
            ),
        }
        for number in range(pairs):
            for name, (game, seats) in kinds.items():
                order = [True, False] if number % 2 == 0 else [False, True]
                for rated in order:
                    players = len(seats)
                    result = (
                        gin_result(rng, players)
                        if game == "gin_rummy"
                        else rummikub_result(rng, players)
                    )
                    match_id = uuid.uuid4().hex
                    await store.create_match(
                        match_id=match_id,
                        room_id=f"bench-{match_id[:12]}",
                        game=game,
                        config={},
                        seed=1,
                        players=players,
                        seats=[
                            SeatRecord(
                                seat=s.seat,
                                name=f"seat {s.seat}",
                                kind=s.kind,
                                level=s.level,
                                token_hash=None,
                                player_id=s.player_id,
                            )
                            for s in seats
                        ],
                        room_meta={"public": True, "rated": rated},
                    )
                    sides = rated_sides(game, result, seats)
                    mode = mode_of(game, players)
                    update = RatingUpdate(match_id, mode, tuple(sides), public=True)
                    started = time.perf_counter()
                    await store.finish_match(
                        match_id=match_id,
                        status=FINISHED,
                        result=result,
                        final_scores=result["scores"],
                        places=places(result, seats),
                        rating=update if rated else None,
                    )
                    elapsed = (time.perf_counter() - started) * 1000
                    timings.setdefault(name, {True: [], False: []})[rated].append(elapsed)
                    if rated:
                        rated_ids.append(match_id)
                        expected += sum(len(side.players) for side in sides)
        events = 0
        async with store.engine.connect() as connection:
            for start in range(0, len(rated_ids), 500):
                chunk = rated_ids[start : start + 500]
                query = select(func.count()).where(RATING_EVENTS.c.match_id.in_(chunk))
                events += (await connection.execute(query)).scalar_one()
    finally:
        await store.close()
    return {"timings": timings, "events": events, "expected": expected}


# ---------------------------------------------------------------------------------------------


async def counts(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:

            async def count(query: Any) -> int:
                return int((await connection.execute(query)).scalar_one())

            return {
                "matches": await count(select(func.count()).select_from(MATCHES)),
                "rated matches": await count(
                    select(func.count())
                    .select_from(MATCHES)
                    .where(MATCHES.c.rating_seq.isnot(None))
                ),
                "rating events": await count(select(func.count()).select_from(RATING_EVENTS)),
                "ratings": await count(select(func.count()).select_from(RATINGS)),
            }
    finally:
        await engine.dispose()


async def analyse(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text("VACUUM ANALYZE"))
    finally:
        await engine.dispose()


def line(kind: str, times: list[float]) -> str:
    shown = (
        f"  {kind:<26} n={len(times):<4} p50 {median(times):7.2f} ms"
        f"  p95 {percentile(times, 0.95):7.2f} ms  max {max(times):7.2f} ms"
    )
    return shown


async def bench_store(name: str, url: str, folder: Path, args: argparse.Namespace) -> None:
    print(f"\n== {name} (load average {os.getloadavg()[0]:.1f} at the start)")
    generator = Generator(args.players, args.skew, args.seed)
    if args.reuse:
        if args.rebuild:
            await rebuild_and_analyse(name, url, folder)
        # The database holds this seed's players and matches already: each person's rated
        # matches are their rating events.
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                query = select(RATING_EVENTS.c.player_id, func.count()).group_by(
                    RATING_EVENTS.c.player_id
                )
                played = dict(list(await connection.execute(query)))
        finally:
            await engine.dispose()
        summary = generator.summary
        summary.seats_of = [played.get(pid, 0) for pid in summary.players]
        await read_and_end(name, url, folder, args, summary)
        return
    await upgrade_to_head(url)
    started = time.perf_counter()
    if name == "postgres":
        await generate_postgres(url, generator, args.matches)
    else:
        await asyncio.to_thread(generate_sqlite, url, generator, args.matches)
    generated = generator.summary
    generated.seconds = time.perf_counter() - started
    active = sum(1 for count in generated.seats_of if count)
    print(
        f"generated: {args.players} players ({active} with rated matches), {generated.matches}"
        f" matches, {generated.seats} seats, {generated.rated} rating matches,"
        f" in {generated.seconds:.1f} s"
    )

    if args.generate_only:
        return
    expected = {
        "matches": generated.matches,
        "rated matches": generated.rated,
        "rating events": generated.events,
        "ratings": len(generated.ratings),
    }
    await rebuild_and_analyse(name, url, folder, expected)
    await read_and_end(name, url, folder, args, generated)


async def rebuild_and_analyse(
    name: str, url: str, folder: Path, expected: dict[str, int] | None = None
) -> None:
    """The real rebuild, timed, and the counts it left (against `expected`, the generation's,
    when known: a kept database's last ends added matches), then PostgreSQL's vacuum and
    analysis (what autovacuum does after such a load)."""
    print(f"rebuilding at load average {os.getloadavg()[0]:.1f}")
    seconds, cpu, said = rebuild(url, folder)
    print(
        f"rebuild: `meldhall ratings rebuild` {seconds:.1f} s wall, {cpu:.1f} s CPU of the"
        f" command ({said})"
    )
    found = await counts(url)
    if expected is None:
        print("counts: " + ", ".join(f"{key} {value}" for key, value in found.items()))
    else:
        print(
            "counts: "
            + ", ".join(f"{key} {found[key]} (expected {expected[key]})" for key in expected)
            + (": right" if found == expected else ": WRONG")
        )
    if name == "postgres":
        await analyse(url)


async def read_and_end(
    name: str, url: str, folder: Path, args: argparse.Namespace, generated: Generated
) -> None:
    plan = await plan_reads(url, generated, args.reads, args.seed)
    try:
        timings = await run_reads(plan)
    finally:
        await plan.engine.dispose()
    print(
        f"reads through the routes' functions; the busiest person has {plan.busiest} rated matches:"
    )
    for kind, times in timings.items():
        print(line(kind, times))
    everything = [ms for times in timings.values() for ms in times]
    print(line("all reads", everything))
    if args.http_reads:
        http = await run_http_reads(url, plan, args.http_reads, folder)
        print("the same reads over HTTP (a server on 127.0.0.1):")
        for kind, times in http.items():
            print(line(kind, times))

    print(f"load average {os.getloadavg()[0]:.1f} after the reads")
    ends = await match_ends(url, generated, args.ends, args.seed)
    right = ends["events"] == ends["expected"]
    print(
        f"match ends (finish_match, {args.ends} pairs of each, alternated; rating events"
        f" {ends['events']}, expected {ends['expected']}: {'right' if right else 'WRONG'}):"
    )
    for kind, by_rated in ends["timings"].items():
        plain, rated = by_rated[False], by_rated[True]
        print(
            f"  {kind:<26} unrated p50 {median(plain):6.2f} p95 {percentile(plain, 0.95):6.2f} ms"
            f"   rated p50 {median(rated):6.2f} p95 {percentile(rated, 0.95):6.2f} ms"
            f"   difference p50 {median(rated) - median(plain):+6.2f}"
            f" p95 {percentile(rated, 0.95) - percentile(plain, 0.95):+6.2f} ms"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--store", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"]
    )
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--skew", type=float, default=0.7, help="Zipf exponent of activity")
    parser.add_argument("--reads", type=int, default=200, help="reads of each kind")
    parser.add_argument(
        "--http-reads", type=int, default=50, help="reads of each kind over HTTP; 0: none"
    )
    parser.add_argument("--ends", type=int, default=200, help="pairs of match ends of each kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--keep", action="store_true", help="leave the databases in place and print their URLs"
    )
    parser.add_argument(
        "--reuse", metavar="URL",
        help="read from a database a run with --keep and the same scale and seed left (one "
        "store); no generation, no rebuild unless --rebuild",
    )  # fmt: skip
    parser.add_argument(
        "--rebuild", action="store_true",
        help="with --reuse: run `meldhall ratings rebuild` on it first (timed), then read",
    )  # fmt: skip
    parser.add_argument(
        "--generate-only", action="store_true",
        help="generate the players and matches, keep the database, stop (then --reuse --rebuild)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.rebuild and not args.reuse:
        parser.error("--rebuild goes with --reuse")
    args.keep = args.keep or args.generate_only
    print(
        f"{args.players} players, {args.matches} matches, skew {args.skew}, {args.reads} reads"
        f" of each kind ({args.http_reads} over HTTP), {args.ends} pairs of match ends,"
        f" {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        if args.reuse:
            name = "sqlite" if args.reuse.startswith("sqlite") else "postgres"
            await bench_store(name, args.reuse, folder, args)
            return
        for name in args.store:
            if name == "sqlite":
                kept = Path(tempfile.mkdtemp()) if args.keep else folder
                url = f"sqlite+aiosqlite:///{kept / 'bench.db'}"
                await bench_store(name, url, folder, args)
                if args.keep:
                    print(f"kept: {url}")
                continue
            found = await fresh_postgres()
            if found is None:
                continue
            try:
                await bench_store(name, found, folder, args)
            finally:
                if args.keep:
                    print(f"kept: {found}")
                else:
                    await drop_postgres(found)


if __name__ == "__main__":
    asyncio.run(main())
