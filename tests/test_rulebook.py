"""docs/rules.md, the project's rule book: every R-number the code cites is defined there,
every option is described in its own section with its default, every preset is in R6, and
the installed package reads the same text (``src/hearts/rulebook.md`` links to it).

Marker format: each rule is a heading, ``## R3. Title`` for a section and ``### R3.6 Title``
for a rule; a rule's text runs to the next such heading. An option's default is written as
``\\`value\\` **(default)**``.
"""

from __future__ import annotations

import importlib.resources
import re
from pathlib import Path

import pytest

import hearts
from hearts.rules import PRESETS, OptionSpec, Rules

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "docs" / "rules.md"
SOURCE = ROOT / "src" / "hearts"
CITED = re.compile(r"(?<![A-Za-z0-9_])R(\d+)(?:\.(\d+))?(?![0-9A-Za-z_])")
HEADING = re.compile(r"^(#{2,3}) (R\d+(?:\.\d+)?)\.?(?:\s|$)", re.MULTILINE)


def book_text() -> str:
    return BOOK.read_text(encoding="utf-8")


def sections(text: str) -> dict[str, str]:
    """Each rule's text, from its heading to the next rule heading (of any level)."""
    found = list(HEADING.finditer(text))
    out: dict[str, str] = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        number = m.group(2)
        assert number not in out, f"{number} is defined twice in docs/rules.md"
        level = 2 if "." not in number else 3
        assert len(m.group(1)) == level, f"{number} should be a level-{level} heading"
        out[number] = text[m.start() : end]
    return out


def cited_numbers() -> set[str]:
    """Every R-number cited in the package's Python source."""
    cited: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        for m in CITED.finditer(path.read_text(encoding="utf-8")):
            cited.add(f"R{m.group(1)}" + (f".{m.group(2)}" if m.group(2) else ""))
    return cited


def shown(value: object) -> str:
    """An option value as the book writes it (as typed on the command line)."""
    if value is None:
        return "default"  # pass_cycle: the default rotation for the number of players
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def test_the_pattern_finds_citations_and_skips_lookalikes() -> None:
    text = 'raise RulesError("R3.6: no") # R7, (R4.2–R4.4) sha="R2D2" FOOR1 R10x R11'
    found = [m.group(0) for m in CITED.finditer(text)]
    assert found == ["R3.6", "R7", "R4.2", "R4.4", "R11"]


def test_the_source_cites_rules() -> None:
    cited = cited_numbers()
    # A sanity check that the scan works at all: these are cited in rules.py and mechanics.py.
    assert {"R1.2", "R2.2", "R3.6", "R3.7", "R4.4", "R6"} <= cited


def test_every_cited_rule_number_is_defined_in_the_book() -> None:
    defined = set(sections(book_text()))
    missing = sorted(cited_numbers() - defined)
    assert not missing, f"R-numbers cited in src/hearts but not headings in docs/rules.md: {missing}"


def test_the_book_has_sections_r1_to_r7_in_order() -> None:
    numbers = list(sections(book_text()))
    top = [n for n in numbers if "." not in n]
    assert top == [f"R{i}" for i in range(1, 8)]
    # Every rule heading sits under its own section, in increasing order.
    keys = [tuple(int(p) for p in n[1:].split(".")) for n in numbers]
    assert keys == sorted(keys)
    for n in numbers:
        if "." in n:
            assert n.split(".")[0] in top


@pytest.mark.parametrize("spec", Rules.options(), ids=lambda s: s.name)
def test_every_option_is_in_its_rule_section_with_its_default(spec: OptionSpec) -> None:
    book = sections(book_text())
    assert spec.rule in book, f"{spec.name}: rule {spec.rule} has no heading"
    text = book[spec.rule]
    assert f"Option `{spec.name}`" in text, f"`{spec.name}` is not introduced in {spec.rule}"
    default = f"`{shown(spec.default)}` **(default)**"
    assert default in text, f"{spec.rule} does not mark {default} for `{spec.name}`"
    assert text.count("**(default)**") == sum(
        1 for s in Rules.options() if s.rule == spec.rule
    ), f"{spec.rule} marks a different number of defaults than it has options"
    for choice in spec.choices:
        assert f"`{choice}`" in text, f"{spec.rule}: value `{choice}` of `{spec.name}` missing"
    if spec.kind == "bool":
        assert "`true`" in text and "`false`" in text
    if spec.kind == "int" and spec.name != "pass_count":
        assert f"`{spec.low}`" in text and f"`{spec.high}`" in text, f"{spec.name}: range not given"


def test_the_book_names_no_option_that_does_not_exist() -> None:
    named = set(re.findall(r"Option `([a-z_]+)`", book_text()))
    assert named == {spec.name for spec in Rules.options()}


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_is_in_r6(name: str) -> None:
    r6 = sections(book_text())["R6"]
    assert f"- `{name}`:" in r6
    for option, value in PRESETS[name].items():
        assert f"`{option} = {shown(value)}`" in r6, f"preset {name}: {option} not described"


def test_the_clarified_queen_lead_rules() -> None:
    book = sections(book_text())
    r36 = " ".join(book["R3.6"].split())
    assert "Under `queen_lead = after_break`, a leader whose hand holds only point cards" in r36
    assert "may lead **any** of them" in r36
    r37 = " ".join(book["R3.7"].split())
    assert "applies only with `queen_lead = anytime`" in r37


def test_the_four_seat_names_and_left_are_kept() -> None:
    r14 = " ".join(sections(book_text())["R1.4"].split())
    assert "**N, E, S, W**" in r14
    assert "left of seat i is seat i+1" in r14


def test_the_installed_package_reads_the_book() -> None:
    resource = importlib.resources.files(hearts).joinpath("rulebook.md")
    assert resource.read_text(encoding="utf-8") == book_text()


def test_the_package_copy_is_a_relative_link_in_a_checkout() -> None:
    link = SOURCE / "rulebook.md"
    if not link.is_symlink():  # pragma: no cover - e.g. a checkout without symlinks
        pytest.skip("src/hearts/rulebook.md is not a symlink here")
    assert str(link.readlink()) == "../../docs/rules.md"
