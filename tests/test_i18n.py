"""Languages (issue 42, item 1): the message catalogs, their check, their compilation at first use,
the browser's JSON and i18n.js's plural rule.

Every word a player reads comes from ``src/hearts/locale/<lang>/LC_MESSAGES/hearts.po``;
``python -m hearts.i18n --check`` fails on a message missing from a catalog or unused in the
sources; adding a language is adding one ``.po`` file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import hearts.i18n as i18n

babel = pytest.importorskip("babel")

from hearts.i18n import catalogs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def run_check(*env_locale: Path) -> subprocess.CompletedProcess[str]:
    env = None
    if env_locale:
        import os

        env = {**os.environ, "PYHEARTS_LOCALE_DIR": str(env_locale[0])}
    return subprocess.run([sys.executable, "-m", "hearts.i18n", "--check"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


def copy_locale(tmp_path: Path) -> Path:
    target = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, target)
    return target


def test_the_catalogs_are_complete_and_the_last_line_says_so() -> None:
    done = run_check()
    last = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout
    assert last.startswith("languages=4 messages=") and last.endswith(" missing=0 unused=0"), last
    messages = int(last.split()[1].split("=")[1])
    assert messages > 100  # the web table's words, the terminal's, the bots'


def test_a_missing_translation_fails_the_check_and_changes_nothing(tmp_path: Path) -> None:
    locale = copy_locale(tmp_path)
    po = locale / "de" / "LC_MESSAGES" / "hearts.po"
    text = po.read_text(encoding="utf-8")
    entry = 'msgid "Open tables"\nmsgstr "Offene Tische"'
    assert entry in text
    po.write_text(text.replace(entry, 'msgid "Open tables"\nmsgstr ""'), encoding="utf-8")
    before = {p: p.read_bytes() for p in locale.rglob("*.po*")}
    done = run_check(locale)
    assert done.returncode == 1
    assert "missing de: 'Open tables'" in done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith("missing=1 unused=0")
    assert {p: p.read_bytes() for p in locale.rglob("*.po*")} == before  # the check writes nothing


def test_an_unused_message_and_a_wrong_placeholder_fail_the_check(tmp_path: Path) -> None:
    locale = copy_locale(tmp_path)
    po = locale / "fr" / "LC_MESSAGES" / "hearts.po"
    text = po.read_text(encoding="utf-8")
    po.write_text(text + '\nmsgid "No such words"\nmsgstr "Pas de tels mots"\n', encoding="utf-8")
    es = locale / "es" / "LC_MESSAGES" / "hearts.po"
    es_text = es.read_text(encoding="utf-8")
    assert 'msgstr "Asiento {n}"' in es_text
    es.write_text(es_text.replace('msgstr "Asiento {n}"', 'msgstr "Asiento {m}"', 1), encoding="utf-8")
    done = run_check(locale)
    assert done.returncode == 1
    assert "unused fr: 'No such words'" in done.stdout
    assert "missing es: 'Seat {n}'" in done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith("missing=1 unused=1")


def test_a_language_is_one_po_file(tmp_path: Path) -> None:
    """A catalog added as one file is offered (the JSON's languages) and its words are used."""
    locale = copy_locale(tmp_path)
    nl = locale / "nl" / "LC_MESSAGES"
    nl.mkdir(parents=True)
    text = (locale / "de" / "LC_MESSAGES" / "hearts.po").read_text(encoding="utf-8")
    (nl / "hearts.po").write_text(text.replace("Language: de", "Language: nl").replace('msgstr "Offene Tische"', 'msgstr "Open tafels"'),
                                  encoding="utf-8")
    assert i18n.languages(locale) == ("de", "en", "es", "fr", "nl")
    assert i18n.negotiate("nl-BE, en;q=0.5", i18n.languages(locale)) == "nl"
    c = catalogs.catalog_json("nl", locale)
    assert c["messages"]["Open tables"] == "Open tafels"
    assert {"code": "nl", "name": "Nederlands"} in c["languages"]
    assert run_check(locale).returncode == 0


def test_a_catalog_is_compiled_once_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    data = i18n.compiled("de", cache=cache)
    assert data is not None
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].name.startswith("de-") and files[0].suffix == ".mo"

    def no_babel(source: bytes, lang: str) -> bytes:
        raise AssertionError("compiled again")

    monkeypatch.setattr(catalogs, "compile_po", no_babel)
    assert i18n.compiled("de", cache=cache) == data  # read from the cache
    assert i18n.compiled("xx", cache=cache) is None  # no such catalog


