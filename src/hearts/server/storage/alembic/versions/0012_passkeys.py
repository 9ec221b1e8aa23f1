"""Passkeys and sessions (issue 42, item 3): a profile's passkeys (WebAuthn credentials: several
per profile), the sign-in sessions a browser holds as a cookie (``sign out everywhere`` deletes
a profile's), and the one-time secrets given out: the challenges of the WebAuthn ceremonies under
way (each used once, within minutes) and the tickets that open a profile's seat on another device."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from hearts.server.storage.schema import Instant, now

revision = "0012"
down_revision = "0011"


def upgrade() -> None:
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("public_key", sa.Text, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("name", sa.Text, nullable=False, server_default=""),
        sa.Column("created", Instant, nullable=False, server_default=now()),
        sa.Column("used", Instant),
    )
    op.create_index("passkeys_player", "passkeys", ["player_id"])
    op.create_table(
        "player_sessions",
        sa.Column("session_hash", sa.Text, primary_key=True),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created", Instant, nullable=False, server_default=now()),
    )
    op.create_index("player_sessions_player", "player_sessions", ["player_id"])
    op.create_table(
        "auth_challenges",
        sa.Column("challenge", sa.Text, primary_key=True),
        sa.Column("purpose", sa.Text, sa.CheckConstraint("purpose IN ('register', 'sign_in', 'seat')"), nullable=False),
        sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE")),
        sa.Column("expires", sa.Float, nullable=False),
    )
