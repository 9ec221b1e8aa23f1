"""The service a terminal plays against (``hearts tui --quick --server URL``): its address, the
player profile it knows this person by, and the few HTTP calls the terminal makes to it (no
Textual; the standard library's ``urllib``).

A profile is made once (``POST /api/players``) and its secret key kept in the person's config
folder, one per service, so the next run plays as the same profile (and keeps its rating), with
the seat of a quick table it has not finished (:func:`keep_seat`: the next run goes back to it):
``$XDG_CONFIG_HOME/pyhearts/profiles.json`` (default ``~/.config/pyhearts/``), readable by its
owner only (mode 0600), as the server keeps its tables in ``$XDG_DATA_HOME/pyhearts``.

>>> s = Service.parse("http://127.0.0.1:8000/")
>>> s.base, s.ws_base, s.websocket("/ws/lobby/quick")
('http://127.0.0.1:8000', 'ws://127.0.0.1:8000', 'ws://127.0.0.1:8000/ws/lobby/quick')
>>> Service.parse("localhost:8000")
Traceback (most recent call last):
...
hearts.tui.service.BadServer: --server 'localhost:8000' is not a service's address: give http://HOST:PORT or https://HOST
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hearts.errors import HeartsError

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"
"""Where ``hearts serve`` serves unless told otherwise (what it prints when it starts)."""

QUICK_PRESETS: Final = ("standard", "omnibus", "black_maria", "three", "any")
"""The rule sets a quick match is asked for by (the protocol's ``quick``): ``black_maria`` for
three players (``three``, its name in earlier versions of the service, which still read it);
``any``: whichever seats the player soonest."""

TIMEOUT: Final = 10.0
"""Seconds an HTTP call to the service may take."""


class ServiceError(HeartsError):
    """The service cannot be used as asked: it does not answer, or refuses (the message is the
    one line the command ends with)."""


class BadServer(ServiceError):
    """``--server`` is not the address of a service (a usage error)."""


@dataclass(frozen=True)
class Service:
    """A service's address: ``base`` (``http://HOST:PORT``, no trailing slash) and its
    WebSocket twin."""

    base: str

    @classmethod
    def parse(cls, url: str) -> Service:
        """The service at ``url`` (``http``, ``https``, ``ws`` or ``wss``, with a host); else
        :class:`BadServer`."""
        parts = urllib.parse.urlsplit(url.strip())
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        if scheme not in ("http", "https") or not parts.hostname:
            raise BadServer(
                f"--server {url!r} is not a service's address: give http://HOST:PORT or https://HOST"
            )
        try:
            parts.port  # noqa: B018 - a port that is not a number raises here
        except ValueError:
            raise BadServer(f"--server {url!r}: the port is not a number") from None
        return cls(urllib.parse.urlunsplit((scheme, parts.netloc, parts.path.rstrip("/"), "", "")))

    @property
    def ws_base(self) -> str:
        return "ws" + self.base.removeprefix("http")

    def websocket(self, path: str) -> str:
        """The WebSocket address of ``path`` (``/ws/lobby/quick``, ``/ws/{table}``)."""
        return self.ws_base + path

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> Any:
        """``method path`` on the service (JSON in and out; ``key``: as that profile); an answer
        that is not 2xx, or none, is a :class:`ServiceError` saying so in one line."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as e:
            raise ServiceError(self._refusal(e)) from None
        except (urllib.error.URLError, OSError) as e:
            why = getattr(e, "reason", e)
            raise ServiceError(f"no service answers at {self.base} ({why}); is 'hearts serve' running?") from None
        except ValueError:
            raise ServiceError(f"{self.base} is not a pyhearts service (its answer is not JSON)") from None

    def _refusal(self, e: urllib.error.HTTPError) -> str:
        if e.code == 401:
            return f"the service at {self.base} knows no player profile with this key (--key, or {profiles_path()})"
        try:
            message = json.loads(e.read()).get("error")  # every refusal is {"error": "..."}
        except (ValueError, AttributeError, OSError):
            message = None
        return f"the service at {self.base} refused ({e.code}): {message or e.reason}"

    def profile(self, key: str) -> str:
        """The name of the profile of ``key`` (``GET /api/me``); a key it does not know is a
        :class:`ServiceError`."""
        return str(self.call("GET", "/api/me", key=key)["name"])

    def new_profile(self, name: str) -> str:
        """A new player profile named ``name`` (``POST /api/players``): its secret key."""
        return str(self.call("POST", "/api/players", {"name": name})["key"])


def profiles_path() -> Path:
    """Where the keys of this person's profiles are kept: ``$XDG_CONFIG_HOME/pyhearts/profiles.json``
    (default ``~/.config/pyhearts/profiles.json``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pyhearts" / "profiles.json"


def _read_profiles(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ServiceError(f"cannot read the profiles kept in {path}: {e}") from None
    return data if isinstance(data, dict) else {}


def _write_profiles(path: Path, profiles: Mapping[str, Any]) -> None:
    """Write ``profiles`` to ``path``, readable by its owner only (0600), whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_suffix(".tmp")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(profiles, f, indent=2)
    os.chmod(fresh, 0o600)
    os.replace(fresh, path)


def profile_key(service: Service, name: str, key: str | None = None) -> str:
    """The key to play at ``service`` with: ``key`` (``--key``) if given, else the one kept for
    this service, else a new profile's (named ``name``), kept for next time. The key is checked
    with the service (a :class:`ServiceError` when it refuses it, or does not answer).

    A key given or kept that the service refuses is not replaced: the person is told, and
    decides (``--key``, or removing the kept one)."""
    path = profiles_path()
    if key is None:
        kept = _read_profiles(path).get(service.base)
        key = kept.get("key") if isinstance(kept, dict) else None
    if key is None:
        key = service.new_profile(name)
        try:
            _write_profiles(path, {**_read_profiles(path), service.base: {"key": key, "name": name}})
        except OSError as e:
            raise ServiceError(f"cannot keep the new profile's key in {path}: {e.strerror or e}") from None
    service.profile(key)
    return key


def kept_seat(service: Service, key: str) -> dict[str, Any] | None:
    """The seat kept for ``service``'s profile of ``key`` (:func:`keep_seat`) if its table's
    game is not over (asked of the service: ``GET /api/tables/{id}``); ``None`` otherwise."""
    kept = _read_profiles(profiles_path()).get(service.base)
    seat = kept.get("seat") if isinstance(kept, dict) and kept.get("key") == key else None
    if not isinstance(seat, dict) or not isinstance(seat.get("table"), str) or not isinstance(seat.get("token"), str):
        return None
    try:
        table = service.call("GET", f"/api/tables/{urllib.parse.quote(seat['table'])}")
    except ServiceError:
        return None  # gone (a table the service no longer has): queue anew
    return None if table.get("finished", True) else seat


def keep_seat(service: Service, key: str, seated: Mapping[str, Any] | None) -> None:
    """Keep the quick table's seat the service gave (its ``seated`` message: ``table``,
    ``token``, ``seat``, ``link``) beside the profile's key, until the game is over (``None``
    forgets it), so that a terminal closed before the end goes back to it next time. Nothing is
    kept for a profile whose key is not kept (another ``--key``)."""
    path = profiles_path()
    profiles = _read_profiles(path)
    entry = profiles.get(service.base)
    if not isinstance(entry, dict) or entry.get("key") != key:
        return
    if seated is None:
        entry.pop("seat", None)
    else:
        entry["seat"] = {name: seated[name] for name in ("table", "token", "seat", "link") if name in seated}
    _write_profiles(path, profiles)
