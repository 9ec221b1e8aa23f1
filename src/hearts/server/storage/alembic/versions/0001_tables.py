"""The tables, their seats and their action logs."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Codec, Document, Instant, SeatNumber, now

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created", Instant, nullable=False, server_default=now()),
        sa.Column("config", Document, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("deals", Document),
    )
    op.create_index("tables_unfinished", "tables", ["created", "id"],
                    postgresql_where=sa.text("NOT finished"), sqlite_where=sa.text("NOT finished"))
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", SeatNumber, sa.CheckConstraint("seat >= 0"), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("name", sa.Text),
        sa.Column("bot", sa.Text),
        sa.Column("token_hash", sa.Text),
        sa.PrimaryKeyConstraint("table_id", "seat"),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seq", sa.Integer, sa.CheckConstraint("seq >= 1"), nullable=False),
        sa.Column("data", Codec, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seq"),
    )
