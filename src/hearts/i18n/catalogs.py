"""The catalogs' tooling (needs Babel: the ``web`` and ``tui`` extras): compile a ``.po`` file,
extract the messages of the sources, bring the catalogs up to date, check them, and the JSON the
browser reads.

Where messages come from (``babel.cfg`` at the repository's root says it for ``pybabel`` too):
``_()``/``ngettext()`` calls in ``src/hearts/**.py`` (Python) and in the web client's
``src/hearts/server/static/**.js`` (Babel's JavaScript extractor), and the text of the web page's
elements marked ``data-i18n`` (their own text) or ``data-i18n-<attribute>`` (``title``,
``aria-label``, ``placeholder``: the attribute's value) in ``static/*.html``, which
:func:`html_messages` collects, and each paragraph, list item, heading and table cell with words
of the rule book, ``docs/rules.md`` (``hearts.book.extract``, named in ``babel.cfg``).

>>> [m for _line, m in html_messages('<p data-i18n>Play <b>now</b></p><input placeholder="your name" data-i18n-placeholder>')]
['Play', 'your name']
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir

try:
    from babel.messages.frontend import parse_mapping_cfg
except ImportError:  # Babel before 2.14 names it parse_mapping
    from babel.messages.frontend import parse_mapping as parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from hearts.i18n import DOMAIN, LOCALE_DIR, SOURCE, catalog_file, compiled, languages

ROOT = Path(__file__).resolve().parents[3]
"""The repository's root (where ``babel.cfg`` is) when the package runs from its source tree."""
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
"""The template made by extraction (:func:`update`)."""
ATTRIBUTES = ("title", "aria-label", "placeholder")
"""The attributes a ``data-i18n-<attribute>`` mark translates."""
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def compile_po(source: bytes, lang: str) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file's bytes (fuzzy entries left out, as msgfmt does)."""
    catalog = read_po(io.BytesIO(source), locale=lang, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


class _HtmlMessages(HTMLParser):
    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []
        self.found: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        marks = dict(attrs)
        for name in ATTRIBUTES:
            if f"data-i18n-{name}" in marks and marks.get(name):
                self.found.append((self.getpos()[0], str(marks[name])))
        if tag not in self.VOID:
            self.stack.append("data-i18n" in marks)

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] and data.strip():
            self.found.append((self.getpos()[0], " ".join(data.split())))


def html_messages(text: str) -> list[tuple[int, str]]:
    """The messages of a page: the own text of each ``data-i18n`` element (each run of text
    between its children, spaces collapsed) and each ``data-i18n-<attribute>``'s value."""
    parser = _HtmlMessages()
    parser.feed(text)
    parser.close()
    return parser.found


def extract(root: Path = ROOT) -> Catalog:
    """The template: every message of the sources under ``root`` (``babel.cfg``'s mapping, and
    the pages' ``data-i18n`` marks)."""
    cfg = root / "babel.cfg"
    if not cfg.is_file():
        raise FileNotFoundError(f"{cfg} not found: the catalogs are checked from the source tree")
    with cfg.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, filename=str(cfg))  # type: ignore[no-untyped-call]
    template = Catalog(domain=DOMAIN, project="pyhearts", charset="utf-8", fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        root, method_map, options_map, comment_tags=("NOTE:",), strip_comment_tags=True
    ):
        template.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    for page in sorted((root / "src" / "hearts" / "server" / "static").glob("*.html")):
        for lineno, message in html_messages(page.read_text(encoding="utf-8")):
            template.add(message, None, [(str(page.relative_to(root)), lineno)])
    return template


def _key(message: Any) -> str:
    return str(message.id[0] if isinstance(message.id, tuple) else message.id)


def _complete(message: Any, lang: str) -> bool:
    """A translation fit to use: every form written (the source language may leave them empty),
    not fuzzy, and each with the placeholders (``{n}``) of its ``msgid``."""
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    if message.fuzzy:
        return False
    if lang == SOURCE and not any(strings):
        return True
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    wanted = set(_PLACEHOLDER.findall(ids[-1]))
    return all(s and set(_PLACEHOLDER.findall(s)) <= wanted | set(_PLACEHOLDER.findall(ids[0])) for s in strings)


@dataclass
class Report:
    """What :func:`check` found: each problem as a line, and the counts of the last line."""

    languages: int
    messages: int
    missing: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.unused

    def lines(self) -> Iterator[str]:
        """The problems, then ``languages=N messages=M missing=K unused=U``."""
        yield from self.missing
        yield from self.unused
        yield f"languages={self.languages} messages={self.messages} missing={len(self.missing)} unused={len(self.unused)}"


