"""The terminal table's words in the language in use (:mod:`hearts.i18n`): the language chosen
from ``--lang`` or the locale (:func:`~hearts.i18n.choose_language`, which every command shares),
and the key bindings' descriptions translated per screen.

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
from typing import Any

from hearts.i18n import UnknownLanguage, _, choose_language

__all__ = ["UnknownLanguage", "choose_language", "translate_bindings"]


def translate_bindings(node: Any) -> None:
    """``node``'s key bindings with their descriptions and tooltips in the language in use (its
    own copy: the class's bindings stay as written)."""
    for key, bindings in list(node._bindings.key_to_bindings.items()):
        node._bindings.key_to_bindings[key] = [
            dataclasses.replace(b, description=_(b.description) if b.description else b.description,
                                tooltip=_(b.tooltip) if b.tooltip else b.tooltip)
            for b in bindings
        ]
