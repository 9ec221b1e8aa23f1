"""Languages: the words a player reads, from gettext message catalogs (standard library only).

The source of truth is one ``.po`` file per language, ``src/hearts/locale/<lang>/LC_MESSAGES/hearts.po``
(``en``, ``de``, ``fr``, ``es``; English is the source language, its messages are the ``msgid``
themselves). A ``.po`` file is compiled to a ``.mo`` file at first use, into a cache folder
(:func:`cache_dir`), by Babel (:mod:`hearts.i18n.catalogs`; the ``web`` and ``tui`` extras bring
it); without Babel everything stays English. Adding a language is adding one ``.po`` file.

>>> negotiate("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7", ("de", "en", "es", "fr"))
'fr'
>>> negotiate("pt-BR", ("de", "en"))
'en'
>>> t = translation("en")
>>> t.gettext("Lobby"), t.ngettext("{n} card", "{n} cards", 2).format(n=2)
('Lobby', '2 cards')

A front end picks a language once (:func:`use`) and reads its words through :func:`_` and
:func:`ngettext` (called when the text is drawn, not at import)::

    use(negotiate(from_environment(), languages()))
    title = _("Scores")
"""

from __future__ import annotations

import gettext
import hashlib
import io
import os
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "N_",
    "SOURCE",
    "UnknownLanguage",
    "_",
    "cache_dir",
    "catalog_file",
    "choose_language",
    "current",
    "from_environment",
    "languages",
    "negotiate",
    "ngettext",
    "translation",
    "use",
]

DOMAIN = "hearts"
"""The catalogs' gettext domain: ``<lang>/LC_MESSAGES/hearts.po``."""
SOURCE = "en"
"""The source language: its catalog's empty translations are the ``msgid`` themselves."""
LOCALE_DIR = Path(os.environ.get("PYHEARTS_LOCALE_DIR") or Path(__file__).resolve().parent.parent / "locale")
"""Where the catalogs are (one folder per language): the package's ``locale`` folder, or
``$PYHEARTS_LOCALE_DIR`` (a copy with a language added, say)."""

_TAG = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


def languages(locale_dir: Path = LOCALE_DIR) -> tuple[str, ...]:
    """The languages shipped: each folder of ``locale_dir`` with a ``LC_MESSAGES/hearts.po``, sorted.

    >>> languages()
    ('de', 'en', 'es', 'fr')
    """
    if not locale_dir.is_dir():
        return (SOURCE,)
    found = {p.name for p in locale_dir.iterdir() if (p / "LC_MESSAGES" / f"{DOMAIN}.po").is_file() and _TAG.match(p.name)}
    return tuple(sorted(found | {SOURCE}))


