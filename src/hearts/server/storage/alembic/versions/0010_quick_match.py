"""Quick match: the queue of players waiting to be seated with strangers, shared by every
server process (:class:`~hearts.server.storage.quick.QuickQueue`)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    op.create_table(
        "quick_queue",
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("preset", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("fill_after", sa.Float, nullable=False),
        sa.Column("queued", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
        sa.Column("conn", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text),
        sa.Column("seat", sa.SmallInteger),
        sa.Column("token", sa.Text),
        sa.Column("bots", sa.SmallInteger),
        sa.Column("seated_preset", sa.Text),
        sa.Column("took_seat", sa.Boolean, nullable=False, server_default=sa.false()),
    )
