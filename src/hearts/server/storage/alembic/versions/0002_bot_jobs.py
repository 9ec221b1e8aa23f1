"""Bot decisions for bot workers on any machine (PostgreSQL only: SQLite's one process runs its
bots itself)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        return
    op.create_table(
        "bot_jobs",
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.SmallInteger, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("queued", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("worker", sa.Text),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
        sa.UniqueConstraint("table_id", "seat", "seq"),
        sa.CheckConstraint("(worker IS NULL) = (lease_until IS NULL)"),
    )
    # At most one claimed job per table: a table's bots think one at a time.
    op.create_index("bot_jobs_one_claimed_per_table", "bot_jobs", ["table_id"], unique=True,
                    postgresql_where=sa.text("worker IS NOT NULL"))
