"""The terminal table's words in the language in use (:mod:`hearts.i18n`): the language chosen
from ``--lang`` or the locale, and the key bindings' descriptions translated per screen.

A screen's ``BINDINGS`` are written once at import, their words marked with
:func:`~hearts.i18n.N_`; :func:`translate_bindings` gives a screen (or any widget) its own
bindings in the language in use, so the footer and the help screen speak it whenever the
language was chosen.

>>> choose_language(None, {"LANG": "de_DE.UTF-8"})
'de'
>>> choose_language("fr", {"LANG": "de_DE.UTF-8"})
'fr'
>>> choose_language(None, {"LANG": "C"})
'en'
>>> from hearts.i18n import use
>>> use("en")
'en'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from hearts.i18n import _, from_environment, languages, negotiate, use


class UnknownLanguage(ValueError):
    """A ``--lang`` that names no catalog; the message lists those offered."""


def choose_language(flag: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language of ``--lang`` (which must be offered: else :class:`UnknownLanguage`), else
    the locale's (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English; made the
    language in use."""
    offered = languages()
    if flag is not None:
        lang = negotiate([flag], offered, default="")
        if not lang:
            raise UnknownLanguage(f"--lang {flag!r:.20}: no such language; one of {', '.join(offered)}")
        return use(lang)
    return use(negotiate(from_environment(environ), offered))


def translate_bindings(node: Any) -> None:
    """``node``'s key bindings with their descriptions and tooltips in the language in use (its
    own copy: the class's bindings stay as written)."""
    for key, bindings in list(node._bindings.key_to_bindings.items()):
        node._bindings.key_to_bindings[key] = [
            dataclasses.replace(b, description=_(b.description) if b.description else b.description,
                                tooltip=_(b.tooltip) if b.tooltip else b.tooltip)
            for b in bindings
        ]
