"""The web table's ASGI app (Starlette): the HTTP lobby API, static client, card images, the
WebSocket endpoint for play, health and metrics; and :func:`serve`, which runs it.

:func:`create_app` puts together what the modules of :mod:`hearts.server.http` serve (one a
resource: :mod:`~hearts.server.http.pages`, :mod:`~hearts.server.http.tables`,
:mod:`~hearts.server.http.players`, :mod:`~hearts.server.http.reviews`,
:mod:`~hearts.server.http.ops`, :mod:`~hearts.server.http.play`), their exception handlers
(:mod:`~hearts.server.http.errors`) and the security headers; its lifespan opens the store and
sets the :class:`~hearts.server.http.services.Services` the handlers share.

Each module's docstring lists the routes it serves; the WebSocket messages of ``/ws/{id}`` are
declared in :mod:`hearts.server.wire` (``docs/protocol.md``).

Player profiles (:mod:`hearts.server.players`): a request acts as a profile with
``Authorization: Bearer <key>`` — needed by ``/api/me`` and a claim, optional when creating or
joining a table (the seat is then the profile's; a ``rated`` table, :mod:`.ratings`, needs it);
a missing or unknown key is a 401.

Every request is held to the server's :class:`~hearts.server.limits.Limits`: a body is read
only up to ``max_body`` bytes (413 beyond), a ``POST`` must be JSON (415), JSON is read by
:func:`~hearts.server.protocol.decode_json`, and tables and joins count against the address's
rates (429 with ``Retry-After``). Every refusal is a 4xx (or 503) with ``{"error": "..."}``.
Every response carries :data:`~hearts.server.http.headers.SECURITY_HEADERS`. Invite links are made from ``public_url``,
never from the request's ``Host``.

:func:`serve` runs one server process on SQLite, or on PostgreSQL as many as asked
(``workers``: processes sharing the listening socket, started and restarted by uvicorn's
supervisor; more on other machines, pointed at the same database) and a bot worker
(:mod:`hearts.server.botworker`) beside them. Any process serves any table.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import pickle
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from hearts import fast
from hearts.bots import make_bot
from hearts.bots.registry import BotFactory, adopt, registered
from hearts.errors import HeartsError
from hearts.server import logs
from hearts.server.botpool import watch_parent
from hearts.server.botworker import BotWorkerProcess, WorkerOptions
from hearts.server.http import errors, i18n, ops, pages, passkeys, play, players, quick, reviews, tables
from hearts.server.http.common import check_public_url, is_loopback
from hearts.server.http.headers import SecurityHeaders
from hearts.server.http.services import Services, running
from hearts.server.limits import DEFAULT_LIMITS, AddressGuard, Limits
from hearts.server.lobbyfeed import LobbyFeed
from hearts.server.metrics import Metrics
from hearts.server.protocol import LEVEL_NAMES
from hearts.server.quick import Matchmaker
from hearts.server.relay import relays_for
from hearts.server.reviews import DEFAULT_BUDGET
from hearts.server.storage import StoreError, describe_url, is_postgres, open_storage
from hearts.server.tables import Manager

if TYPE_CHECKING:
    import uvicorn

    from hearts.server.edge import TrustedProxies

DEFAULT_PUBLIC_URL: Final = "http://127.0.0.1:8000"

ROUTES: Final[list[BaseRoute]] = [
    *pages.ROUTES, *i18n.ROUTES, *tables.ROUTES, *players.ROUTES, *reviews.ROUTES, *ops.ROUTES, *play.ROUTES, *quick.ROUTES,
    *passkeys.ROUTES,
]
"""Every route of the app, from the modules of :mod:`hearts.server.http`."""


def create_app(
    db: str | None = None,
    *,
    public_url: str = DEFAULT_PUBLIC_URL,
    bot_delay: float = 0.7,
    bot_workers: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
    review_budget: int = DEFAULT_BUDGET,
    link_host: str = "127.0.0.1",
    bots: Sequence[str] = LEVEL_NAMES,
    metrics_token: str | None = None,
) -> Starlette:
    """The app. ``db``: ``sqlite:///PATH`` or a path (default: the user's data directory), or
    ``postgresql://USER@HOST:PORT/DBNAME``, opened when the app starts (in its event loop) and
    closed when it stops; ``public_url``: the base of invite links
    (``https://hearts.example``); ``bot_delay``: the pause before each bot move (seconds);
    ``bot_workers``: processes the bots think in on SQLite (0: threads; default: one per core,
    at most four) — on PostgreSQL, bots are jobs for bot workers; ``review_budget``: sampled
    deals per decision of the game reviews asked for (computed by this process on SQLite, by
    the bot workers on PostgreSQL); ``link_host``: where this process takes the clients the
    other processes of a service on PostgreSQL relay to it (:mod:`hearts.server.relay`; the
    address they reach this one at); ``bots``: the bot specs the tables may seat (default:
    the four levels; :func:`check_bots` makes the list from ``serve --bots``); ``metrics_token``:
    what lets a scraper elsewhere read ``/metrics`` (``Authorization: Bearer TOKEN``; this
    machine reads it without; :mod:`~hearts.server.http.ops`).

    When it starts, the app opens the store, makes the :class:`~hearts.server.tables.Manager`
    and sets the :class:`~hearts.server.http.services.Services` its handlers share on
    ``app.state.services``."""
    public_url = check_public_url(public_url)
    if isinstance(review_budget, bool) or not isinstance(review_budget, int) or review_budget < 4:
        raise ValueError(f"the review budget is a whole number of sampled deals >= 4, not {review_budget!r}")
    guard = AddressGuard(limits)
    metrics = Metrics()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = await open_storage(db)
        try:
            manager = Manager(store, bot_delay, bot_workers, limits=limits, metrics=metrics)
            app.state.services = Services(
                manager=manager,
                limits=limits, guard=guard, metrics=metrics, public_url=public_url, review_budget=review_budget,
                bots=tuple(bots), metrics_token=metrics_token,
                relays=relays_for(manager, guard, link_host),
                quick=(quick_match := Matchmaker(manager)),
                lobby=LobbyFeed(manager, quick_match, public_url),
            )
            async with running(app.state.services):
                yield
        finally:
            await store.close()

    return Starlette(
        routes=ROUTES,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers=errors.EXCEPTION_HANDLERS,
    )


# --- running the server -------------------------------------------------------------------


class ServeError(ValueError):
    """The server cannot start as asked (its address cannot be listened on, its database cannot
    be opened, an option is wrong); the message is one line that says which and why."""


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (``port`` 0: a free one), or :class:`ServeError` (a
    busy port, an address not this machine's). It listens only once the server can answer
    (uvicorn's start, after the app's): until then a connection is refused, so that a proxy
    tries another process at once instead of waiting in this one's backlog."""
    where = url_of(host, port)
    if not 0 <= port <= 65535:
        raise ServeError(f"cannot listen on {where}: a port is 0 to 65535")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise ServeError(f"cannot listen on {where}: {e.strerror or e}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as e:
        sock.close()
        raise ServeError(f"cannot listen on {where}: {e.strerror or e}") from None
    return sock


def url_of(host: str, port: int) -> str:
    """``http://host:port`` (an IPv6 address in brackets; a wildcard address: this machine's name)."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def check_database(db: str | None) -> str:
    """Open the database ``db`` (creating or migrating its schema), see that it answers, and
    close it: its name (a path, or a URL without its password); or :class:`ServeError`."""

    async def check() -> str:
        store = await open_storage(db)
        try:
            await store.ping()
            return store.name
        finally:
            await store.close()

    try:
        return asyncio.run(check())
    except (OSError, StoreError, ValueError, ImportError) as e:
        reason = " ".join(str(e).split())
        try:
            shown = describe_url(db) if is_postgres(db) else db or "(the default)"  # (never a password)
        except (ImportError, ValueError):
            shown = "(an unreadable URL)"
        raise ServeError(f"cannot open the database {shown}: {reason}") from None


@dataclass(frozen=True)
class AppFactory:
    """Makes the app of one server process in that process (uvicorn calls it: ``factory``);
    sent to each worker process (pickled) when there are several."""

    db: str | None
    public_url: str
    bot_delay: float
    bot_workers: int | None
    limits: Limits
    log_level: str
    parent: int | None = None
    """The supervisor of a worker process: the worker exits when it is gone (SIGKILL)."""
    review_budget: int = DEFAULT_BUDGET
    """Sampled deals per decision of the game reviews asked for."""
    link_host: str = "127.0.0.1"
    """Where the process takes the clients the others relay to it (the host it serves on)."""
    bots: tuple[str, ...] = LEVEL_NAMES
    """The bot specs the tables may seat."""
    registered: tuple[tuple[str, BotFactory], ...] = ()
    """The registered bots ``bots`` name, registered again in a worker process (:func:`adopt`)."""
    metrics_token: str | None = None
    """What lets a scraper other than this machine read ``/metrics``."""

    def __call__(self) -> Starlette:
        logs.configure(self.log_level)
        adopt(self.registered)
        if self.parent is not None:
            watch_parent(self.parent)
        # Every move builds short-lived views and messages: collect the young generation less
        # often, and keep the import-time objects out of the collector's way (shorter pauses).
        # A full collection walks every table held in memory (hundreds of milliseconds with a
        # thousand of them): leave it for rare occasions — reference counting frees the
        # server's garbage, which holds almost no cycles.
        gc.freeze()
        gc.set_threshold(50_000, 50, 1000)
        return create_app(
            self.db, public_url=self.public_url, bot_delay=self.bot_delay, bot_workers=self.bot_workers,
            limits=self.limits, review_budget=self.review_budget, link_host=self.link_host, bots=self.bots,
            metrics_token=self.metrics_token,
        )


DEFAULT_BOT_JOBS: Final = 16
"""Bot jobs the service's own bot worker holds at once (PostgreSQL)."""


def announce(bound: str, public: str | None, database: str) -> None:
    """Say where the server listens, with which database, and who can reach it."""
    print(f"pyhearts web table on {bound}/  (database: {database})", flush=True)
    if public is not None:
        print(f"invite links: {public}/", flush=True)
    elif is_loopback(bound):
        print("only this machine can connect: --host 0.0.0.0 lets others in (--public-url for the links)", flush=True)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    bot_delay: float = 0.7,
    bot_workers: int | None = None,
    *,
    public_url: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    log_level: str = "info",
    forwarded_allow_ips: str | None = None,
    workers: int = 1,
    bot_jobs: int = DEFAULT_BOT_JOBS,
    review_budget: int = DEFAULT_BUDGET,
    bots: Sequence[str] = (),
    metrics_token: str | None = None,
) -> None:
    """Run the server (``hearts serve``) until interrupted: listen on ``host``:``port``, open
    the database ``db``, then print the address; JSON logs go to standard error from
    ``log_level`` up.

    ``public_url`` is the base of invite links (default: the address listened on);
    ``limits``: the server's :class:`~hearts.server.limits.Limits` (each process's);
    ``forwarded_allow_ips``: the proxies (comma-separated addresses and networks, ``*`` for
    any) whose ``X-Forwarded-For`` names the client (default: none, not even 127.0.0.1). A
    connection is closed when it sends no complete request in ``limits.request_timeout``
    seconds, or opens beyond ``limits.tcp_connections_per_address`` (:mod:`.edge`).

    On PostgreSQL: ``workers`` server processes share the socket (a dead one is started
    again), and a bot worker process makes the bots' moves, ``bot_jobs`` at once, thinking in
    ``bot_workers`` processes (``bot_jobs=0``: none here — run ``hearts bot-worker``
    elsewhere). SQLite is served by one process, whose bots think in ``bot_workers``
    processes. ``review_budget``: sampled deals per decision of the game reviews asked for
    (:mod:`hearts.server.reviews`; fewer: faster and less precise). On PostgreSQL, a client
    whose table another process owns is relayed to it over a link on a port of ``host`` the
    system picks (:mod:`hearts.server.relay`). ``bots``: bot specs the
    tables may seat besides the four levels (:func:`check_bots`: registered names,
    ``MODULE:CLASS``, entry points; each must load here, and in the bot worker and server
    processes started here). ``/metrics`` answers this machine only (a loopback client, as
    the server sees it behind its trusted proxies), and a scraper elsewhere that sends
    ``Authorization: Bearer`` ``metrics_token`` (:func:`check_metrics_token`). Raises
    :class:`ServeError` (one line) when it cannot start.
    """
    public, proxies = check_options(db, public_url, log_level, forwarded_allow_ips, workers, bot_jobs, review_budget)
    offered = check_bots(bots)
    metrics_token = check_metrics_token(metrics_token)
    registered = bots_registered(offered, spawned=workers > 1 or (is_postgres(db) and bot_jobs > 0))
    sock = bind(host, port)
    bot_worker: BotWorkerProcess | None = None
    try:
        name = check_database(db)
        if not is_postgres(db):  # (on PostgreSQL the bot workers run the bots, and prepare them)
            # The bots' compiled kernel: compiled (the first time) and cached now, before anyone plays.
            fast.prepare(lambda line: print(line, flush=True), extra="web")
        bound = url_of(host, sock.getsockname()[1])
        factory = AppFactory(db, public or bound, bot_delay, bot_workers, limits, log_level,
                             parent=os.getpid() if workers > 1 else None, review_budget=review_budget,
                             link_host=host, bots=offered, registered=registered,
                             metrics_token=metrics_token)
        config = uvicorn_config(factory, workers, proxies)
        if is_postgres(db) and bot_jobs > 0:
            bot_worker = BotWorkerProcess(WorkerOptions(db, jobs=bot_jobs, processes=bot_workers, log_level=log_level,
                                                        registered=registered))
            bot_worker.start()
        run(config, sock, workers, listening=lambda: announce(bound, public, name))
    finally:
        if bot_worker is not None:
            bot_worker.stop()
        sock.close()


def run(config: uvicorn.Config, sock: socket.socket, workers: int, listening: Callable[[], None]) -> None:
    """Serve on the bound socket ``sock`` until asked to stop: in one process that drains when it
    stops (:mod:`~hearts.server.drain`; ``listening()`` once it listens), or in ``workers``
    processes (no drain: they stop together). :class:`ServeError` if it stopped while starting."""
    from uvicorn.supervisors import Multiprocess

    from hearts.server.drain import DrainingServer

    if workers > 1:
        sock.listen(2048)
        listening()
        Multiprocess(config, sockets=[sock]).run()
        return
    server = DrainingServer(config, listening=listening)
    server.run(sockets=[sock])
    if not server.started:
        raise ServeError("the server stopped while starting (see the log above)")


def check_options(
    db: str | None,
    public_url: str | None,
    log_level: str,
    forwarded_allow_ips: str | None,
    workers: int,
    bot_jobs: int,
    review_budget: int,
) -> tuple[str | None, TrustedProxies]:
    """:func:`serve`'s options checked (the logs configured): the public URL (``None``: the
    address listened on) and the trusted proxies; or :class:`ServeError`."""
    from hearts.server.edge import TrustedProxies

    try:
        logs.configure(log_level)
        public = check_public_url(public_url) if public_url is not None else None
        proxies = TrustedProxies.parse(forwarded_allow_ips)
    except ValueError as e:
        raise ServeError(str(e)) from None
    if workers < 1:
        raise ServeError(f"--workers must be 1 or more, not {workers}")
    if bot_jobs < 0:
        raise ServeError(f"--bot-jobs must be 0 or more, not {bot_jobs}")
    if review_budget < 4:
        raise ServeError(f"--review-budget must be 4 sampled deals or more, not {review_budget}")
    if workers > 1 and not is_postgres(db):
        raise ServeError(f"--workers {workers} needs PostgreSQL (--db postgresql://…): a SQLite database is "
                         "served by one process")
    return public, proxies


def check_metrics_token(token: str | None) -> str | None:
    """The token that opens ``/metrics`` to a scraper elsewhere (``None``: none, this machine
    only): at least 16 printable ASCII characters without spaces, else :class:`ServeError`.

    >>> check_metrics_token("a-long-enough-token"), check_metrics_token(None)
    ('a-long-enough-token', None)
    >>> check_metrics_token("short")
    Traceback (most recent call last):
    ...
    hearts.server.app.ServeError: --metrics-token: a token of 16 or more printable ASCII characters without spaces (such as: python -c 'import secrets; print(secrets.token_urlsafe(24))')
    """
    if token is None:
        return None
    if len(token) < 16 or not token.isascii() or not token.isprintable() or " " in token:
        raise ServeError("--metrics-token: a token of 16 or more printable ASCII characters without spaces "
                         "(such as: python -c 'import secrets; print(secrets.token_urlsafe(24))')")
    return token


def check_bots(bots: Sequence[str]) -> tuple[str, ...]:
    """The bot specs a service offers: the four levels, then ``bots`` (each made once here, so
    that one which does not load — an unknown name, a module not on the path, an entry point
    that fails, an unknown option — stops the server before it starts); or :class:`ServeError`
    naming the spec.

    >>> check_bots(["random", "hard", "hearts.bots.base:RandomBot"])
    ('easy', 'medium', 'hard', 'expert', 'random', 'hearts.bots.base:RandomBot')
    >>> check_bots(["nobody"])
    Traceback (most recent call last):
    ...
    hearts.server.app.ServeError: --bots nobody: unknown bot 'nobody'; known bots: random, ...
    """
    for spec in bots:
        try:
            make_bot(spec, seed=0)
        except HeartsError as e:
            raise ServeError(f"--bots {spec}: {e}") from None
    return tuple(dict.fromkeys([*LEVEL_NAMES, *(spec.strip() for spec in bots)]))


def bots_registered(bots: Sequence[str], *, spawned: bool) -> tuple[tuple[str, BotFactory], ...]:
    """The registered bots ``bots`` name (:func:`~hearts.bots.registry.registered`), to register
    again in the processes the server starts; when it starts some (``spawned``), each factory
    must be picklable (a class of an importable module), else :class:`ServeError`."""
    found = registered(bots)
    if spawned:
        for name, factory in found:
            try:
                pickle.dumps(factory)
            except (pickle.PicklingError, TypeError, AttributeError) as e:
                raise ServeError(
                    f"--bots {name}: its factory cannot be sent to the bot worker and server processes ({e}); "
                    "register a class of an importable module, or use a MODULE:CLASS spec or an entry point"
                ) from None
    return found


def uvicorn_config(factory: AppFactory, workers: int, proxies: TrustedProxies) -> uvicorn.Config:
    """The configuration of uvicorn serving the apps ``factory`` makes, in ``workers`` processes,
    behind ``proxies``."""
    import uvicorn

    from hearts.server.edge import protocol_factory

    limits = factory.limits
    return uvicorn.Config(
        factory,
        factory=True,
        workers=workers,
        ws_max_size=max(64 * 1024, limits.max_message * 4),
        log_config=None,
        access_log=False,
        limit_concurrency=limits.max_connections,
        http=protocol_factory(limits, proxies),
        proxy_headers=bool(proxies.text),
        forwarded_allow_ips=proxies.text or None,
    )