def catalog_file(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    """The ``.po`` file of ``lang`` (it may not exist)."""
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def _tags(wanted: str | Iterable[str]) -> list[str]:
    """The language tags of an ``Accept-Language`` header (by quality, then order) or of a list."""
    if not isinstance(wanted, str):
        return [w for w in wanted if w]
    weighted: list[tuple[float, int, str]] = []
    for i, part in enumerate(wanted.split(",")):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q\s*=\s*([0-9.]+)", params)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        if tag.strip() and tag.strip() != "*" and q > 0:
            weighted.append((-q, i, tag.strip()))
    return [tag for _q, _i, tag in sorted(weighted)]


def negotiate(wanted: str | Iterable[str], available: Iterable[str], default: str = SOURCE) -> str:
    """The language of ``available`` that fits ``wanted`` best, else ``default``.

    ``wanted`` is an ``Accept-Language`` header or a list of tags (first preferred); a tag matches
    a language exactly (``de-AT`` and ``de_AT`` alike, in any case), else by its primary subtag
    (``de-AT`` takes ``de``; ``pt`` takes ``pt_BR`` when that is the only Portuguese).

    >>> negotiate(["de_AT", "en"], ["de", "en"])
    'de'
    >>> negotiate("es-MX;q=0.5, fr;q=0.9", ["es", "fr"])
    'fr'
    >>> negotiate("", ["de"], default="en")
    'en'
    """
    norm = {a.lower().replace("-", "_"): a for a in available}
    for tag in _tags(wanted):
        key = tag.lower().replace("-", "_")
        if key in norm:
            return norm[key]
        primary = key.split("_")[0]
        if primary in norm:
            return norm[primary]
        for k, a in sorted(norm.items()):
            if k.split("_")[0] == primary:
                return a
    return default


def from_environment(environ: Mapping[str, str] | None = None) -> list[str]:
    """The languages the locale asks for, as gettext reads it: ``LANGUAGE`` (a colon list),
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` (the first set of the last three); ``C``/``POSIX`` mean
    none and an encoding or modifier is dropped.

    >>> from_environment({"LANG": "de_DE.UTF-8"})
    ['de_DE']
    >>> from_environment({"LC_ALL": "C", "LANG": "fr_FR"})
    []
    >>> from_environment({"LANGUAGE": "es:fr", "LANG": "de_DE"})
    ['es', 'fr', 'de_DE']
    """
    env = os.environ if environ is None else environ
    found = [x for x in env.get("LANGUAGE", "").split(":") if x]
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            found.append(value)
            break
    tags = [re.split(r"[.@]", x)[0] for x in found]
    return [t for t in tags if t and t not in ("C", "POSIX")]


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where compiled ``.mo`` files are kept: ``$PYHEARTS_LOCALE_CACHE``, else
    ``$XDG_CACHE_HOME/pyhearts/locale``, else ``~/.cache/pyhearts/locale``.

    >>> cache_dir({"PYHEARTS_LOCALE_CACHE": "/tmp/mo"})
    PosixPath('/tmp/mo')
    >>> cache_dir({"XDG_CACHE_HOME": "/var/cache"})
    PosixPath('/var/cache/pyhearts/locale')
    """
    env = os.environ if environ is None else environ
    if env.get("PYHEARTS_LOCALE_CACHE"):
        return Path(env["PYHEARTS_LOCALE_CACHE"])
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "pyhearts" / "locale"


def compiled(lang: str, locale_dir: Path = LOCALE_DIR, cache: Path | None = None) -> bytes | None:
    """The ``.mo`` bytes of ``lang``'s catalog, compiled at first use and kept in the cache as
    ``<lang>-<digest of the .po>.mo`` (a changed ``.po`` makes a new one); None when there is no
    catalog or Babel is missing (then the words stay English). An unwritable cache only costs
    compiling again."""
    po = catalog_file(lang, locale_dir)
    try:
        source = po.read_bytes()
    except OSError:
        return None
    folder = cache_dir() if cache is None else cache
    mo = folder / f"{lang}-{hashlib.sha256(source).hexdigest()[:16]}.mo"
    try:
        return mo.read_bytes()
    except OSError:
        pass
    try:
        from hearts.i18n.catalogs import compile_po  # Babel: the web and tui extras
    except ImportError:
        return None
    data = compile_po(source, lang)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = mo.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, mo)
    except OSError:
        pass
    return data


@lru_cache(maxsize=32)
def _translation(lang: str, locale_dir: Path) -> gettext.NullTranslations:
    data = None if lang == SOURCE else compiled(lang, locale_dir)
    if data is None:
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(data))


def translation(lang: str, locale_dir: Path = LOCALE_DIR) -> gettext.NullTranslations:
    """The translations of ``lang`` (English, the ``msgid`` themselves, for the source language,
    an unknown language or no Babel to compile with); kept once read."""
    return _translation(lang, locale_dir)


_current: list[tuple[str, gettext.NullTranslations]] = [(SOURCE, gettext.NullTranslations())]


def use(lang: str, locale_dir: Path = LOCALE_DIR) -> str:
    """Makes ``lang`` the language of :func:`_` and :func:`ngettext` (an unknown one is English);
    returns the language in use.

    >>> use("xx")
    'en'
    """
    if lang not in languages(locale_dir):
        lang = SOURCE
    _current[0] = (lang, translation(lang, locale_dir))
    return lang


class UnknownLanguage(ValueError):
    """A ``--lang`` that names no catalog; the message lists those offered."""


def choose_language(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language of a command's ``--lang`` (which must be offered: else
    :class:`UnknownLanguage`), else the locale's (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``: :func:`from_environment`), else English; made the language in use (:func:`use`).
    Every command a player reads (``hearts play``, ``tui``, ``rules``, ``replay``, ``analyze``)
    chooses its language so.

    >>> choose_language(None, {"LANG": "de_DE.UTF-8"}), choose_language("fr", {"LANG": "de_DE.UTF-8"})
    ('de', 'fr')
    >>> choose_language(None, {"LANG": "C"})
    'en'
    >>> choose_language("xx")
    Traceback (most recent call last):
    ...
    hearts.i18n.UnknownLanguage: --lang 'xx': no such language; one of de, en, es, fr
    """
    offered = languages()
    if flag is not None:
        lang = negotiate([flag], offered, default="")
        if not lang:
            raise UnknownLanguage(f"--lang {flag!r:.20}: no such language; one of {', '.join(offered)}")
        return use(lang)
    return use(negotiate(from_environment(environ), offered))


def current() -> str:
    """The language in use (:func:`use`)."""
    return _current[0][0]


def _(message: str) -> str:
    """``message`` in the language in use.

    >>> _("Scores")
    'Scores'
    """
    return _current[0][1].gettext(message)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs without translating it (yet): for a text written once at
    import (a key binding's description) and translated with :func:`_` where it is shown.

    >>> N_("Help")
    'Help'
    """
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the language in use (its plural rule).

    >>> ngettext("{n} card", "{n} cards", 1).format(n=1)
    '1 card'
    """
    return _current[0][1].ngettext(singular, plural, n)
