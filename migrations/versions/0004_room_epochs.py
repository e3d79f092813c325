"""Rooms: the epoch of each room's current owner, the fence every write of the room is checked by.

Claiming a room (a server starting, or a node taking over from a dead one) raises its epoch;
a write carrying an older epoch is refused, and room versions are counted from the epoch so
that they only grow. Rooms stored before this start at epoch 0.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "rooms", sa.Column("epoch", sa.BigInteger(), server_default=sa.text("0"), nullable=False)
    )


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("epoch")
