"""The SQL store's writes as plain data, and the statements a batch of them runs.

A write is an `ActionWrite` (one row of the log) or a `StatementWrite` (named statements of
app.storage.prepared with their values). A batch commits in one transaction, in the order it
was made; consecutive actions, from any number of matches, go in one statement. Turning a
batch into driver calls (`operations`) is shared; running them is each writer's own: SQLite's
thread on sqlite3 (app.storage.sqlite_log), PostgreSQL's tasks on asyncpg
(app.storage.postgres_log).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

from app.storage.group_commit import Outcomes
from app.storage.prepared import (
    LOG_ROWS,
    POSTGRES_LOG_ACTIONS,
    Statements,
    sqlite_log_actions,
)
from app.storage.rating_writes import Plan, RatingUpdate
from app.storage.records import StoreError, fenced, json_text


@dataclass(slots=True)
class ActionWrite:
    """One action for the log; the event loop builds nothing else per action.

    `room_id` and `epoch` are its fence (None for an unfenced write).
    """

    match_id: str
    index: int
    seat: int | None
    action: dict[str, Any]
    room_id: str | None = None
    epoch: int | None = None

    def conflict(self, match_exists: bool) -> StoreError:
        """What its broken constraint meant: no such match, or that index is taken."""
        if not match_exists:
            return unknown_match(self.match_id)
        return StoreError(
            "duplicate_action",
            f"match {self.match_id!r} already has an action at index {self.index}",
        )


@dataclass(frozen=True, slots=True)
class Step:
    """One statement of `Statements` (by its name), run once per row of values."""

    statement: str
    rows: tuple[Mapping[str, Any], ...]
    # For an update of one row: what it means when the row is not there.
    missing: StoreError | None = None


@dataclass(frozen=True, slots=True)
class StatementWrite:
    steps: tuple[Step, ...]
    # What a broken constraint means for this write; None lets the driver's error through.
    conflict: StoreError | None = None
    # A rated match's end: run after the steps, in their transaction.
    rating: RatingUpdate | None = None
    # Steps run after the rating, in the same transaction.
    then: tuple[Step, ...] = ()


Write = ActionWrite | StatementWrite


@dataclass(frozen=True, slots=True)
class Operation:
    """One driver call: execute (args one row's values) or executemany (args a list of rows).

    `fenced_run` is set on a fenced run of actions: the statement returns the rows it inserted,
    and the writes of this run it did not insert were fenced.
    """

    sql: str
    args: Sequence[Any]
    many: bool
    missing: StoreError | None = None
    fenced_run: Sequence[ActionWrite] | None = None
    # Queries that read as they go (a rating update), run by the writer inside a transaction.
    plan: Plan | None = None

    @property
    def alone_is_atomic(self) -> bool:
        """Whether this call, alone in a batch, needs no explicit transaction around it."""
        return not self.many and self.plan is None


def unknown_match(match_id: str) -> StoreError:
    return StoreError("unknown_match", f"no match with id {match_id!r}")


def _is_action(write: Write) -> bool:
    return isinstance(write, ActionWrite)


def log_actions(
    statements: Statements, actions: Sequence[ActionWrite], at: datetime
) -> list[Operation]:
    """A run of actions as one statement (app.storage.prepared says why), or a few on SQLite."""
    at_value = statements.action_at(at)
    if statements.dialect_name == "postgresql":
        rows = json_text(
            [(w.match_id, w.index, w.seat, w.action, w.room_id, w.epoch) for w in actions]
        )
        return [Operation(POSTGRES_LOG_ACTIONS, (at_value, rows), many=False, fenced_run=actions)]
    calls = []
    for start in range(0, len(actions), LOG_ROWS):
        chunk = actions[start : start + LOG_ROWS]
        values = [
            value
            for w in chunk
            for value in (w.match_id, w.index, w.seat, json_text(w.action), at_value)
        ]
        calls.append(Operation(sqlite_log_actions(len(chunk)), values, many=False))
    return calls


def operations(statements: Statements, writes: Sequence[Write], at: datetime) -> list[Operation]:
    """The batch as driver calls, in order; `at` is the log time of its actions."""
    calls: list[Operation] = []
    for is_action, group in groupby(writes, key=_is_action):
        if is_action:
            actions = [w for w in group if isinstance(w, ActionWrite)]
            calls.extend(log_actions(statements, actions, at))
            continue
        for write in group:
            assert isinstance(write, StatementWrite)
            calls.extend(_step_operation(statements, step) for step in write.steps)
            if write.rating is not None:
                calls.append(Operation("", (), False, plan=write.rating.plan(statements, at)))
            calls.extend(_step_operation(statements, step) for step in write.then)
    return calls


def _step_operation(statements: Statements, step: Step) -> Operation:
    prepared = getattr(statements, step.statement)
    if len(step.rows) == 1:
        return Operation(prepared.sql, prepared.args(step.rows[0]), False, step.missing)
    return Operation(prepared.sql, [prepared.args(row) for row in step.rows], many=True)


def not_inserted(
    run: Sequence[ActionWrite], inserted: Sequence[tuple[str, int]]
) -> list[ActionWrite]:
    """The writes of a fenced run that its statement did not insert (returned `inserted`)."""
    if len(inserted) == len(run):
        return []
    done = set(inserted)
    return [w for w in run if (w.match_id, w.index) not in done]


def fenced_outcomes(writes: Sequence[Write], refused: Sequence[ActionWrite]) -> Outcomes:
    """A committed batch's outcomes: None when all of it was written, else one per write."""
    if not refused:
        return None
    ids = {id(write) for write in refused}
    return [
        fenced(write.room_id or "") if id(write) in ids and isinstance(write, ActionWrite) else None
        for write in writes
    ]


def conflict_error(write: Write, match_exists: bool) -> StoreError | None:
    """The StoreError a write alone got from a broken constraint, if it names one."""
    if isinstance(write, ActionWrite):
        return write.conflict(match_exists)
    return write.conflict
