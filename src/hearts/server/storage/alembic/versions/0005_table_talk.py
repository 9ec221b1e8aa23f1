"""The table talk: chat messages, and (PostgreSQL) the hints the bot workers compute."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Instant, SeatNumber, Serial, now

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "table_talk",
        sa.Column("id", Serial, sa.Identity(always=True), primary_key=True),
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", SeatNumber, sa.CheckConstraint("seat >= 0"), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("sent", Instant, nullable=False, server_default=now()),
    )
    op.create_index("table_talk_by_table", "table_talk", ["table_id", "id"])
    if op.get_context().dialect.name != "postgresql":
        return
    op.create_table(
        "hint_jobs",
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.SmallInteger, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("queued", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("result", sa.JSON),
        sa.Column("worker", sa.Text),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("table_id", "seat", "seq"),
        sa.CheckConstraint("(worker IS NULL) = (lease_until IS NULL)"),
    )
    op.create_index("hint_jobs_waiting", "hint_jobs", ["queued"], postgresql_where=sa.text("result IS NULL"))
