"""Players, their link codes and ratings; seats linked to players; matches public or private.

Matches stored before stay readable: their seats are anonymous (no player), they are not rated,
and they are public or private as their room was (its `public` flag in room_meta). The bots of
each game and level become rated players, so that a person alone with bots is rated too.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
# The bots that were in the product when ratings began (app.players.bots names them too).
_GAMES = {"gin_rummy": "Gin Rummy", "rummikub": "Rummikub"}
_LEVELS = ("easy", "normal", "hard")


def upgrade() -> None:
    timestamp = sa.DateTime(timezone=True)
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created_at", timestamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("name_key", name="uq_players_name_key"),
    )
    op.create_table(
        "player_keys",
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("created_at", timestamp, nullable=False),
        sa.PrimaryKeyConstraint("key_hash", name="pk_player_keys"),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_player_keys_player_id_players",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_player_keys_player_id", "player_keys", ["player_id"])
    op.create_table(
        "link_codes",
        sa.Column("locator", sa.String(8), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("created_at", timestamp, nullable=False),
        sa.Column("expires_at", timestamp, nullable=False),
        sa.Column("failures", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("used", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.PrimaryKeyConstraint("locator", name="pk_link_codes"),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_link_codes_player_id_players",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_link_codes_player_id", "link_codes", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(24), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", timestamp, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "mode", name="pk_ratings"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_ratings_player_id_players", ondelete="CASCADE"
        ),
    )
    op.create_index(
        "ix_ratings_mode_display_player_id", "ratings", ["mode", "display", "player_id"]
    )
    op.create_table(
        "rating_events",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(24), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("display_before", sa.Integer(), nullable=False),
        sa.Column("display_after", sa.Integer(), nullable=False),
        sa.Column("at", timestamp, nullable=False),
        sa.PrimaryKeyConstraint("match_id", "player_id", name="pk_rating_events"),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name="fk_rating_events_match_id_matches",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_rating_events_player_id_players",
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_rating_events_player_id_mode_seq", "rating_events", ["player_id", "mode", "seq"]
    )
    clock = op.create_table(
        "rating_clock",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rating_clock"),
    )
    op.bulk_insert(clock, [{"id": 1, "seq": 0}])

    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("player_id", sa.String(32), nullable=True))
        batch.add_column(sa.Column("place", sa.Integer(), nullable=True))
        batch.create_index("ix_seats_player_id", ["player_id"])
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("public", sa.Boolean(), server_default=sa.true(), nullable=False)
        )
        batch.add_column(
            sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.add_column(sa.Column("rating_seq", sa.BigInteger(), nullable=True))
        batch.create_unique_constraint("uq_matches_rating_seq", ["rating_seq"])
        batch.create_index("ix_matches_public_created_at", ["public", "created_at"])
    _mark_private_matches()
    op.add_column(
        "rooms", sa.Column("rated", sa.Boolean(), server_default=sa.false(), nullable=False)
    )

    players = sa.table(
        "players",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("kind", sa.String),
        sa.column("created_at", timestamp),
    )
    now = datetime.now(UTC)
    bots = []
    for game, title in _GAMES.items():
        for level in _LEVELS:
            name = f"{title} bot ({level})"
            bots.append(
                {
                    "id": f"bot-{game}-{level}",
                    "name": name,
                    "name_key": name.casefold(),
                    "kind": "bot",
                    "created_at": now,
                }
            )
    op.bulk_insert(players, bots)


def _mark_private_matches() -> None:
    bind = op.get_bind()
    matches = sa.table(
        "matches",
        sa.column("id", sa.String),
        sa.column("room_meta", _DOCUMENT),
        sa.column("public", sa.Boolean),
    )
    rows = bind.execute(sa.select(matches.c.id, matches.c.room_meta)).all()
    private = [row_id for row_id, meta in rows if (meta or {}).get("public") is False]
    for start in range(0, len(private), 500):
        chunk = private[start : start + 500]
        bind.execute(sa.update(matches).where(matches.c.id.in_(chunk)).values(public=False))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("rated")
    with op.batch_alter_table("matches") as batch:
        batch.drop_index("ix_matches_public_created_at")
        batch.drop_constraint("uq_matches_rating_seq", type_="unique")
        batch.drop_column("rating_seq")
        batch.drop_column("rated")
        batch.drop_column("public")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_player_id")
        batch.drop_column("place")
        batch.drop_column("player_id")
    op.drop_table("rating_clock")
    op.drop_index("ix_rating_events_player_id_mode_seq", table_name="rating_events")
    op.drop_table("rating_events")
    op.drop_index("ix_ratings_mode_display_player_id", table_name="ratings")
    op.drop_table("ratings")
    op.drop_index("ix_link_codes_player_id", table_name="link_codes")
    op.drop_table("link_codes")
    op.drop_index("ix_player_keys_player_id", table_name="player_keys")
    op.drop_table("player_keys")
    op.drop_table("players")
