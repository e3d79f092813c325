"""Rooms: whether a seat may ask for a hint; rooms made before this allowed hints.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "rooms", sa.Column("hints", sa.Boolean(), server_default=sa.true(), nullable=False)
    )


def downgrade() -> None:
    # SQLite drops a column only by copying the table, which batch mode does.
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("hints")
