"""The rule book for players: ``docs/rules.md`` (shipped as ``hearts/rulebook.md``) read into its
rules, each paragraph, list item and table cell a message of the catalogs, and a table's own
options beside the rules they belong to.

There is one rule book. The web table's rules page (``/rules``, ``GET /api/rules``) and the
terminal's rules screen are made from it here; its words reach the other languages through the
catalogs like every other word: ``babel.cfg`` names :func:`extract` as the extractor of
``docs/rules.md``, so ``python -m hearts.i18n --update`` adds each paragraph (its Markdown kept:
```code```, ``**bold**``, ``*italic*``) as a message and ``--check`` fails on one left
untranslated. The book's preface (before R1) speaks of the code and is not shown to players.

>>> rules = parse(book_text())
>>> [r.number for r in rules][:4], rules[1].title
(['R1', 'R1.1', 'R1.2', 'R1.3'], 'Number of players')
>>> rules[1].blocks[0].text
'The usual game is for four players. The engine also deals for three, five and six.'
>>> [(o.rule, o.value) for o in table_options(Rules(moon="shooter_chooses")) if o.name in ("moon", "players")]
[('R1.1', ('4',)), ('R4.4', ('shooter chooses',))]
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import IO, Any, Final, Literal

from hearts.i18n import N_, _
from hearts.rules import Rules, option_text

BOOK: Final = "rulebook.md"
"""The rule book in the package (a link to ``docs/rules.md`` in the source tree)."""

_HEADING: Final = re.compile(r"^(#{2,3}) (R\d+(?:\.\d+)?)\.? (.*)$")
_WORDS: Final = re.compile(r"[A-Za-z]{2,}")
_CODE: Final = re.compile(r"`[^`]*`")

BlockKind = Literal["p", "li", "table"]


@dataclass(frozen=True)
class Block:
    """A paragraph (``p``), a list item (``li``) or a table (its ``rows``, the header first), its
    text in English as the book writes it (Markdown inline: ``code``, ``**bold**``, ``*italic*``)."""

    kind: BlockKind
    text: str = ""
    rows: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class Rule:
    """A section (``R3``) or a rule (``R3.6``) of the book: its number, title and blocks."""

    number: str
    title: str
    blocks: tuple[Block, ...]

    @property
    def level(self) -> int:
        """2 for a section, 3 for a rule (the heading's level)."""
        return 2 if "." not in self.number else 3


def book_text() -> str:
    """The rule book's Markdown, as shipped."""
    return importlib.resources.files("hearts").joinpath(BOOK).read_text(encoding="utf-8")


def _blocks(lines: list[tuple[int, str]]) -> Iterator[tuple[int, Block]]:
    """The blocks of a rule's lines (line number, text), each with its first line's number."""
    chunk: list[tuple[int, str]] = []

    def flush() -> Iterator[tuple[int, Block]]:
        if not chunk:
            return
        first = chunk[0][1]
        if first.startswith("|"):
            rows = [tuple(c.strip() for c in line.strip().strip("|").split("|")) for _n, line in chunk]
            rows = [r for r in rows if not all(set(c) <= set("-: ") for c in r)]  # the |---| line
            yield chunk[0][0], Block("table", rows=tuple(rows))
        elif first.startswith("- "):
            item: list[str] = []
            start = chunk[0][0]
            for n, line in chunk:
                if line.startswith("- ") and item:
                    yield start, Block("li", " ".join(item))
                    item, start = [], n
                item.append(line[2:].strip() if line.startswith("- ") else line.strip())
            yield start, Block("li", " ".join(item))
        else:
            yield chunk[0][0], Block("p", " ".join(line.strip() for _n, line in chunk))

    for n, line in lines:
        if line.strip():
            chunk.append((n, line))
        else:
            yield from flush()
            chunk = []
    yield from flush()


def _parse(text: str) -> Iterator[tuple[int, Rule, list[tuple[int, Block]]]]:
    heads: list[tuple[int, str, str]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m:
            heads.append((i, m.group(2), m.group(3).strip()))
    for k, (i, number, title) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        blocks = list(_blocks([(n + 1, lines[n]) for n in range(i + 1, end)]))
        yield i + 1, Rule(number, title, tuple(b for _n, b in blocks)), blocks


def parse(text: str) -> tuple[Rule, ...]:
    """The rules of the book's Markdown, R1 to the last, in order (the preface left out)."""
    return tuple(rule for _line, rule, _blocks in _parse(text))


@lru_cache(maxsize=1)
def book() -> tuple[Rule, ...]:
    """The shipped book's rules (read once)."""
    return parse(book_text())


def is_words(text: str) -> bool:
    """Whether a table cell has words to translate (not only numbers, cards or code).

    >>> is_words("2♦, 2♣"), is_words("`add_to_others`"), is_words("S passed 100: E wins")
    (False, False, True)
    """
    return bool(_WORDS.search(_CODE.sub("", text)))


def messages(text: str) -> Iterator[tuple[int, str, str]]:
    """Every message of the book: (line, message, its rule's number), titles, paragraphs, list
    items and table cells with words."""
    for line, rule, blocks in _parse(text):
        yield line, rule.title, rule.number
        for n, block in blocks:
            if block.kind == "table":
                for row in block.rows:
                    yield from ((n, cell, rule.number) for cell in row if is_words(cell))
            else:
                yield n, block.text, rule.number


def extract(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extractor of the rule book (``babel.cfg``: ``[hearts.book.extract: docs/rules.md]``)."""
    for line, message, number in messages(fileobj.read().decode("utf-8")):
        note = f"The rule book, {number}: keep the Markdown (`code`, **bold**, *italic*), the R-numbers and the option values in `code`."
        yield line, "_", message, [note]


# --- a table's own options --------------------------------------------------------------------

VALUE_WORDS: Final = {
    "two_of_diamonds": N_("two of diamonds"),
    "two_of_clubs": N_("two of clubs"),
    "lowest_club": N_("lowest club"),
    "any_club": N_("any club"),
    "anytime": N_("anytime"),
    "after_break": N_("after break"),
    "add_to_others": N_("add to others"),
    "subtract_from_self": N_("subtract from self"),
    "shooter_chooses": N_("shooter chooses"),
    "add_unless_losing": N_("add unless losing"),
    "play_on": N_("play on"),
    "share": N_("share"),
    True: N_("yes"),
    False: N_("no"),
}
"""An option value in a player's words (English, a message of the catalogs; the web lobby says
the same words)."""


@dataclass(frozen=True)
class OptionLine:
    """One option as a table has it: its name, rule, label, the value as typed (``code``) and in
    words (English messages: each part translated on its own)."""

    name: str
    rule: str
    label: str
    code: str
    value: tuple[str, ...]

    def words(self) -> str:
        """The value in the language in use."""
        return " / ".join(_(part) for part in self.value)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rule": self.rule, "label": self.label, "code": self.code, "value": list(self.value)}


def _step_words(offset: int, players: int) -> str:
    """A pass step in words (R2.2), English: ``left``, ``right``, ``across``, ``hold``, else the
    number of seats clockwise, as the book allows it to be written."""
    if offset == 0:
        return N_("hold")
    if offset == 1:
        return N_("left")
    if offset == players - 1:
        return N_("right")
    if players % 2 == 0 and offset == players // 2:
        return N_("across")
    return str(offset)


def _value_words(rules: Rules, name: str, value: Any) -> tuple[str, ...]:
    if name == "pass_cycle":  # the cycle in force (the default one for the number of players too)
        return tuple(_step_words(o, rules.players) for o in rules.pass_offsets)
    if isinstance(value, bool) or (isinstance(value, str) and value in VALUE_WORDS):
        return (VALUE_WORDS[value],)
    return (str(value),)


def table_options(rules: Rules) -> list[OptionLine]:
    """Every option of ``rules`` with its value, in the book's order of rules."""
    lines = [
        OptionLine(spec.name, spec.rule, spec.label, option_text(getattr(rules, spec.name)),
                   _value_words(rules, spec.name, getattr(rules, spec.name)))
        for spec in Rules.options()
    ]
    return sorted(lines, key=lambda o: tuple(int(x) for x in o.rule[1:].split(".")))


def to_dict(rules: Rules) -> dict[str, Any]:
    """What ``GET /api/rules`` answers: the table's options and the book, in English (the client
    shows each message's translation)."""
    return {
        "options": [o.to_dict() for o in table_options(rules)],
        "rules": [
            {
                "number": r.number,
                "title": r.title,
                "blocks": [
                    {"kind": b.kind, "text": b.text} if b.kind != "table" else {"kind": "table", "rows": [list(row) for row in b.rows]}
                    for b in r.blocks
                ],
            }
            for r in book()
        ],
    }


def markdown(rules: Rules, numbers: Iterable[str] | None = None) -> str:
    """The book in the language in use, as Markdown (the terminal's rules screen): the table's
    options first, then every rule (or those of ``numbers``), each with the table's value of its
    option."""
    wanted = set(numbers) if numbers is not None else None
    options = table_options(rules)
    by_rule: dict[str, list[OptionLine]] = {}
    for o in options:
        by_rule.setdefault(o.rule, []).append(o)
    out = ["## " + _("This table's rules"), ""]
    out += [f"- **{o.rule}** {_(o.label)}: **{o.words()}**" for o in options]
    out += _rules_markdown(wanted, by_rule)
    return "\n".join(out).rstrip() + "\n"


def book_markdown() -> str:
    """The whole book in the language in use, as Markdown (``hearts rules --book`` in a language
    other than English): its title and every rule, R1 to the last, the R-numbers and the
    options' values in ``code`` as the book writes them; the preface (about the code) is left out.

    >>> from hearts.i18n import use
    >>> use("de") and book_markdown().splitlines()[2:5]
    ['## R1 Spieler, Karten, Geben', '', '### R1.1 Zahl der Spieler']
    >>> use("en")
    'en'
    """
    text = "\n".join(["# " + _("The rules of Hearts"), *_rules_markdown(None, {})])
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


def _rules_markdown(wanted: set[str] | None, by_rule: dict[str, list[OptionLine]]) -> list[str]:
    """The lines of every rule (or those of ``wanted``) in the language in use, each with the
    table's value of its options (``by_rule``)."""
    out: list[str] = []
    for r in book():
        if wanted is not None and r.number not in wanted:
            continue
        out += ["", f"{'#' * r.level} {r.number} {_(r.title)}", ""]
        for o in by_rule.get(r.number, ()):
            out += ["> " + _("At this table: {option} is {value}.").format(option=_(o.label), value=o.words()), ""]
        for b in r.blocks:
            if b.kind == "table":
                rows = [[_(c) if is_words(c) else c for c in row] for row in b.rows]
                out.append("| " + " | ".join(rows[0]) + " |")
                out.append("|" + "---|" * len(rows[0]))
                out += ["| " + " | ".join(row) + " |" for row in rows[1:]]
            else:
                out.append(("- " if b.kind == "li" else "") + _(b.text))
            out.append("")
    return out