def test_without_babel_the_words_stay_english(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "hearts.i18n.catalogs", None)  # import fails, as without the extras
    monkeypatch.setenv("PYHEARTS_LOCALE_CACHE", str(tmp_path / "empty"))  # nothing compiled before
    assert i18n.compiled("de", cache=tmp_path / "empty") is None
    i18n._translation.cache_clear()
    try:
        assert i18n.translation("de").gettext("Lobby") == "Lobby"
        assert i18n.translation("de").gettext("Open tables") == "Open tables"
    finally:
        i18n._translation.cache_clear()


def test_the_translations_use_the_catalogs_plural_rules() -> None:
    de, fr = i18n.translation("de"), i18n.translation("fr")
    assert de.gettext("Open tables") == "Offene Tische"
    assert de.ngettext("{n} card", "{n} cards", 1).format(n=1) == "1 Karte"
    assert de.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 Karten"
    assert fr.ngettext("{n} card", "{n} cards", 0).format(n=0) == "0 carte"  # French: 0 is singular
    assert fr.ngettext("{n} card", "{n} cards", 2).format(n=2) == "2 cartes"


def test_the_browser_json_holds_plurals_and_the_languages() -> None:
    c = catalogs.catalog_json("fr")
    assert c["plural"] == "(n > 1)" and c["nplurals"] == 2
    assert c["messages"]["{n} card"] == ["{n} carte", "{n} cartes"]
    assert [x["name"] for x in c["languages"]] == ["Deutsch", "English", "Español", "Français"]
    assert catalogs.catalog_json("en")["messages"] == {}


def test_the_language_follows_the_locale_and_an_unknown_one_is_english() -> None:
    assert i18n.negotiate(i18n.from_environment({"LC_ALL": "es_ES.UTF-8"}), i18n.languages()) == "es"
    assert i18n.negotiate(i18n.from_environment({"LANG": "C.UTF-8"}), i18n.languages()) == "en"
    try:
        assert i18n.use("de") == "de"
        assert i18n._("Open tables") == "Offene Tische"
        assert i18n.use("tlh") == "en"
        assert i18n._("Open tables") == "Open tables"
    finally:
        i18n.use("en")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_i18n_js_reads_the_plural_rules_without_eval() -> None:
    """The browser's plural rule is parsed (a C expression), never evaluated as code; a rule it
    cannot read is refused (the page then uses English's)."""
    script = """
const { pluralRule } = await import(process.argv[1]);
const out = {};
for (const e of ["(n != 1)", "(n > 1)", "n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2", "0"]) {
  const f = pluralRule(e);
  out[e] = [0, 1, 2, 5, 22, 111].map(f);
}
for (const bad of ["alert(1)", "n +", "(n != 1", "n ? 1"]) {
  try { pluralRule(bad); out[bad] = "accepted"; } catch (err) { out[bad] = "refused"; }
}
console.log(JSON.stringify(out));
"""
    module = ROOT / "src" / "hearts" / "server" / "static" / "i18n.js"
    done = subprocess.run(["node", "--input-type=module", "-e", script, module.as_uri()], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["(n != 1)"] == [1, 0, 1, 1, 1, 1]
    assert out["(n > 1)"] == [0, 0, 1, 1, 1, 1]
    assert out["n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2"] == [2, 0, 1, 2, 1, 2]
    assert out["0"] == [0] * 6
    assert {out[b] for b in ["alert(1)", "n +", "(n != 1", "n ? 1"]} == {"refused"}


def test_the_html_marks_are_collected() -> None:
    found = [m for _line, m in catalogs.html_messages(
        '<label data-i18n><input id="x"> Sounds</label><h2 data-i18n>Open  tables <button title="Refresh"'
        ' data-i18n-title>↻</button></h2><p>not marked</p>')]
    assert found == ["Sounds", "Open tables", "Refresh"]
