"""``hearts rules``: every rule option with its value and allowed values, the presets, the bots;
``hearts rules --book``: the project's rule book.

The list is made from :meth:`Rules.options() <hearts.rules.Rules.options>` (each option's
rule, label, help, allowed values and default), so it shows every option the engine has.
"""

from __future__ import annotations

import argparse
import importlib.resources

from hearts.bots import BOT_NAMES, LEVELS
from hearts.cli.common import (
    Streams,
    add_rules_args,
    build_rules,
    default_text,
    rules_args_given,
    usage_error,
)
from hearts.errors import HeartsError
from hearts.rules import DEFAULT_PASS_CYCLES, PRESETS, Rules, option_text
from hearts.text import Style, can_encode

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

    if args.book:
        if rules_args_given(args):
            return usage_error(streams.stderr, "rules", f"--book prints the whole rule book: drop {', '.join(rules_args_given(args))}")
        try:
            book = read_book()
        except OSError as e:
            streams.stderr.write(f"hearts rules: error: the rule book is not installed ({e})\n")
            return 1
        output.write(style.text(book))
        return 0
    try:
        rules = build_rules(args)
    except HeartsError as e:
        return usage_error(streams.stderr, "rules", str(e))

    say(f"Rules ({'preset ' + args.preset if args.preset else 'standard'}): {rules.describe()}")
    say()
    rows = []
    for spec in Rules.options():
        value = getattr(rules, spec.name)
        shown = option_text(value)
        if spec.kind == "pass_cycle" and value is None:
            shown += f" ({option_text(DEFAULT_PASS_CYCLES[rules.players])})"
        rows.append((f"{spec.name} = {shown}", spec))
    width = max(len(setting) for setting, _ in rows)
    say("Options (name = value; its rule and what it does; what is allowed):")
    for setting, spec in rows:
        say(f"  {setting:<{width}}  {spec.rule} {spec.label}: {spec.help}")
        say(f"      allowed: {spec.allowed()}; default {default_text(spec)}")
    say()
    say("Presets (R6):")
    width = max(map(len, PRESETS))
    for preset, changes in PRESETS.items():
        shown = " ".join(f"{k}={option_text(v)}" for k, v in changes.items()) or "all defaults"
        say(f"  {preset:<{width}}  {shown}")
    say()
    say("Set them with: hearts play --preset NAME --option NAME=VALUE [--option ...]")
    say("  e.g. hearts play --option moon=shooter_chooses --option jack_of_diamonds=-10")
    say(f"Bots for --bot / --bots: {', '.join(BOT_NAMES)} (options: NAME:key=value,...; see hearts.bots.make_bot)")
    say(f"  and the levels {', '.join(f'{level} ({spec})' for level, spec in LEVELS.items())}")
    say("The rule book: hearts rules --book")
    return 0
