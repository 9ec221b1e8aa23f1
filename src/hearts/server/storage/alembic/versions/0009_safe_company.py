"""Safe company among strangers: mutes, blocks, reports and bans of player profiles, and a
profile's chat setting (:mod:`hearts.server.company`)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Document, Instant, Serial, now

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.add_column("players", sa.Column("chat", sa.Boolean, nullable=False, server_default=sa.true()))
    op.create_table(
        "player_marks",
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("other_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("kind", sa.Text, sa.CheckConstraint("kind IN ('mute', 'block')"), primary_key=True),
        sa.Column("created", Instant, nullable=False, server_default=now()),
        sa.CheckConstraint("player_id <> other_id"),
    )
    op.create_index("player_marks_other", "player_marks", ["other_id", "kind"])
    op.create_table(
        "player_bans",
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("created", Instant, nullable=False, server_default=now()),
    )
    op.create_table(
        "player_reports",
        sa.Column("id", Serial, sa.Identity(always=True), primary_key=True),
        sa.Column("created", Instant, nullable=False, server_default=now()),
        sa.Column("reporter", sa.Text, nullable=False),
        sa.Column("reported", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, sa.CheckConstraint("length(reason) BETWEEN 1 AND 500"), nullable=False),
        sa.Column("table_id", sa.Text),
        sa.Column("chat", Document, nullable=False),
        sa.Column("record", Document),
    )
    op.create_index("player_reports_reported", "player_reports", ["reported", "id"])
