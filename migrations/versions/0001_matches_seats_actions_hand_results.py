"""Matches, seats, the action log and hand results.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def json_document() -> sa.types.TypeEngine[Any]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def match_key(table: str) -> list[Any]:
    return [
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f(f"fk_{table}_match_id_matches"),
            ondelete="CASCADE",
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("room_id", sa.String(length=64), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("config", json_document(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", json_document(), nullable=True),
        sa.Column("room_meta", json_document(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index("ix_matches_game_created_at", "matches", ["game", "created_at"])
    op.create_index("ix_matches_status_created_at", "matches", ["status", "created_at"])
    op.create_index(op.f("ix_matches_room_id"), "matches", ["room_id"])

    op.create_table(
        "seats",
        *match_key("seats"),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("level", sa.String(length=32), nullable=True),
        sa.Column("token_hash", sa.String(length=128), nullable=True),
        sa.Column("final_score", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_name"), "seats", ["name"])

    op.create_table(
        "actions",
        *match_key("actions"),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action", json_document(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "idx", name=op.f("pk_actions")),
    )

    op.create_table(
        "hand_results",
        *match_key("hand_results"),
        sa.Column("hand_index", sa.Integer(), nullable=False),
        sa.Column("result", json_document(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "hand_index", name=op.f("pk_hand_results")),
    )


def downgrade() -> None:
    op.drop_table("hand_results")
    op.drop_table("actions")
    op.drop_index(op.f("ix_seats_name"), table_name="seats")
    op.drop_table("seats")
    op.drop_index(op.f("ix_matches_room_id"), table_name="matches")
    op.drop_index("ix_matches_status_created_at", table_name="matches")
    op.drop_index("ix_matches_game_created_at", table_name="matches")
    op.drop_table("matches")
