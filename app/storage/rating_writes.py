"""A rated match's end as part of its finish write: the rating updates run in the transaction
that marks the match finished, so a match end and its ratings commit together or not at all.

The write first raises the one row of rating_clock, before it touches the match: that row's
lock makes rating updates commit one at a time, across every server sharing the database, and
the number it gives (the match's rating_seq) is the order in which `meldhall ratings rebuild`
folds the matches in again. Forgetting a player takes the same lock first
(app.players.identity), so the two never wait for each other in opposite orders. The update
reads that number back, then the rated players' ratings, rates the match with
app.players.rating_math, and writes the ratings, one event per rated player, the match's
rating_seq and the count of players rated in the mode (a leaderboard's total).

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
from app.storage.prepared import Prepared, Statements


@dataclass(frozen=True, slots=True)
class Query:
    """One statement; `fetch` asks for its first row back (None when there is none)."""

    sql: str
    args: Any
    many: bool = False
    fetch: bool = False


# What a writer sends back into the plan after each query.
Rows = Sequence[Any] | None
Plan = Generator[Query, Rows, None]


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    match_id: str
    mode: str
    sides: tuple[RatedSide, ...]

    def plan(self, statements: Statements, at: datetime) -> Plan:
        # The write raised the clock first in its transaction (tick_rating_clock), under the
        # row's lock: the number there now is this match's.
        clock = statements.read_rating_clock
        row = yield Query(clock.sql, clock.args({}), fetch=True)
        assert row is not None
        seq = int(row[0])
        current: dict[str, Rating] = {}
        present: list[RatedSide] = []
        newcomers = 0
        for side in self.sides:
            # A player forgotten while the match went on is not rated by it.
            members = []
            for pid in side.players:
                found = yield _one(statements.select_player_rating, pid, self.mode)
                if found is None:
                    continue
                members.append(pid)
                if found[1] is not None:
                    current[pid] = Rating(float(found[1]), float(found[2]), int(found[3]))
                else:
                    newcomers += 1
            if members:
                present.append(RatedSide(tuple(members), side.rank))
        if len(present) < 2:
            return
        changes = rate(present, current)
        ratings = [rating_row(pid, self.mode, after, at) for pid, (_, after) in changes.items()]
        events = [
            event_row(self.match_id, pid, self.mode, seq, change, at)
            for pid, change in changes.items()
        ]
        yield _many(statements.upsert_rating, ratings)
        yield _many(statements.insert_rating_event, events)
        if newcomers:
            total = statements.add_rating_total
            yield Query(total.sql, total.args({"mode": self.mode, "players": newcomers}))
        mark = statements.set_rating_seq
        yield Query(mark.sql, mark.args({"p_match_id": self.match_id, "v_rating_seq": seq}))


def rating_row(player_id: str, mode: str, rating: Rating, at: datetime) -> dict[str, Any]:
    """A ratings row."""
    return {
        "player_id": player_id,
        "mode": mode,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "display": rating.shown,
        "matches": rating.matches,
        "updated_at": at,
    }


def event_row(
    match_id: str, player_id: str, mode: str, seq: int, change: tuple[Rating, Rating], at: datetime
) -> dict[str, Any]:
    """A rating_events row: one player's rating before and after one match."""
    before, after = change
    return {
        "match_id": match_id,
        "player_id": player_id,
        "mode": mode,
        "seq": seq,
        "mu_before": before.mu,
        "sigma_before": before.sigma,
        "mu_after": after.mu,
        "sigma_after": after.sigma,
        "display_before": before.shown,
        "display_after": after.shown,
        "at": at,
    }


def _one(prepared: Prepared, player_id: str, mode: str) -> Query:
    return Query(
        prepared.sql, prepared.args({"p_player_id": player_id, "p_mode": mode}), fetch=True
    )


def _many(prepared: Prepared, rows: list[dict[str, Any]]) -> Query:
    return Query(prepared.sql, [prepared.args(row) for row in rows], many=True)
