"""rating_events.public, and a profile's chart read from one index.

A profile's rating chart shows a private match's point to others without its match; with the
flag on the event, the chart's points need no lookup of each point's match (up to 1,200 of them
for a player rated in every mode). A match's room never changes from private to public, so the
flag is fixed when the event is written. Its default is false: an event written without it
would hide its match rather than show a private one.

The index of events by (player_id, mode, seq) becomes ix_rating_events_chart, which holds every
column a chart shows: a player's events lie scattered over the table, and a busy player's chart
visited a table page for each point.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHART = ("player_id", "mode", "seq", "match_id", "at", "display_after", "public")


def upgrade() -> None:
    op.add_column(
        "rating_events",
        sa.Column("public", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    matches = sa.table("matches", sa.column("id", sa.String), sa.column("public", sa.Boolean))
    events = sa.table(
        "rating_events", sa.column("match_id", sa.String), sa.column("public", sa.Boolean)
    )
    shown = sa.select(matches.c.id).where(matches.c.public.is_(True))
    op.get_bind().execute(
        sa.update(events).where(events.c.match_id.in_(shown)).values(public=sa.true())
    )
    op.drop_index("ix_rating_events_player_id_mode_seq", table_name="rating_events")
    op.create_index("ix_rating_events_chart", "rating_events", list(_CHART))


def downgrade() -> None:
    op.drop_index("ix_rating_events_chart", table_name="rating_events")
    op.create_index(
        "ix_rating_events_player_id_mode_seq", "rating_events", ["player_id", "mode", "seq"]
    )
    with op.batch_alter_table("rating_events") as batch:
        batch.drop_column("public")
