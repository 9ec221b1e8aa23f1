"""Player profiles and ratings; each person seat records the profile that took it; a rated game
is settled once."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Document, Instant, now

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("key_hash", sa.Text, nullable=False, unique=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created", Instant, nullable=False, server_default=now()),
    )
    op.create_index("players_rating", "players", [sa.text("(mu - 3 * sigma) DESC"), "id"],
                    postgresql_where=sa.text("games > 0"), sqlite_where=sa.text("games > 0"))
    if op.get_context().dialect.name == "sqlite":  # (SQLite cannot add a column's constraint)
        op.add_column("seats", sa.Column("player_id", sa.Text))
    else:
        op.add_column("seats", sa.Column("player_id", sa.Text, sa.ForeignKey("players.id")))
    op.create_index("seats_player", "seats", ["player_id"],
                    postgresql_where=sa.text("player_id IS NOT NULL"), sqlite_where=sa.text("player_id IS NOT NULL"))
    op.create_table(
        "rated_games",
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rated", Instant, nullable=False, server_default=now()),
        sa.Column("changes", Document, nullable=False, server_default="{}"),
    )
