"""Quick match: the queue of players waiting to be seated with strangers, shared by every
server process."""

from __future__ import annotations

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    pass
