"""A rated match's end as part of its finish write: the rating updates run in the transaction
that marks the match finished, so a match end and its ratings commit together or not at all.

The update runs first in the match end's transaction, before the match's own statements, and
raises the one row of rating_clock first: that row's lock makes rating updates commit one at a
time, across every server sharing the database, and the number it gives (the match's
rating_seq) is the order in which `meldhall ratings rebuild` folds the matches in again.
Forgetting a player takes the same lock first (app.players.identity), so the two never wait
for each other in opposite orders. Then it reads the rated players' ratings (one query), rates
the match with app.players.rating_math, and writes the ratings, one event per rated player,
the match's rating_seq, the count of players rated in the mode (a leaderboard's total) and,
for players rated in the mode for the first time, the circles that now hold them
(app.storage.circle_sizes).

The work is written once as a generator of queries, which each log writer runs on its own
driver (sqlite3 in the commit thread, asyncpg on the event loop): it sends back the row each
query returned.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.players.rating_math import RatedSide, Rating, rate
from app.storage.circle_sizes import NEWCOMERS
from app.storage.prepared import Prepared, Statements

# The columns of the ratings and rating_events tables, in their declared order.
RATING_COLUMNS = ("player_id", "mode", "mu", "sigma", "display", "matches", "updated_at")
EVENT_COLUMNS = (
    "match_id",
    "player_id",
    "mode",
    "seq",
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
    "display_before",
    "display_after",
    "at",
    "public",
)

# The most players a match rates (four seats); a lookup of their ratings is one statement.
PLAYERS_PER_LOOKUP = 4


@dataclass(frozen=True, slots=True)
class Query:
    """One statement; `fetch` asks for its first row back (None when there is none),
    `fetch_all` for all of them."""

    sql: str
    args: Any
    many: bool = False
    fetch: bool = False
    # Ask for every row back, as a list.
    fetch_all: bool = False


# What a writer sends back into the plan after each query.
Rows = Sequence[Any] | None
Plan = Generator[Query, Rows, None]


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    match_id: str
    mode: str
    sides: tuple[RatedSide, ...]
    # The match's room is public: its events show their match to anyone.
    public: bool

    def plan(self, statements: Statements, at: datetime) -> Plan:
        clock = statements.tick_rating_clock
        row = yield Query(clock.sql, clock.args({}), fetch=True)
        assert row is not None
        seq = int(row[0])
        # Every rated player's rating in one query (a forgotten player has no row).
        wanted = [pid for side in self.sides for pid in side.players]
        found: dict[str, Any] = {}
        lookup = statements.select_player_ratings
        for start in range(0, len(wanted), PLAYERS_PER_LOOKUP):
            chunk = wanted[start : start + PLAYERS_PER_LOOKUP]
            values: dict[str, Any] = {"p_mode": self.mode}
            for index in range(PLAYERS_PER_LOOKUP):
                values[f"p_player_{index}"] = chunk[index] if index < len(chunk) else None
            rows = yield Query(lookup.sql, lookup.args(values), fetch_all=True)
            found.update((r[0], r) for r in rows or ())
        current: dict[str, Rating] = {}
        present: list[RatedSide] = []
        newcomers: list[str] = []
        for side in self.sides:
            # A player forgotten while the match went on is not rated by it.
            members = [pid for pid in side.players if pid in found]
            for pid in members:
                mu, sigma, matches = found[pid][1:4]
                if mu is not None:
                    current[pid] = Rating(float(mu), float(sigma), int(matches))
                else:
                    newcomers.append(pid)
            if members:
                present.append(RatedSide(tuple(members), side.rank))
        if len(present) < 2:
            return
        changes = rate(present, current)
        ratings = [rating_record(pid, self.mode, after, at) for pid, (_, after) in changes.items()]
        events = [
            event_record(self.match_id, pid, self.mode, seq, change, at, self.public)
            for pid, change in changes.items()
        ]
        yield _many(statements.upsert_rating, RATING_COLUMNS, ratings)
        yield _many(statements.insert_rating_event, EVENT_COLUMNS, events)
        if newcomers:
            total = statements.add_rating_total
            yield Query(total.sql, total.args({"mode": self.mode, "players": len(newcomers)}))
            for start in range(0, len(newcomers), NEWCOMERS):
                chunk = newcomers[start : start + NEWCOMERS]
                yield _newcomers(statements.count_newcomers, self.mode, chunk)
        mark = statements.set_rating_seq
        yield Query(mark.sql, mark.args({"p_match_id": self.match_id, "v_rating_seq": seq}))


def rating_record(player_id: str, mode: str, rating: Rating, at: datetime) -> tuple[Any, ...]:
    """A ratings row as its values, in RATING_COLUMNS' order (the table's)."""
    return (player_id, mode, rating.mu, rating.sigma, rating.shown, rating.matches, at)


def event_record(
    match_id: str,
    player_id: str,
    mode: str,
    seq: int,
    change: tuple[Rating, Rating],
    at: datetime,
    public: bool,
) -> tuple[Any, ...]:
    """A rating_events row as its values, in EVENT_COLUMNS' order (the table's)."""
    before, after = change
    return (
        match_id,
        player_id,
        mode,
        seq,
        before.mu,
        before.sigma,
        after.mu,
        after.sigma,
        before.shown,
        after.shown,
        at,
        public,
    )


def _newcomers(prepared: Prepared, mode: str, newcomers: list[str]) -> Query:
    """The players rated in the mode for the first time added to their friends' circles."""
    values: dict[str, Any] = {"p_mode": mode}
    for index in range(NEWCOMERS):
        values[f"p_newcomer_{index}"] = newcomers[index] if index < len(newcomers) else None
    return Query(prepared.sql, prepared.args(values))


def _many(prepared: Prepared, columns: tuple[str, ...], records: list[tuple[Any, ...]]) -> Query:
    """The records (values in `columns`' order) written by one executemany."""
    rows = [prepared.args(dict(zip(columns, record, strict=True))) for record in records]
    return Query(prepared.sql, rows, many=True)
