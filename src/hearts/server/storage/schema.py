"""The database's schema, declared once for SQLite and PostgreSQL (SQLAlchemy Core).

Every query of :mod:`hearts.server.storage.sql` and :mod:`hearts.server.storage.postgres` is
built from these :class:`~sqlalchemy.Table` objects; the Alembic revisions in
``storage/alembic/versions`` create them (:mod:`hearts.server.storage.migrate`). Where the two
databases store a value differently, a column type says so once:

* :class:`Instant`: a moment, ``timestamptz`` on PostgreSQL and a Julian day number (``REAL``)
  on SQLite, as SQLite's ``julianday('now')`` gives (what the SQLite schema has always held);
  :class:`UnixInstant`: the same on PostgreSQL, Unix seconds on SQLite (a review's lease).
* :data:`Document`: a JSON value, ``jsonb`` on PostgreSQL and its text on SQLite;
  :data:`Codec`: an action's codec object, ``json`` on PostgreSQL (its text kept as written).

>>> from sqlalchemy.dialects import postgresql, sqlite
>>> from sqlalchemy.schema import CreateTable
>>> print(str(CreateTable(tables).compile(dialect=sqlite.dialect())).strip().splitlines()[2])
created FLOAT DEFAULT (julianday('now')) NOT NULL,
>>> print(str(CreateTable(tables).compile(dialect=postgresql.dialect())).strip().splitlines()[2])
created TIMESTAMP WITH TIME ZONE DEFAULT now() NOT NULL,
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import FunctionElement

JULIAN_EPOCH = 2440587.5
"""The Julian day number of 1970-01-01 00:00 UTC."""


class now(FunctionElement[datetime]):
    """The database's clock, as an :class:`Instant` column holds it: ``now()`` on PostgreSQL,
    ``julianday('now')`` on SQLite."""

    type = sa.DateTime(timezone=True)
    inherit_cache = True


@compiles(now)
def _now(element: now, compiler: SQLCompiler, **kw: Any) -> str:
    return "now()"


@compiles(now, "sqlite")
def _now_sqlite(element: now, compiler: SQLCompiler, **kw: Any) -> str:
    return "julianday('now')"


class unix_now(FunctionElement[float]):
    """The database's clock as a :class:`UnixInstant` column holds it: ``now()`` on
    PostgreSQL, Unix seconds on SQLite."""

    type = sa.Float()
    inherit_cache = True


@compiles(unix_now)
def _unix_now(element: unix_now, compiler: SQLCompiler, **kw: Any) -> str:
    return "now()"


@compiles(unix_now, "sqlite")
def _unix_now_sqlite(element: unix_now, compiler: SQLCompiler, **kw: Any) -> str:
    return f"((julianday('now') - {JULIAN_EPOCH}) * 86400.0)"


class seconds(FunctionElement[float]):
    """A duration of ``n`` seconds to add to :class:`unix_now`: an interval on PostgreSQL,
    the number itself on SQLite."""

    type = sa.Float()
    inherit_cache = True


@compiles(seconds)
def _seconds(element: seconds, compiler: SQLCompiler, **kw: Any) -> str:
    return f"make_interval(secs => {compiler.process(element.clauses, **kw)})"


@compiles(seconds, "sqlite")
def _seconds_sqlite(element: seconds, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.clauses, **kw)})"


class Instant(sa.TypeDecorator[datetime]):
    """A moment (an aware ``datetime``): ``timestamptz`` on PostgreSQL, a Julian day number on
    SQLite."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True
    unit_days = True

    def load_dialect_impl(self, dialect: sa.Dialect) -> sa.types.TypeEngine[Any]:
        return dialect.type_descriptor(sa.Float() if dialect.name == "sqlite" else sa.DateTime(timezone=True))

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> Any:
        if value is None or dialect.name != "sqlite":
            return value
        unix = value.timestamp()
        return unix / 86400.0 + JULIAN_EPOCH if self.unit_days else unix

    def process_result_value(self, value: Any, dialect: sa.Dialect) -> datetime | None:
        if value is None or dialect.name != "sqlite":
            return value  # type: ignore[no-any-return]
        unix = (value - JULIAN_EPOCH) * 86400.0 if self.unit_days else value
        return datetime.fromtimestamp(unix, timezone.utc)


