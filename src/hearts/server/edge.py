"""The server's edge: what one TCP connection may do before it is a request the app sees.

uvicorn closes a keep-alive connection that stays idle after a response (its keep-alive
timeout, 5 s), but not one that opens and sends nothing, nor one that sends half a request
head (any byte stops its keep-alive timer), and it counts no connections per address: 4,000
silent connections from one process fill ``limit_concurrency`` and every request is a 503.
:class:`EdgeProtocol` (uvicorn's h11 protocol, the one installed) adds both:

- a connection must send a complete request (head and body) within ``request_timeout``
  seconds of opening, or of its last response, or it is closed;
- one address holds at most ``tcp_connections_per_address`` connections that are not yet
  WebSocket ones (beyond: closed at once; a WebSocket connection is counted by the app,
  :class:`~hearts.server.limits.AddressGuard`). The proxies trusted for ``X-Forwarded-For``
  (:class:`TrustedProxies`, ``--forwarded-allow-ips``) are not counted: every client comes
  through them.

>>> proxies = TrustedProxies.parse("127.0.0.1, 10.0.0.0/8")
>>> "10.1.2.3" in proxies, "127.0.0.1" in proxies, "192.0.2.7" in proxies, proxies.text
(True, True, False, '127.0.0.1,10.0.0.0/8')
>>> "127.0.0.1" in TrustedProxies.parse(None), TrustedProxies.parse("*").text
(False, '*')
>>> TrustedProxies.parse("localhost")
Traceback (most recent call last):
...
ValueError: --forwarded-allow-ips: 'localhost' is not an IP address or network (such as 127.0.0.1 or 10.0.0.0/8), nor '*'
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any, cast
from weakref import WeakKeyDictionary

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from hearts.server.limits import Limits, address_key
from hearts.server.logs import fields

log = logging.getLogger("hearts.server.edge")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` names the client: networks (an address is a
    network of one), or every peer (``everyone``). None by default."""

    networks: tuple[Network, ...] = ()
    everyone: bool = False

    @classmethod
    def parse(cls, text: str | None) -> TrustedProxies:
        """Comma-separated addresses and networks, or ``*``; ``None`` or empty: none. Raises
        :class:`ValueError` naming an item that is neither."""
        items = [item.strip() for item in (text or "").split(",") if item.strip()]
        if items == ["*"]:
            return cls(everyone=True)
        networks = []
        for item in items:
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"--forwarded-allow-ips: {item!r} is not an IP address or network "
                                 "(such as 127.0.0.1 or 10.0.0.0/8), nor '*'") from None
        return cls(tuple(networks))

    def __contains__(self, host: object) -> bool:
        if self.everyone:
            return True
        try:
            ip = ipaddress.ip_address(str(host))
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    @property
    def text(self) -> str:
        """As uvicorn's ``forwarded_allow_ips`` (empty: none)."""
        return "*" if self.everyone else ",".join(str(n) if n.num_addresses > 1 else str(n.network_address)
                                                  for n in self.networks)


@dataclass(frozen=True)
class EdgeOptions:
    """What :class:`EdgeProtocol` enforces (from :class:`~hearts.server.limits.Limits`)."""

    request_timeout: float
    per_address: int
    proxies: TrustedProxies


_open: WeakKeyDictionary[ServerState, Counter[str]] = WeakKeyDictionary()
"""Per server (one per process): the connections counted by :class:`EdgeProtocol`, by address."""


class EdgeProtocol(H11Protocol):
    """uvicorn's h11 HTTP protocol with a request timeout and a cap of connections per
    address (the module's docstring); made by :func:`protocol_factory`."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None, *, edge: EdgeOptions) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.edge = edge
        self.request_timer: asyncio.TimerHandle | None = None
        self.counted: str | None = None
        """The address this connection is counted for, while it is."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else None
        if host not in self.edge.proxies:
            key = address_key(host)
            counts = _open.setdefault(self.server_state, Counter())
            if counts[key] >= self.edge.per_address:
                log.debug("connection refused: too many from its address", extra=fields(address=key))
                transport.close()
                return
            counts[key] += 1
            self.counted = key
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._check()

    def on_response_complete(self) -> None:
        # The next request's time starts now (a byte of it stops uvicorn's keep-alive timer).
        self._arm()
        super().on_response_complete()
        self._check()

    def _check(self) -> None:
        """Stop the request timer once the request is complete, or the connection is a
        WebSocket one (whose protocol now gets the data: it is counted by the app)."""
        if self.transport.get_protocol() is not self:
            self._disarm()
            self._uncount()
        elif self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()

    def _arm(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.request_timer = self.loop.call_later(self.edge.request_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self.request_timer is not None:
            self.request_timer.cancel()
            self.request_timer = None

    def _uncount(self) -> None:
        if self.counted is not None:
            counts = _open[self.server_state]
            counts[self.counted] -= 1
            if counts[self.counted] <= 0:
                del counts[self.counted]
            self.counted = None

    def _timed_out(self) -> None:
        self.request_timer = None
        if not self.transport.is_closing():
            log.debug("connection closed: no complete request in time", extra=fields(address=self.counted))
            self.transport.close()


def protocol_factory(limits: Limits, proxies: TrustedProxies) -> type[asyncio.Protocol]:
    """uvicorn's ``http`` option: :class:`EdgeProtocol` with ``limits``' request timeout and
    connections per address, ``proxies`` not counted (a partial, which pickles for
    ``--workers``, and is called as uvicorn calls a protocol class)."""
    edge = EdgeOptions(limits.request_timeout, limits.tcp_connections_per_address, proxies)
    return cast("type[asyncio.Protocol]", functools.partial(EdgeProtocol, edge=edge))
