"""The schema's versions: one Alembic history for SQLite and PostgreSQL alike, run when a store
opens (no ``alembic.ini``: :func:`upgrade` builds the configuration in code).

The revisions are ``storage/alembic/versions/000N_*.py``; revision N makes what the schema's
version N holds on both databases (the bot and hint jobs on PostgreSQL only). A database made
before Alembic kept its version elsewhere — SQLite in ``PRAGMA user_version``, PostgreSQL in a
``schema_version`` table — and is adopted where it stands: stamped at that revision, then
upgraded like any other (revision 7 retires the old markers). SQLite's first version (a log of
``deal``, ``pass``, ``play`` and ``moon`` events, ``user_version`` 0) is rewritten first
(:func:`migrate_v1`). All of it runs in one transaction: a database that cannot be migrated is
left as it was.

>>> SCHEMA_VERSION
13
"""

from __future__ import annotations

import json
import logging
from importlib import resources
from typing import Any, Final

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from hearts.actions import Action, Moon, Pass, Play, to_json
from hearts.errors import HeartsError
from hearts.server.storage import SchemaError

log = logging.getLogger("hearts.server")


def _config(conn: sa.Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("hearts.server.storage") / "alembic"))
    cfg.attributes["connection"] = conn
    return cfg


HEAD: Final = ScriptDirectory.from_config(_config()).get_current_head() or "0000"
SCHEMA_VERSION: Final = int(HEAD)
"""The newest schema version (its Alembic revision, ``0010``, as a number)."""


def version(conn: sa.Connection) -> int | None:
    """The schema version a database is at (``None``: an empty database).

    Alembic's revision if it has one, else the version an older server wrote (SQLite's
    ``user_version``, PostgreSQL's ``schema_version``)."""
    revision = MigrationContext.configure(conn).get_current_revision()
    if revision is not None:
        return int(revision)
    names = set(sa.inspect(conn).get_table_names())
    if conn.dialect.name == "sqlite":
        found = int(conn.exec_driver_sql("PRAGMA user_version").scalar_one())
        return found if names & {"tables", "events"} else None
    if "schema_version" in names:
        return int(conn.execute(sa.text("SELECT coalesce(max(version), 0) FROM schema_version")).scalar_one())
    return None


def upgrade(conn: sa.Connection, target: str = "head") -> int:
    """Bring a database to revision ``target`` (the newest by default) in the transaction
    ``conn`` is in, and return its version; :class:`~hearts.server.storage.SchemaError` for a
    database newer than this code, or an old one that cannot be migrated."""
    found = version(conn)
    if found is not None and found > SCHEMA_VERSION:
        raise SchemaError(f"the database has schema version {found}; this server knows versions up to {SCHEMA_VERSION}")
    cfg = _config(conn)
    if found is not None and MigrationContext.configure(conn).get_current_revision() is None:
        if found == 0:  # SQLite's first version
            migrate_v1(conn)
            found = 2
        command.stamp(cfg, f"{found:04d}")
    command.upgrade(cfg, target)
    reached = int(MigrationContext.configure(conn).get_current_revision() or 0)
    if reached != found:
        log.info("database schema %s version %d", "created at" if found is None else f"migrated from {found} to", reached)
    return reached


def migrate_v1(conn: sa.Connection) -> None:
    """Rewrite a first-version SQLite database (what version 2 made of it): each table's
    ``events`` (``deal``, ``pass``, ``play``, ``moon`` rows with a kind, a seat and data) become
    its ``actions`` in the codec, and its logged deals its explicit ``deals``.

    The restore replays them as ``Game(rules, seed, deals=deals)``, which gives the logged
    rounds exactly (the first version logged a round's deal as it began). The rounds an
    unfinished table has not begun yet are then the seed's deals, where the first version would
    have shuffled them from ``random.Random(f"{seed}:{len(deals)}")``: they differ from what it
    would have dealt — as random, and fixed from then on.

    A row that is no action raises :class:`~hearts.server.storage.SchemaError` (naming the
    table and row), and the transaction leaves the database as it was.
    """
    conn.exec_driver_sql("ALTER TABLE tables ADD COLUMN deals TEXT")
    conn.exec_driver_sql(
        "CREATE TABLE actions (table_id TEXT NOT NULL REFERENCES tables(id), seq INTEGER NOT NULL,"
        " data TEXT NOT NULL, PRIMARY KEY (table_id, seq))"
    )
    events: dict[str, list[tuple[int, str, int | None, str]]] = {}
    for table_id, seq, kind, seat, data in conn.exec_driver_sql(
        "SELECT table_id, seq, kind, seat, data FROM events ORDER BY table_id, seq"
    ):
        events.setdefault(table_id, []).append((seq, kind, seat, data))
    for table_id, rows in events.items():
        deals: list[list[str]] = []
        actions: list[tuple[str, int, str]] = []
        for seq, kind, seat, data in rows:
            try:
                fields = json.loads(data)
                if kind == "deal":
                    deals.append([str(hand) for hand in fields["hands"]])
                    continue
                actions.append((table_id, len(actions) + 1, to_json(_v1_action(kind, seat, fields))))
            except (HeartsError, KeyError, TypeError, ValueError) as e:
                raise SchemaError(f"table {table_id}: event {seq} ({kind}) cannot be migrated: {e}") from None
        if actions:
            conn.exec_driver_sql("INSERT INTO actions (table_id, seq, data) VALUES (?, ?, ?)", actions)
        conn.exec_driver_sql("UPDATE tables SET deals = ? WHERE id = ?", (json.dumps(deals), table_id))
    conn.exec_driver_sql("DROP TABLE events")


def _v1_action(kind: str, seat: int | None, fields: dict[str, Any]) -> Action:
    """A first-version event row as an action (``seat`` must be a seat number)."""
    if not isinstance(seat, int):
        raise TypeError(f"its seat is {seat!r}")
    if kind == "pass":
        return Pass(seat, fields["cards"])
    if kind == "play":
        return Play(seat, fields["card"])
    if kind == "moon":
        return Moon(seat, fields["choice"])
    raise ValueError(f"unknown kind {kind!r}")
