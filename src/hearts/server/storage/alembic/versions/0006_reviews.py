"""Game reviews: one job per table and seat, claimed by a runner under a lease."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Codec, Instant, SeatNumber, UnixInstant, now

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "review_jobs",
        sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", SeatNumber, sa.CheckConstraint("seat >= 0"), nullable=False),
        sa.Column("budget", sa.Integer, sa.CheckConstraint("budget > 0"), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.Text, nullable=False, server_default="queued"),
        sa.Column("done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("total", sa.Integer, nullable=False, server_default="0"),
        sa.Column("review", Codec),
        sa.Column("error", sa.Text),
        sa.Column("requested", Instant, nullable=False, server_default=now()),
        sa.Column("worker", sa.Text),
        sa.Column("lease_until", UnixInstant),
        sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
        sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("table_id", "seat"),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'failed')"),
        sa.CheckConstraint("(worker IS NULL) = (lease_until IS NULL)"),
    )
    op.create_index("review_jobs_waiting", "review_jobs", ["requested"],
                    postgresql_where=sa.text("status IN ('queued', 'running')"),
                    sqlite_where=sa.text("status IN ('queued', 'running')"))