def _read(path: Path, lang: str | None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def check(root: Path = ROOT, locale_dir: Path = LOCALE_DIR) -> Report:
    """Every message of the sources in every catalog (and the template), translated (a plural
    in all its forms, no fuzzy entry, the same placeholders); no catalog message the sources no
    longer use."""
    template = extract(root)
    wanted = {_key(m): m for m in template if m.id}
    langs = languages(locale_dir)
    report = Report(languages=len(langs), messages=len(wanted))
    catalogs: list[tuple[str, Catalog]] = [("template", _read(locale_dir / f"{DOMAIN}.pot", None))]
    catalogs += [(lang, _read(catalog_file(lang, locale_dir), lang)) for lang in langs]
    for name, catalog in catalogs:
        have = {_key(m): m for m in catalog if m.id}
        for key, source in wanted.items():
            m = have.get(key)
            plural = isinstance(source.id, tuple)
            if m is None or plural != isinstance(m.id, tuple) or (name != "template" and not _complete(m, name)):
                report.missing.append(f"missing {name}: {key!r}")
        report.unused += [f"unused {name}: {key!r}" for key in sorted(set(have) - set(wanted))]
        report.unused += [f"unused {name}: {key!r} (obsolete)" for key in catalog.obsolete]
    return report


def update(root: Path = ROOT, locale_dir: Path = LOCALE_DIR) -> Catalog:
    """Writes the template from the sources and brings each catalog up to it: new messages
    added untranslated, messages no longer used dropped (no fuzzy guesses)."""
    template = extract(root)
    with TEMPLATE.open("wb") if locale_dir == LOCALE_DIR else (locale_dir / f"{DOMAIN}.pot").open("wb") as f:
        write_po(f, template, width=100, omit_header=False, include_lineno=False)
    for lang in languages(locale_dir):
        path = catalog_file(lang, locale_dir)
        catalog = _read(path, lang) if path.is_file() else Catalog(locale=lang, domain=DOMAIN)
        catalog.update(template, no_fuzzy_matching=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=100, ignore_obsolete=True, include_lineno=False)
    return template


def language_name(lang: str) -> str:
    """A language's name in itself (``Deutsch``), capitalised; the code if Babel does not know it.

    >>> language_name("fr"), language_name("es"), language_name("zz")
    ('Français', 'Español', 'zz')
    """
    try:
        name = Locale.parse(lang.replace("-", "_")).get_display_name(lang.replace("-", "_")) or lang
    except (ValueError, UnknownLocaleError):
        return lang
    return name[:1].upper() + name[1:]


def catalog_json(lang: str, locale_dir: Path = LOCALE_DIR) -> dict[str, Any]:
    """What the browser reads (``GET /i18n/<lang>.json``): the language, its plural rule (the
    catalog's ``Plural-Forms`` expression, which ``i18n.js`` evaluates without ``eval``), its
    translations from the compiled catalog (``msgid`` → text, a plural's ``msgid`` → its forms;
    the source language has none: its words are the ``msgid``) and the languages offered.

    >>> c = catalog_json("de")
    >>> c["language"], c["plural"], c["messages"]["Lobby"]
    ('de', '(n != 1)', 'Lobby')
    >>> [x["code"] for x in c["languages"]]
    ['de', 'en', 'es', 'fr']
    """
    messages: dict[str, str | list[str]] = {}
    plural, nplurals = "(n != 1)", 2
    data = None if lang == SOURCE else compiled(lang, locale_dir)
    if data is not None:
        catalog = _mo_catalog(data)
        headers = catalog.pop("", "")
        m = re.search(r"nplurals\s*=\s*(\d+)\s*;\s*plural\s*=\s*([^;\n]+)", str(headers))
        if m:
            nplurals, plural = int(m.group(1)), m.group(2).strip()
        messages = catalog
    return {
        "language": lang,
        "name": language_name(lang),
        "plural": plural,
        "nplurals": nplurals,
        "messages": messages,
        "languages": [{"code": code, "name": language_name(code)} for code in languages(locale_dir)],
    }


def _mo_catalog(data: bytes) -> dict[str, str | list[str]]:
    """A ``.mo`` file's entries: ``msgid`` → text, a plural's singular ``msgid`` → its forms."""
    import gettext

    catalog: dict[str, str | list[str]] = {}
    t = gettext.GNUTranslations(io.BytesIO(data))
    raw: dict[Any, str] = getattr(t, "_catalog", {})
    for key, text in raw.items():
        if isinstance(key, tuple):
            forms = catalog.setdefault(key[0], [])
            if isinstance(forms, list):
                forms.extend([""] * (key[1] + 1 - len(forms)))
                forms[key[1]] = text
        else:
            catalog[key] = text
    catalog[""] = raw.get("", "")
    return catalog
