"""circle_sizes: per player and mode, how many rated players their circle holds.

A leaderboard narrowed to a player's circle counted the player's pairs joined to the mode's
ratings at every read, tens of thousands of rows for the busiest players; the counts kept here
make its total one lookup by key. Rated match ends and forgetting a player keep them
(app.storage.circle_sizes).

The backfill imports app.storage.circle_sizes: the counts must be the ones the product keeps.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "circle_sizes",
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(24), nullable=False),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("members_public", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "mode", name="pk_circle_sizes"),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_circle_sizes_player_id_players",
            ondelete="CASCADE",
        ),
    )
    _backfill()


def _backfill() -> None:
    from app.storage.circle_sizes import COLUMNS, all_circles
    from app.storage.models import CIRCLE_SIZES

    op.get_bind().execute(sa.insert(CIRCLE_SIZES).from_select(COLUMNS, all_circles()))


def downgrade() -> None:
    op.drop_table("circle_sizes")
