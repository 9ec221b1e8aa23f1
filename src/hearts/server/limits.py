"""What the web server accepts: every limit and its default in one place (:class:`Limits`),
the refusals it answers with (:class:`Refused` and its kinds), and the per-address rates and
connection counts (:class:`AddressGuard`, counted in sliding windows: :class:`SlidingWindows`).

A rate is written in the ``limits`` library's notation, such as ``"10/minute"`` or
``"20 per second"``. :meth:`Limits.from_strings` reads ``NAME=VALUE`` items (the ``--limit``
options of ``hearts serve``)::

>>> limits = Limits.from_strings(["tables_rate=30/minute", "hello_timeout=2.5"])
>>> limits.tables_rate, limits.hello_timeout, limits.max_body
('30/minute', 2.5, 16384)
>>> Limits.from_strings(["tables=3"])
Traceback (most recent call last):
...
ValueError: unknown limit 'tables'; known limits: max_body, max_message, max_json_depth, max_number_digits, max_name, max_chat, tables_rate, joins_rate, connect_rate, messages_rate, connections_per_address, hello_timeout, hello_attempts, max_spectators, max_connections, request_timeout, tcp_connections_per_address, max_tables, bot_tables_per_address, max_bot_tables, max_turn_timer, min_bot_pace, max_bot_pace, play_clock, pass_clock, missed_turns, lobby_size, chat_rate, reviews_rate, max_reviews
>>> guard = AddressGuard(Limits(tables_rate="2/minute"))
>>> guard.hit("tables", "192.0.2.7"); guard.hit("tables", "192.0.2.7")
>>> guard.hit("tables", "192.0.2.7")
Traceback (most recent call last):
...
hearts.server.limits.RateLimited: too many tables created from your address (at most 2 per minute); try again in ... s
>>> with guard.counting("tables", "192.0.2.8"):  # refused on the way: it does not count
...     raise Refused("the request body is too large", 413)
Traceback (most recent call last):
...
hearts.server.limits.Refused: the request body is too large
>>> guard.hit("tables", "192.0.2.8"); guard.hit("tables", "192.0.2.8")
"""

from __future__ import annotations

import contextlib
import dataclasses
import ipaddress
import math
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Literal

from limits import RateLimitItem, parse

Rate = Literal["tables", "joins", "connect", "messages", "reviews"]
"""The per-address rates: tables created, seats joined, WebSocket connections opened, messages."""

RATE_WORDS: Final[dict[Rate, str]] = {
    "tables": "tables created",
    "joins": "seats joined",
    "connect": "connections opened",
    "messages": "messages",
    "reviews": "game reviews asked for",
}

# WebSocket close codes (RFC 6455 §7.4.1) the server closes with, always with a reason text.
CLOSE_GOING_AWAY: Final = 1001
"""The server is shutting down."""
CLOSE_POLICY: Final = 1008
"""The client broke a rule: too many messages or wrong tokens, no hello in time, no spectators."""
CLOSE_TRY_LATER: Final = 1013
"""Too busy for now: connections from the address, spectators of the table, a slow client."""
CLOSE_NO_TABLE: Final = 4404
"""There is no such table."""

CLOSE_SERVICE_RESTART: Final = 1012
"""Closing code of a stopping process's connections whose table another process serves now
(:mod:`hearts.server.drain`): reconnect at once."""


