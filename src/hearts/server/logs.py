"""The web server's logs: one JSON object per line on standard error.

Each line holds ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``process`` (the process id:
a service may run many server processes and bot workers) and ``event`` (the message), then
the event's own fields, given as ``extra=fields(...)``; an exception adds ``error`` (its
traceback). Secrets are never logged: no token, no hash of one, no message a client sent.

>>> import io
>>> stream = io.StringIO()
>>> log = logging.getLogger("hearts.example")
>>> handler = logging.StreamHandler(stream)
>>> handler.setFormatter(JsonFormatter())
>>> log.addHandler(handler)
>>> log.warning("table created", extra=fields(table="t1", seats=4))
>>> line = json.loads(stream.getvalue())
>>> line["level"], line["logger"], line["event"], line["table"], line["seats"]
('warning', 'hearts.example', 'table created', 't1', 4)
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone
from typing import Any

LEVELS = ("debug", "info", "warning", "error")
"""The levels :func:`configure` accepts."""


def fields(**values: Any) -> dict[str, Any]:
    """An event's fields, for a logging call's ``extra``: ``log.info("joined", extra=fields(table=t))``."""
    return {"fields": values}


class JsonFormatter(logging.Formatter):
    """Formats a log record as one line of JSON (see the module)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "process": record.process,
            "event": record.getMessage(),
        }
        out.update(getattr(record, "fields", {}))
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, separators=(",", ":"))


def configure(level: str = "info") -> None:
    """Send every logger's records (the server's and uvicorn's) as JSON lines to standard
    error, from ``level`` up (one of :data:`LEVELS`; :class:`ValueError` otherwise)."""
    if level not in LEVELS:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Alembic's lines of set-up at each start (hearts.server.storage.migrate says what it migrated)
    logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))
