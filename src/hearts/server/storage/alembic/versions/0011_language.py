"""Languages (issue 42): the language a player profile chose for the web table (``players.language``,
a catalog's code such as ``de``; null: the browser's own), remembered on every device."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    op.add_column("players", sa.Column("language", sa.Text, nullable=True))