@dataclass(frozen=True)
class Limits:
    """Every limit of the web server, each with its default (pass changed ones to
    :func:`hearts.server.app.serve`, or as ``--limit NAME=VALUE`` to ``hearts serve``)."""

    # What one request or message may hold.
    max_body: int = 16 * 1024
    """Bytes of an HTTP request body (read no further: 413)."""
    max_message: int = 4096
    """Bytes of a WebSocket message (an error ``too_large``; nothing changes)."""
    max_json_depth: int = 8
    """Nesting of JSON arrays and objects."""
    max_number_digits: int = 16
    """Characters of a JSON number (a 5,000-digit integer is refused before it is converted)."""
    max_name: int = 40
    """Characters of a player's name."""
    max_chat: int = 200
    """Characters of a chat message at a table."""
    # Per address (an IPv4 address, or an IPv6 /64 network).
    tables_rate: str = "10/minute"
    """Tables created."""
    joins_rate: str = "30/minute"
    """Seats taken from the lobby."""
    connect_rate: str = "60/minute"
    """WebSocket connections opened."""
    messages_rate: str = "20/second"
    """WebSocket messages sent (beyond: an error, and the connection is closed)."""
    connections_per_address: int = 16
    """WebSocket connections open at once."""
    # Connections.
    hello_timeout: float = 10.0
    """Seconds a WebSocket connection may stay without a ``hello`` or ``watch`` accepted."""
    hello_attempts: int = 5
    """Wrong tokens one connection may show before it is closed."""
    max_spectators: int = 50
    """Spectators of one table at a time."""
    max_connections: int = 4000
    """Connections (HTTP and WebSocket) the server holds at once, from everyone."""
    request_timeout: float = 5.0
    """Seconds a TCP connection may take to send a complete HTTP request (head and body) once it
    opens or its last response is sent (beyond: it is closed; :mod:`hearts.server.edge`)."""
    tcp_connections_per_address: int = 64
    """TCP connections one address holds at once before they are WebSocket ones (beyond: closed
    at once; the proxies of ``--forwarded-allow-ips`` are not counted)."""
    # Tables.
    max_tables: int = 1000
    """Unfinished tables at once, from everyone."""
    bot_tables_per_address: int = 2
    """Unfinished all-bot tables (no person, no open seat) one address may have made."""
    max_bot_tables: int = 8
    """Unfinished all-bot tables at once, from everyone."""
    max_turn_timer: int = 3600
    """Seconds a table's turn timer may be set to."""
    min_bot_pace: float = 0.2
    """Seconds: the shortest pause before each bot move a table's creator may ask for (its
    ``bot_pace``, clamped to ``min_bot_pace``…``max_bot_pace``; a table without one has the
    server's ``--bot-delay``)."""
    max_bot_pace: float = 3.0
    """Seconds: the longest such pause."""
    play_clock: int = 30
    """Seconds a person has to play a card (or choose how a shot moon scores) at a public
    (listed) or quick table whose creator chose no timer (a friends' table has none)."""
    pass_clock: int = 45
    """Seconds a person has to pass at such a table."""
    missed_turns: int = 3
    """Turns in a row a table's stand-in plays for an away person before the seat is handed to
    it for the rest of the game (a reconnection alone no longer takes it back)."""
    lobby_size: int = 100
    """Tables the lobby lists at most."""
    # Table talk.
    chat_rate: str = "5/10 seconds"
    """Chat messages one seat may send, through all of its connections to a server process
    (beyond: an error, the message is not sent; the connection stays open)."""
    # Game reviews (they cost CPU: hearts.server.reviews).
    reviews_rate: str = "4/minute"
    """Game reviews one address may ask for (a review already asked for is not counted)."""
    max_reviews: int = 8
    """Game reviews waiting or being computed at once, from everyone (beyond: 503)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name.endswith("_rate"):
                try:
                    rate_item(value)
                except ValueError as e:
                    raise ValueError(f"limit {f.name}: {e}") from None
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"limit {f.name} must be a positive number, not {value!r}")
        if self.min_bot_pace > self.max_bot_pace:
            raise ValueError(f"limit min_bot_pace ({self.min_bot_pace}) is more than max_bot_pace ({self.max_bot_pace})")

    def bot_pace(self, asked: float) -> float:
        """A table's pause before each bot move, as its creator asked for it, held within
        ``min_bot_pace``…``max_bot_pace``.

        >>> Limits().bot_pace(0.0), Limits().bot_pace(1.5), Limits(max_bot_pace=2).bot_pace(9)
        (0.2, 1.5, 2.0)
        """
        return float(min(self.max_bot_pace, max(self.min_bot_pace, asked)))

    @classmethod
    def from_strings(cls, items: list[str] | tuple[str, ...]) -> Limits:
        """The defaults with ``NAME=VALUE`` items applied; raises :class:`ValueError` naming
        an unknown limit or a bad value."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        changes: dict[str, object] = {}
        for item in items:
            name, sep, text = item.partition("=")
            name, text = name.strip(), text.strip()
            if not sep:
                raise ValueError(f"a limit is NAME=VALUE, not {item!r}")
            if name not in fields:
                raise ValueError(f"unknown limit {name!r}; known limits: {', '.join(fields)}")
            default = getattr(cls, name)
            try:
                changes[name] = type(default)(text)
            except ValueError:
                raise ValueError(f"limit {name}: {text!r} is not {'an integer' if isinstance(default, int) else 'a number'}") from None
        return cls(**changes)  # type: ignore[arg-type]


