"""The web server's Prometheus metrics (``GET /metrics``), in a registry of its own.

=================================  =========================================================
``hearts_tables_open``             unfinished tables served
``hearts_connections``             open WebSocket connections
``hearts_moves_total{by}``         accepted actions (``by``: ``person``, ``bot``, ``stand_in``);
                                   moves per second is its ``rate()``
``hearts_move_broadcast_seconds``  from an action's arrival (a message, or a bot's decision) to
                                   its broadcast queued for every client: check, apply, commit
``hearts_bot_queue_depth{lane}``   bot decisions waiting for a worker (``lane``: ``people``,
                                   tables with people; ``bots_only``, all-bot tables)
``hearts_bot_wait_seconds{lane}``  how long a bot decision waited for a worker
``hearts_refused_total{code}``     requests and messages refused by a limit or as malformed
``hearts_database_errors_total``   requests and messages answered "unavailable" (503): the
                                   database could not be reached
``hearts_internal_errors_total``   requests and messages that failed unexpectedly (a bug: 500)
``hearts_database_pool_*``         PostgreSQL's connection pool: ``size``, ``available`` and
                                   ``waiting`` now; ``waits_total``, ``wait_seconds_total``,
                                   ``timeouts_total`` (a wait past its limit),
                                   ``connection_errors_total`` and ``deadlines_total`` (calls
                                   given up as the database stayed silent: frozen) since the start
=================================  =========================================================

Each accepted action is also logged (:meth:`Metrics.accepted`): table, seat, action type, who
acted and the latency. The metrics are this process's: on PostgreSQL a service's moves are the
sum over its server processes of ``hearts_moves_total`` (each counts the actions it accepted
as its tables' owner, the bots' moves the bot workers send it included); the tables and
connections are those each serves.

>>> m = Metrics()
>>> m.moves.labels("person").inc()
>>> b"hearts_moves_total{by=\\"person\\"} 1.0" in m.render()
True
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Final, Literal, get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from hearts.actions import Action, to_dict
from hearts.server.logs import fields

log = logging.getLogger("hearts.server")

Actor = Literal["person", "bot", "stand_in"]
"""Who made an accepted action: the seat's person, the seat's bot, or the stand-in bot that
plays for an absent person."""

ACTORS: Final = get_args(Actor)
"""Every :data:`Actor`."""

LATENCY_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5)
WAIT_BUCKETS: Final = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The media type of :meth:`Metrics.render`'s text."""


class Metrics:
    """The metrics of one server (see the module); gauges of state are read when scraped."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.tables = Gauge("hearts_tables_open", "Unfinished tables served.", registry=r)
        self.connections = Gauge("hearts_connections", "Open WebSocket connections.", registry=r)
        self.relayed = Gauge("hearts_relayed_connections",
                             "WebSocket connections relayed to their tables' owners in other processes.", registry=r)
        self.moves = Counter("hearts_moves", "Accepted actions (passes, plays, moon choices).", ["by"], registry=r)
        self._moves_by = {by: self.moves.labels(by) for by in ACTORS}
        """Each actor's child of :attr:`moves` (a label lookup costs more than the count)."""
        self.latency = Histogram(
            "hearts_move_broadcast_seconds", "From an action's arrival to its broadcast queued.",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.append = Histogram(
            "hearts_log_append_seconds", "How long an accepted action waited for its row of the log to be committed.",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.bot_queue = Gauge("hearts_bot_queue_depth", "Bot decisions waiting for a worker.", ["lane"], registry=r)
        self.bot_wait = Histogram(
            "hearts_bot_wait_seconds", "How long a bot decision waited for a worker.", ["lane"],
            buckets=WAIT_BUCKETS, registry=r,
        )
        self.refused = Counter("hearts_refused", "Requests and messages refused.", ["code"], registry=r)
        self.database_errors = Counter(
            "hearts_database_errors", "Requests and messages answered unavailable: the database could not be reached.",
            registry=r,
        )
        self.internal_errors = Counter(
            "hearts_internal_errors", "Requests and messages that failed unexpectedly.", registry=r
        )

    def watch_pool(self, stats: Callable[[], Mapping[str, int]]) -> None:
        """Show a connection pool's figures (``PostgresStorage.pool_stats``, read when scraped)
        as ``hearts_database_pool_*``."""
        self.registry.register(_PoolCollector(stats))

    def accepted(self, table_id: str, action: Action, by: Actor, arrived: float) -> None:
        """Count an accepted action, observe its latency (since ``arrived``, a
        :func:`time.perf_counter` reading) and log it."""
        latency = time.perf_counter() - arrived
        self._moves_by[by].inc()
        self.latency.observe(latency)
        if log.isEnabledFor(logging.INFO):
            log.info("action", extra=fields(
                table=table_id, seat=action.seat, action=to_dict(action)["type"], by=by,
                latency_ms=round(latency * 1000, 3),
            ))

    def render(self) -> bytes:
        """The metrics in Prometheus' text format (:data:`CONTENT_TYPE`)."""
        return generate_latest(self.registry)


class _PoolCollector(Collector):
    """``hearts_database_pool_*`` from a pool's ``get_stats()`` figures, read at each scrape."""

    GAUGES: Final = {"size": "pool_size", "available": "pool_available", "waiting": "requests_waiting"}
    COUNTERS: Final = {
        "waits": ("requests_queued", 1.0), "wait_seconds": ("requests_wait_ms", 0.001),
        "timeouts": ("requests_errors", 1.0), "connection_errors": ("connections_errors", 1.0),
        "deadlines": ("deadlines", 1.0),
    }

    def __init__(self, stats: Callable[[], Mapping[str, int]]) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        figures = self.stats()
        for name, key in self.GAUGES.items():
            yield GaugeMetricFamily(f"hearts_database_pool_{name}", f"The connection pool's {key}.",
                                    value=figures.get(key, 0))
        for name, (key, scale) in self.COUNTERS.items():
            yield CounterMetricFamily(f"hearts_database_pool_{name}", f"The connection pool's {key} since the start.",
                                      value=figures.get(key, 0) * scale)
