"""``hearts rules``: every rule option with its value and allowed values, the presets, the bots;
``hearts rules --book``: the project's rule book.

The list is made from :meth:`Rules.options() <hearts.rules.Rules.options>` (each option's
rule, label, help, allowed values and default), so it shows every option the engine has. Both
speak the language of ``--lang`` or the locale (:func:`~hearts.cli.common.choose_language`): the
book as shipped in English, else its rules through the catalogs (:func:`hearts.book.book_markdown`);
the options' names and values stay as they are typed.
"""

from __future__ import annotations

import argparse
import importlib.resources

from hearts import i18n
from hearts.book import book_markdown
from hearts.bots import BOT_NAMES, LEVELS
from hearts.cli.common import (
    Streams,
    add_lang_arg,
    add_rules_args,
    build_rules,
    choose_language,
    default_text,
    rules_args_given,
    usage_error,
)
from hearts.errors import HeartsError
from hearts.i18n import _
from hearts.rules import DEFAULT_PASS_CYCLES, PRESETS, OptionSpec, Rules, option_text
from hearts.text import Style, allowed_words, can_encode

BOOK = "rulebook.md"
"""The rule book, shipped in the package (``docs/rules.md`` in the source tree)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hearts rules`` to the command's subparsers."""
    p = sub.add_parser(
        "rules",
        help="show every rule option, its value and the allowed values (--book: the rule book)",
        description="Show every rule option with its value (under the rules given) and its allowed "
        "values, and the presets; or, with --book, print the rule book.",
    )
    add_rules_args(p)
    p.add_argument("--book", action="store_true", help="print the rule book (every rule, R1 to R7)")
    add_lang_arg(p)
    p.set_defaults(run=run)


def read_book() -> str:
    """The rule book's text (Markdown)."""
    return importlib.resources.files("hearts").joinpath(BOOK).read_text(encoding="utf-8")


def run(args: argparse.Namespace, streams: Streams) -> int:
    """``hearts rules [--book]``."""
    output = streams.stdout
    style = Style(ascii_only=not can_encode(output))

    def say(text: str = "") -> None:
        output.write(style.text(text) + "\n")

    refused = choose_language(args, streams.stderr, "rules")
    if refused is not None:
        return refused
    if args.book:
        if rules_args_given(args):
            return usage_error(streams.stderr, "rules", f"--book prints the whole rule book: drop {', '.join(rules_args_given(args))}")
        try:
            book = read_book() if i18n.current() == i18n.SOURCE else book_markdown()
        except OSError as e:
            streams.stderr.write(f"hearts rules: error: the rule book is not installed ({e})\n")
            return 1
        output.write(style.text(book))
        return 0
    try:
        rules = build_rules(args)
    except HeartsError as e:
        return usage_error(streams.stderr, "rules", str(e))

    preset = _("preset {name}").format(name=args.preset) if args.preset else _("standard")
    say(_("Rules ({preset}): {rules}").format(preset=preset, rules=rules.describe()))
    say()
    rows = []
    for spec in Rules.options():
        value = getattr(rules, spec.name)
        shown = option_text(value)
        if spec.kind == "pass_cycle" and value is None:
            shown += f" ({option_text(DEFAULT_PASS_CYCLES[rules.players])})"
        rows.append((f"{spec.name} = {shown}", spec))
    width = max(len(setting) for setting, _ in rows)
    say(_("Options (name = value; its rule and what it does; what is allowed):"))
    for setting, spec in rows:
        say(f"  {setting:<{width}}  {spec.rule} {_(spec.label)}: {_(spec.help)}")
        say("      " + _("allowed: {values}; default {default}").format(values=allowed_words(spec), default=default_words(spec)))
    say()
    say(_("Presets (R6):"))
    width = max(map(len, PRESETS))
    for name, changes in PRESETS.items():
        shown = " ".join(f"{k}={option_text(v)}" for k, v in changes.items()) or _("all defaults")
        say(f"  {name:<{width}}  {shown}")
    say()
    say(_("Set them with: {command}").format(command="hearts play --preset NAME --option NAME=VALUE [--option ...]"))
    say("  " + _("e.g. {command}").format(command="hearts play --option moon=shooter_chooses --option jack_of_diamonds=-10"))
    say(_("Bots for --bot / --bots: {bots} (options: NAME:key=value,...; see hearts.bots.make_bot)").format(bots=", ".join(BOT_NAMES)))
    say("  " + _("and the levels {levels}").format(levels=", ".join(f"{level} ({spec})" for level, spec in LEVELS.items())))
    say(_("The rule book: {command}").format(command="hearts rules --book"))
    return 0


def default_words(spec: OptionSpec) -> str:
    """An option's default as ``hearts rules`` says it in the language in use
    (:func:`~hearts.cli.common.default_text`: the value as typed, or the words for a default that
    depends on the number of players)."""
    return _("by the number of players") if spec.default is None else default_text(spec)