def rate_item(text: str) -> RateLimitItem:
    """A rate such as ``"10/minute"`` as the ``limits`` library's item; :class:`ValueError` if it
    is not one."""
    try:
        return parse(text)
    except (ValueError, TypeError):
        raise ValueError(f"{text!r} is not a rate such as '10/minute' or '20 per second'") from None


def rate_words(item: RateLimitItem) -> str:
    """A rate in words, as a refusal says it.

    >>> rate_words(rate_item("5/10 seconds")), rate_words(rate_item("10/minute")), rate_words(rate_item("2 per 3 hour"))
    ('5 per 10 seconds', '10 per minute', '2 per 3 hours')
    """
    unit = item.GRANULARITY.name
    return f"{item.amount} per {unit}" if item.multiples == 1 else f"{item.amount} per {item.multiples} {unit}s"


DEFAULT_LIMITS: Final = Limits()
"""The limits when none are given."""


class Refused(ValueError):
    """A request or message the server will not honour, with what to answer: ``status`` for
    HTTP, ``code`` for a WebSocket ``error`` message, and ``close_code`` when the WebSocket
    connection is to be closed after it (``None``: it stays open)."""

    def __init__(self, message: str, status: int = 400, code: str = "bad_request", close_code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.close_code = close_code

    @property
    def reason(self) -> str:
        """The message cut to a WebSocket close reason (at most 123 bytes of UTF-8)."""
        return str(self).encode("utf-8")[:123].decode("utf-8", "ignore")


class RateLimited(Refused):
    """Too much from one address (HTTP 429, ``Retry-After``), or from everyone (503)."""

    def __init__(self, message: str, retry_after: int | None = None, *, status: int = 429,
                 close_code: int | None = CLOSE_TRY_LATER) -> None:
        super().__init__(message, status, "rate_limited", close_code)
        self.retry_after = retry_after


def address_key(host: str | None) -> str:
    """Whom a per-address limit counts: an IPv4 address, the /64 network of an IPv6 one (one
    household or machine), or the text itself (a Unix socket, a test client).

    >>> address_key("192.0.2.7"), address_key("2001:db8:1:2:3:4:5:6"), address_key(None)
    ('192.0.2.7', '2001:db8:1:2::/64', 'unknown')
    """
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class SlidingWindows:
    """Events counted per key in a sliding window of ``seconds`` (the sliding window counter:
    this fixed window's count, plus the last one's weighted by how much of it the sliding
    window still covers), at most ``amount`` of them. In memory, on the event loop's thread:
    a hit costs a dictionary lookup (no lock, no timer thread) — the ``limits`` library's own
    sliding window counter, tried, took 10–14 % of a server's CPU under load (its memory
    storage's per-key locks and expiry timer threads; docs/server.md).

    >>> windows = SlidingWindows(2, 60.0)
    >>> [windows.hit("a", now=t) for t in (0.0, 1.0, 2.0)], windows.hit("b", now=2.0)
    ([0.0, 0.0, 58.0], 0.0)
    >>> windows.hit("a", now=61.0), windows.hit("a", now=90.0)  # the last window's 2 weigh 2 × 59/60, then 2 × 30/60
    (29.0, 0.0)
    """

    def __init__(self, amount: int, seconds: float) -> None:
        self.amount = amount
        self.seconds = seconds
        self._counts: dict[str, tuple[int, int, int]] = {}
        """Per key: the number of the fixed window it last counted in, that window's count and
        the one's before."""

    def hit(self, key: str, now: float | None = None) -> float:
        """Count one event of ``key`` at ``now`` (default: :func:`time.monotonic`) and return
        0.0; or, when ``key`` is at its rate, count nothing and return the seconds until it
        may try again."""
        now = time.monotonic() if now is None else now
        window, into = divmod(now, self.seconds)
        number = int(window)
        last, count, before = self._counts.get(key, (number, 0, 0))
        if last != number:  # a new fixed window: the last one's count weighs in, or none
            count, before = 0, count if last == number - 1 else 0
        weighted = before * (self.seconds - into) / self.seconds + count
        if weighted + 1 > self.amount:
            if count + 1 > self.amount:
                return self.seconds - into
            # The last window's weight falls as the window slides: wait until one more fits.
            return max(0.0, self.seconds - into - (self.amount - 1 - count) * self.seconds / before)
        if len(self._counts) > 10_000:
            self._forget(number)
        self._counts[key] = (number, count + 1, before)
        return 0.0

    def refund(self, key: str, at: float) -> None:
        """Take back the event of ``key`` that :meth:`hit` counted at ``at`` (its ``now``): the
        request it counted was refused after all.

        >>> windows = SlidingWindows(1, 60.0)
        >>> windows.hit("a", now=59.0), windows.refund("a", at=59.0), windows.hit("a", now=60.5)
        (0.0, None, 0.0)
        """
        number = int(at // self.seconds)
        last, count, before = self._counts.get(key, (number, 0, 0))
        if last == number and count > 0:
            self._counts[key] = (last, count - 1, before)
        elif last == number + 1 and before > 0:  # counted in the fixed window before this one
            self._counts[key] = (last, count, before - 1)

    def _forget(self, number: int) -> None:
        """Drop the keys that counted nothing in this fixed window or the last one."""
        self._counts = {k: v for k, v in self._counts.items() if v[0] >= number - 1}


class AddressGuard:
    """The per-address rates (:data:`Rate`) and open WebSocket connections of one server
    process, in memory: :meth:`hit` counts one event and raises :class:`RateLimited` beyond its
    rate; :meth:`connect` / :meth:`disconnect` count the open connections."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._rates: dict[Rate, RateLimitItem] = {
            rate: rate_item(getattr(limits, f"{rate}_rate")) for rate in RATE_WORDS
        }
        self._windows: dict[Rate, SlidingWindows] = {
            rate: SlidingWindows(item.amount, item.get_expiry()) for rate, item in self._rates.items()
        }
        self.open: Counter[str] = Counter()
        """Open WebSocket connections by address."""

    def hit(self, rate: Rate, address: str, now: float | None = None) -> None:
        """Count one event of ``rate`` from ``address`` (at ``now``, default: the monotonic
        clock's); raises :class:`RateLimited` (and counts nothing) when the address is at its rate."""
        refused_for = self._windows[rate].hit(address, now)
        if refused_for:
            item = self._rates[rate]
            wait = max(1, math.ceil(refused_for))
            close = CLOSE_POLICY if rate == "messages" else CLOSE_TRY_LATER
            raise RateLimited(
                f"too many {RATE_WORDS[rate]} from your address (at most {rate_words(item)}); try again in {wait} s",
                wait, close_code=close,
            )

    @contextlib.contextmanager
    def counting(self, rate: Rate, address: str) -> Iterator[None]:
        """Count one event of ``rate`` from ``address`` (:meth:`hit`) for what the block does,
        and take it back if the block raises: only what is done counts (a request refused on
        the way — too large, malformed — uses up none of the rate)."""
        now = time.monotonic()
        self.hit(rate, address, now)
        try:
            yield
        except BaseException:
            self._windows[rate].refund(address, now)
            raise

    def connect(self, address: str) -> None:
        """Count a new WebSocket connection (its rate, and the open ones); raises
        :class:`RateLimited` if the address has opened too many, or holds too many open."""
        if self.open[address] >= self.limits.connections_per_address:
            raise RateLimited(
                f"too many connections open from your address (at most {self.limits.connections_per_address})"
            )
        self.hit("connect", address)
        self.open[address] += 1

    def disconnect(self, address: str) -> None:
        """A connection counted by :meth:`connect` has closed."""
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    @property
    def connections(self) -> int:
        """Open WebSocket connections, from every address."""
        return sum(self.open.values())
