"""Whether a seat's person is away (its turn timer ran out: the stand-in bot plays for it)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.add_column("seats", sa.Column("away", sa.Boolean, nullable=False, server_default=sa.false()))
