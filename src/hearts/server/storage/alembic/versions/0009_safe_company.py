"""Safe company among strangers: mutes, blocks, reports and bans of player profiles."""

from __future__ import annotations

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    pass
