"""Gin Rummy: matches and rooms stored before the defender chose its lay-offs keep automatic ones.

From this revision a knock waits for the defender's `lay_off` answer unless a match's config
says `"lay_offs": "auto"`. A match stored before was played, and is replayed from its action
log, with the engine laying off the defender's best at once; its config (and its room's
options, from which the room's next match is made) gets `"lay_offs": "auto"` so that its log
replays as it was played. The schema does not change.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
# (table, the column holding the game's options)
_HOLDERS = (("matches", "config"), ("rooms", "options"))


def _set_rule(value: str | None) -> None:
    """Where `value` is None, drop the rule; else set it where the options lack one."""
    bind = op.get_bind()
    for name, column in _HOLDERS:
        table = sa.table(
            name,
            sa.column("id", sa.String),
            sa.column("game", sa.String),
            sa.column(column, _DOCUMENT),
        )
        rows = bind.execute(
            sa.select(table.c.id, table.c[column]).where(table.c.game == "gin_rummy")
        ).all()
        for row_id, options in rows:
            changed: dict[str, Any] = dict(options or {})
            if value is None:
                if changed.pop("lay_offs", None) != "auto":
                    continue
            elif "lay_offs" in changed:
                continue
            else:
                changed["lay_offs"] = value
            bind.execute(sa.update(table).where(table.c.id == row_id).values({column: changed}))


def upgrade() -> None:
    _set_rule("auto")


def downgrade() -> None:
    # The engine before this revision knows no lay_offs option: drop the automatic one (a
    # match that chose lay-offs cannot be replayed by it, whatever this does).
    _set_rule(None)
