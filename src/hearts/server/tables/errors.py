"""What a table answers when it refuses something, and what it says during a database outage."""

from __future__ import annotations

from typing import Final

from hearts.server.limits import Refused

UNAVAILABLE: Final = "the database is unavailable; nothing was changed: try again in a few seconds"
"""What a request or message is answered while the database cannot be reached (HTTP 503)."""

RETRY_AFTER_OUTAGE: Final = 2
"""The ``Retry-After`` (seconds) of a 503 answered during a database outage."""


class TableError(Refused):
    """A request that cannot be honoured (unknown table, seat taken, no watching): ``status``
    for HTTP, ``code`` for a WebSocket ``error`` message, ``close_code`` if the connection is
    to be closed."""

