"""Table talk: chat lines kept per room and per match; a room's chat option, host and mutes.

Rooms made before this have chat on, nobody muted and no host until a person next joins.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column(
        "rooms", sa.Column("chat", sa.Boolean(), server_default=sa.true(), nullable=False)
    )
    op.add_column("rooms", sa.Column("chat_host", sa.Integer(), nullable=True))
    op.add_column(
        "rooms",
        sa.Column("chat_muted", _DOCUMENT, server_default=sa.text("'[]'"), nullable=False),
    )
    op.create_table(
        "chat_messages",
        sa.Column("room_id", sa.String(64), nullable=False),
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("match_id", sa.String(64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(1200), nullable=True),
        sa.Column("reaction", sa.String(16), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("room_id", "id", name="pk_chat_messages"),
    )
    op.create_index("ix_chat_messages_match_id_id", "chat_messages", ["match_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_chat_messages_match_id_id", table_name="chat_messages")
    op.drop_table("chat_messages")
    # SQLite drops a column only by copying the table, which batch mode does.
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("chat_muted")
        batch.drop_column("chat_host")
        batch.drop_column("chat")
