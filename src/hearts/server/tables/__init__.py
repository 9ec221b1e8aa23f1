"""The web server's tables: one game each, served one action at a time, with their parts.

* :mod:`~hearts.server.tables.table` — :class:`Table`: the game, its seats and clients, and
  every action's path (checked, applied, committed to the log, then broadcast);
* :mod:`~hearts.server.tables.messages` — what the table says (state messages, R7);
* :mod:`~hearts.server.tables.presence` — who is there, through every process;
* :mod:`~hearts.server.tables.clocks` — the turn timer;
* :mod:`~hearts.server.tables.bots` — this process's bots (SQLite);
* :mod:`~hearts.server.tables.hints` — hints;
* :mod:`~hearts.server.tables.talk` — chat, names, the rematch;
* :mod:`~hearts.server.tables.follow` — catching up with what other processes log (PostgreSQL);
* :mod:`~hearts.server.tables.connection` — a WebSocket client's queue and writer;
* :mod:`~hearts.server.tables.manager` — :class:`Manager`: the tables of one process;
* :mod:`~hearts.server.tables.notices` — the notices a process hears and tells.

Many processes serve one service (PostgreSQL), but one owns each table and serves all its
clients (the others relay theirs to it); a copy another process keeps (an HTTP read's) reads
what the owner logged from the log when the store's notices say there is more. The database
decides the order of actions (:class:`~hearts.server.storage.SeqConflict`).
"""

from hearts.server.tables.connection import Connection
from hearts.server.tables.errors import RETRY_AFTER_OUTAGE, UNAVAILABLE, TableError
from hearts.server.tables.manager import Manager
from hearts.server.tables.messages import public_event
from hearts.server.tables.names import FRIENDLY_NAMES, TABLE_ID, rematch_id
from hearts.server.tables.presence import ALIVE_EVERY, Roster
from hearts.server.tables.table import Table

__all__ = [
    "ALIVE_EVERY",
    "FRIENDLY_NAMES",
    "RETRY_AFTER_OUTAGE",
    "TABLE_ID",
    "UNAVAILABLE",
    "Connection",
    "Manager",
    "Roster",
    "Table",
    "TableError",
    "public_event",
    "rematch_id",
]
