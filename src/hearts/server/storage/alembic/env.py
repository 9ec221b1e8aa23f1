"""Alembic's environment for pyhearts: run by :func:`hearts.server.storage.migrate.upgrade` on a
connection it opened (no ``alembic.ini``: the configuration is built in code)."""

from __future__ import annotations

from alembic import context

from hearts.server.storage.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
