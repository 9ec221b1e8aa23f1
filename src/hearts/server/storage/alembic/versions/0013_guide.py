"""The guided first game (issue 42): what became of a profile's offer (``players.guide``: a JSON
``{status, table, seen}``; null: never offered), so that it is offered once to the profile on
every device it signs in on, and afresh to each new profile."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Document

revision = "0013"
down_revision = "0012"


def upgrade() -> None:
    op.add_column("players", sa.Column("guide", Document, nullable=True))
