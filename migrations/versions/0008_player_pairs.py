"""Reads bounded by what they show: pairs' counts, players rated per mode, seats' end times.

- player_pairs: per ordered pair of rated players, the rated matches they shared (a circle of
  friends) and their head to head, over every match and over public ones (app.storage
  .pair_counts); filled here from the finished matches and the rating events, by the query a
  match end and a rebuild run.
- rating_totals: how many players have a rating in each mode (a leaderboard's total).
- seats.ended_at: its match's finished_at once it is over, in an index with the player, so a
  player's newest matches are read first (it replaces the index of seats.player_id alone); and
  rating_events (player_id, seq) for a bot's newest rated matches.

The backfill imports app.storage.pair_counts: the counts must be the ones the product keeps.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = (
    "shared",
    "shared_public",
    "duels",
    "wins",
    "losses",
    "duels_public",
    "wins_public",
    "losses_public",
)


def upgrade() -> None:
    op.create_table(
        "player_pairs",
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("other_id", sa.String(32), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in _COUNTS),
        sa.PrimaryKeyConstraint("player_id", "other_id", name="pk_player_pairs"),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_player_pairs_player_id_players",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["other_id"],
            ["players.id"],
            name="fk_player_pairs_other_id_players",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_player_pairs_other_id", "player_pairs", ["other_id"])
    op.create_index(
        "ix_player_pairs_player_id_duels", "player_pairs", ["player_id", "duels", "other_id"]
    )
    op.create_index(
        "ix_player_pairs_player_id_duels_public",
        "player_pairs",
        ["player_id", "duels_public", "other_id"],
    )
    op.create_table(
        "rating_totals",
        sa.Column("mode", sa.String(24), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("mode", name="pk_rating_totals"),
    )
    op.add_column("seats", sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True))
    op.drop_index("ix_seats_player_id", table_name="seats")
    op.create_index("ix_seats_player_id_ended_at", "seats", ["player_id", "ended_at", "match_id"])
    op.create_index("ix_rating_events_player_id_seq", "rating_events", ["player_id", "seq"])
    _backfill()


def _backfill() -> None:
    from app.storage.models import PLAYER_PAIRS, RATING_TOTALS, RATINGS
    from app.storage.pair_counts import COUNTS, all_pairs

    assert tuple(COUNTS) == _COUNTS
    bind = op.get_bind()
    matches = sa.table(
        "matches",
        sa.column("id", sa.String),
        sa.column("status", sa.String),
        sa.column("finished_at", sa.DateTime(timezone=True)),
    )
    seats = sa.table(
        "seats", sa.column("match_id", sa.String), sa.column("ended_at", sa.DateTime(timezone=True))
    )
    ended = (
        sa.select(matches.c.finished_at).where(matches.c.id == seats.c.match_id).scalar_subquery()
    )
    over = sa.select(matches.c.id).where(matches.c.status != "active")
    bind.execute(sa.update(seats).where(seats.c.match_id.in_(over)).values(ended_at=ended))
    per_mode = sa.select(RATINGS.c.mode, sa.func.count()).group_by(RATINGS.c.mode)
    bind.execute(sa.insert(RATING_TOTALS).from_select(["mode", "players"], per_mode))
    columns = ["player_id", "other_id", *_COUNTS]
    bind.execute(sa.insert(PLAYER_PAIRS).from_select(columns, all_pairs()))


def downgrade() -> None:
    op.drop_index("ix_rating_events_player_id_seq", table_name="rating_events")
    op.drop_index("ix_seats_player_id_ended_at", table_name="seats")
    op.create_index("ix_seats_player_id", "seats", ["player_id"])
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("ended_at")
    op.drop_table("rating_totals")
    op.drop_index("ix_player_pairs_player_id_duels_public", table_name="player_pairs")
    op.drop_index("ix_player_pairs_player_id_duels", table_name="player_pairs")
    op.drop_index("ix_player_pairs_other_id", table_name="player_pairs")
    op.drop_table("player_pairs")
