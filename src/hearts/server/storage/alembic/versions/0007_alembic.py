"""Alembic keeps the schema's version from here on (``alembic_version``). The markers of the
versions before it are retired: PostgreSQL's ``schema_version`` table is dropped, and SQLite's
``PRAGMA user_version`` set to 7, so that a server of before this change refuses the database
(it knew versions up to 6) instead of writing to it."""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    if op.get_context().dialect.name == "sqlite":
        op.execute("PRAGMA user_version = 7")
    else:
        op.execute("DROP TABLE IF EXISTS schema_version")
