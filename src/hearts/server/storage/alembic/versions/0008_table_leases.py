"""One owner per table: the leases of the server processes on the tables, each with its
fencing epoch (:class:`~hearts.server.storage.Leases`). Made on both databases, the schema being
one; only PostgreSQL's processes use it."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Instant

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.Text, primary_key=True),
        sa.Column("owner", sa.Text, nullable=False),
        sa.Column("epoch", sa.BigInteger, sa.CheckConstraint("epoch > 0"), nullable=False),
        sa.Column("until", Instant, nullable=False),
    )