class UnixInstant(Instant):
    """A moment: ``timestamptz`` on PostgreSQL, Unix seconds on SQLite."""

    cache_ok = True
    unit_days = False


Document = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
"""A JSON value: ``jsonb`` on PostgreSQL, its text on SQLite."""
Codec = sa.JSON()
"""An action's codec object (or a review): ``json`` on PostgreSQL, its text on SQLite."""
SeatNumber = sa.SmallInteger().with_variant(sa.Integer(), "sqlite")
Serial = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""An increasing id (SQLite: the rowid, ``INTEGER PRIMARY KEY``)."""

metadata = sa.MetaData()

tables = sa.Table(
    "tables", metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("created", Instant, nullable=False, server_default=now()),
    sa.Column("config", Document, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("deals", Document),
)
"""A table: its config (rules, spectators, …), the seed its deals are shuffled from, whether
its game is over, and the explicit deals of its first rounds (a migrated table's; ``NULL``:
the seed's)."""

seats = sa.Table(
    "seats", metadata,
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", SeatNumber, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("name", sa.Text),
    sa.Column("bot", sa.Text),
    sa.Column("token_hash", sa.Text),
    sa.Column("away", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("player_id", sa.Text, sa.ForeignKey("players.id")),
)
"""A table's seats: ``human``, ``open`` or ``bot``, a name, a bot's spec, the sha256 of a person
seat's token, whether its person is away, and the player profile that took it."""

actions = sa.Table(
    "actions", metadata,
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("data", Codec, nullable=False),
)
"""The log: one row per accepted action. The primary key decides the order: of two appends of
one ``seq``, exactly one commits."""

players = sa.Table(
    "players", metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("key_hash", sa.Text, nullable=False, unique=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created", Instant, nullable=False, server_default=now()),
    sa.Column("chat", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("language", sa.Text, nullable=True),
    sa.Column("guide", Document, nullable=True),
)
"""Player profiles: a name, the sha256 of a secret key the browser keeps, an OpenSkill rating,
whether the player reads and writes the tables' chat (``chat``, revision 0009), the language
chosen for the web table (``language``, revision 0011; null: the browser's), what became of the
guided first game (``guide``, revision 0013: ``{status, table, seen}``; null: never offered)."""

rated_games = sa.Table(
    "rated_games", metadata,
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("rated", Instant, nullable=False, server_default=now()),
    sa.Column("changes", Document, nullable=False, server_default="{}"),
)
"""The rated games settled (one row per table: a game is rated once), with each player's
rating before and after."""

table_talk = sa.Table(
    "table_talk", metadata,
    sa.Column("id", Serial, sa.Identity(always=True), primary_key=True),
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
    sa.Column("seat", SeatNumber, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("sent", Instant, nullable=False, server_default=now()),
)
"""Chat messages between the players of a table."""

review_jobs = sa.Table(
    "review_jobs", metadata,
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", SeatNumber, primary_key=True),
    sa.Column("budget", sa.Integer, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="queued"),
    sa.Column("done", sa.Integer, nullable=False, server_default="0"),
    sa.Column("total", sa.Integer, nullable=False, server_default="0"),
    sa.Column("review", Codec),
    sa.Column("error", sa.Text),
    sa.Column("requested", Instant, nullable=False, server_default=now()),
    sa.Column("worker", sa.Text),
    sa.Column("lease_until", UnixInstant),
    sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
    sa.Column("tries", sa.Integer, nullable=False, server_default="0"),
)
"""Game reviews asked for, one per table and seat: progress, the runner holding one (its lease's
end, its claim number ``attempt``, the claims since it was queued ``tries``), the result."""

bot_jobs = sa.Table(
    "bot_jobs", metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False),
    sa.Column("seat", sa.SmallInteger, nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("queued", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.Column("worker", sa.Text),
    sa.Column("lease_until", sa.DateTime(timezone=True)),
    sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
    info={"postgresql_only": True},
)
"""PostgreSQL only (:mod:`hearts.server.storage.postgres`): bot seats to act at a position,
claimed by bot workers under a lease."""

hint_jobs = sa.Table(
    "hint_jobs", metadata,
    sa.Column("table_id", sa.Text, sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.SmallInteger, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("queued", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.Column("result", sa.JSON),
    sa.Column("worker", sa.Text),
    sa.Column("lease_until", sa.DateTime(timezone=True)),
    sa.Column("attempt", sa.Integer, nullable=False, server_default="0"),
    info={"postgresql_only": True},
)
"""PostgreSQL only: one hint per seat and position, computed by a bot worker."""

table_leases = sa.Table(
    "table_leases", metadata,
    sa.Column("table_id", sa.Text, primary_key=True),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("epoch", sa.BigInteger, nullable=False),
    sa.Column("until", Instant, nullable=False),
)
"""Which server process owns each table (used on PostgreSQL; SQLite's one process owns them
all): the holder, the fencing epoch (one more at each new holder: a row is kept once made, so
the epochs of a table never go back), and when the lease runs out unless renewed. No foreign
key: a process may claim a table it is about to create."""

player_marks = sa.Table(
    "player_marks", metadata,
    sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("other_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("kind", sa.Text, primary_key=True),
    sa.Column("created", Instant, nullable=False, server_default=now()),
)
"""A player's marks on another (revision 0009): ``mute`` (the other's chat hidden from the
player) or ``block`` (their chat hidden both ways, and never seated together)."""

player_bans = sa.Table(
    "player_bans", metadata,
    sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    sa.Column("created", Instant, nullable=False, server_default=now()),
)
"""The banned profiles (revision 0009, ``hearts admin ban``): they cannot sit, chat or queue."""

player_reports = sa.Table(
    "player_reports", metadata,
    sa.Column("id", Serial, sa.Identity(always=True), primary_key=True),
    sa.Column("created", Instant, nullable=False, server_default=now()),
    sa.Column("reporter", sa.Text, nullable=False),
    sa.Column("reported", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("table_id", sa.Text),
    sa.Column("chat", Document, nullable=False),
    sa.Column("record", Document),
)
"""Reports of a player by another (revision 0009), for the operator (``hearts admin
reports``): the reason, the table, and a copy of its chat and record as they were (no foreign
keys: a report outlives what it names)."""

passkeys = sa.Table(
    "passkeys", metadata,
    sa.Column("credential_id", sa.Text, primary_key=True),
    sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    sa.Column("public_key", sa.Text, nullable=False),
    sa.Column("sign_count", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("name", sa.Text, nullable=False, server_default=""),
    sa.Column("created", Instant, nullable=False, server_default=now()),
    sa.Column("used", Instant),
)
"""A profile's passkeys (revision 0012, :mod:`hearts.server.passkeys`): each WebAuthn
credential's id and COSE public key (base64url), the authenticator's signature counter, a
name for the profile page, when it was made and last used to sign in."""

player_sessions = sa.Table(
    "player_sessions", metadata,
    sa.Column("session_hash", sa.Text, primary_key=True),
    sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created", Instant, nullable=False, server_default=now()),
)
"""Sign-in sessions (revision 0012): the sha256 of each session cookie's secret and its
profile; signing out deletes one, signing out everywhere all of a profile's."""

auth_challenges = sa.Table(
    "auth_challenges", metadata,
    sa.Column("challenge", sa.Text, primary_key=True),
    sa.Column("purpose", sa.Text, nullable=False),
    sa.Column("player_id", sa.Text, sa.ForeignKey("players.id", ondelete="CASCADE")),
    sa.Column("expires", sa.Float, nullable=False),
)
"""The secrets given out for a while (revision 0012): the WebAuthn challenges, ``register`` (a
profile adds a passkey) or ``sign_in``, each taken once (deleted as it is checked: any process
may finish a ceremony another began); and ``seat`` tickets (the hash of a table's id and the
ticket), which open a profile's seat at that table on another device. Until when: Unix seconds."""

quick_queue = sa.Table(
    "quick_queue", metadata,
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
"""The quick-match queue (:mod:`hearts.server.quick`): one row per player waiting (the primary
key: one queue per player), with the preset asked for (or ``any``), rated or not, the rating
``mu`` the matchmaker compares, the seconds after which bots fill the empty seats, when the
player joined and was last heard of (Unix seconds, by the servers' clocks) and the connection
that holds the place; once seated, the table, seat, its token, the bots and whether the seat
was a bot's (taken before the round's first card), until the player is told (the row is then
deleted)."""
