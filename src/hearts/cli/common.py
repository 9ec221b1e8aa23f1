"""What several subcommands share: the streams, usage errors, and the arguments of a table.

The rule flags (``--preset``, ``--rules``, ``--option NAME=VALUE``, ``--players``,
``--target``) and their help are made from :meth:`Rules.options() <hearts.rules.Rules.options>`;
:func:`build_rules` turns them into :class:`~hearts.rules.Rules`.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_rules_args(p)
>>> build_rules(p.parse_args(["--preset", "omnibus", "-o", "moon=shooter_chooses", "--players", "3"])).describe()
'players=3 jack_of_diamonds=-10 moon=shooter_chooses'
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from hearts import i18n, record
from hearts.bots.guard import BOT_ERROR_HELP, BOT_ERROR_POLICIES, DEFAULT_BOT_ERROR
from hearts.bots.registry import check_table
from hearts.errors import BotError, HeartsError, RulesError
from hearts.rules import PRESETS, OptionSpec, Rules, option_text
from hearts.text import bots_help


@dataclass(frozen=True)
class Streams:
    """Where a subcommand reads and writes (the process's streams, or a test's)."""

    stdin: TextIO
    stdout: TextIO
    stderr: TextIO


def usage_error(errors: TextIO, command: str, message: str) -> int:
    """Report a bad command line or option of ``hearts COMMAND``; the exit code (2)."""
    errors.write(f"hearts {command}: error: {message}\n")
    return 2


def table_refusal(command: str, error: HeartsError) -> str:
    """The one line that refuses a table of ``hearts COMMAND``, pointing to where what was
    wrong is listed: a rule option's error to ``hearts rules``, a bot spec's to the command's
    ``--help`` (which lists every bot and its options).

    >>> from hearts.bots import make_bot
    >>> try:
    ...     make_bot("nobody")
    ... except HeartsError as e:
    ...     print(table_refusal("play", e))
    unknown bot 'nobody'; known bots: random, ... expert (every bot and its options: hearts play --help)
    """
    if isinstance(error, RulesError):
        return f"{error} (see 'hearts rules')"
    if isinstance(error, BotError):
        return f"{error} (every bot and its options: hearts {command} --help)"
    return str(error)


def isatty(stream: object) -> bool:
    """True when ``stream`` is an open interactive terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed stream
        return False


# --- the rules ---------------------------------------------------------------------------------

SHORTCUTS = ("players", "target")
"""Options that also have a flag of their own (``--players N``)."""


def add_rules_args(p: argparse.ArgumentParser) -> None:
    """The rule flags: ``--preset``, ``--rules``, ``--option NAME=VALUE``, ``--players``, ``--target``."""
    p.add_argument("--preset", choices=list(PRESETS), help="a named rule set of R6 (default: standard)")
    p.add_argument(
        "--rules",
        metavar="JSON_OR_FILE",
        help='options as a JSON object, or a file holding one, e.g. \'{"moon": "shooter_chooses"}\'',
    )
    p.add_argument(
        "--option",
        "-o",
        action="append",
        metavar="NAME=VALUE",
        help="set one rule option (repeatable); the options and their values are listed below",
    )
    for name in SHORTCUTS:
        spec = Rules.option(name)
        p.add_argument(
            f"--{name}",
            type=int,
            metavar="N",
            help=f"{spec.help} ({spec.rule}; {spec.allowed()}; default {spec.default}); as --option {name}=N",
        )


def options_help() -> str:
    """The rule options as a help text (an epilog): name, rule, what it does, allowed values.

    >>> print(options_help().splitlines()[14])
      moon                          R4.4  how shooting the moon scores: add_to_others | ... (default add_to_others)
    """
    specs = Rules.options()
    width = max(len(spec.name) for spec in specs)
    lines = ["Rule options (--option NAME=VALUE; see their values with 'hearts rules'):"]
    for spec in specs:
        lines.append(
            f"  {spec.name:<{width}}  {spec.rule:<4}  {spec.help}: {spec.allowed()} (default {default_text(spec)})"
        )
    return "\n".join(lines)


def default_text(spec: OptionSpec) -> str:
    """An option's default as help text shows it (the default pass cycle depends on the players).

    >>> default_text(Rules.option("moon")), default_text(Rules.option("pass_cycle"))
    ('add_to_others', 'by the number of players')
    """
    return "by the number of players" if spec.default is None else option_text(spec.default)


def build_rules(args: argparse.Namespace) -> Rules:
    """The rules of ``--preset``, then ``--rules``, then the ``--option``s, then ``--players``
    and ``--target`` (later ones win). Raises :class:`~hearts.errors.RulesError` with a clear message,
    and a :class:`~hearts.errors.HeartsError` when a bot of ``--bot``/``--bots`` (a table's
    arguments) cannot play the rules (:func:`hearts.bots.check_table`: the table is not set)."""
    data: dict[str, Any] = dict(PRESETS[args.preset]) if args.preset else {}
    if args.rules:
        data.update(read_rules_arg(args.rules))
    rules = Rules.from_dict(data)
    options = list(args.option or [])
    options += [f"{name}={getattr(args, name)}" for name in SHORTCUTS if getattr(args, name) is not None]
    rules = rules.with_options(options) if options else rules
    if "bots" in args and "bot" in args:
        check_table(bot_args(args) or [], rules)
    return rules


def rules_args_given(args: argparse.Namespace) -> list[str]:
    """The rule flags given on the command line (``["--preset", "--option"]``)."""
    names = ["preset", "rules", "option", *SHORTCUTS]
    return [f"--{name}" for name in names if getattr(args, name) is not None]


def read_rules_arg(text: str) -> dict[str, Any]:
    """The options of ``--rules``: a JSON object, or the file holding one; a
    :class:`~hearts.errors.RulesError` says what is wrong."""
    source = "--rules"
    if not text.lstrip().startswith("{"):
        source = f"rules file {text!r}"
        try:
            text = Path(text).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise RulesError(f"cannot read {source}: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RulesError(f"{source} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise RulesError(f'{source} must be a JSON object of options, e.g. {{"moon": "shooter_chooses"}}')
    return data


# --- a table: you and the bots -----------------------------------------------------------------


def add_table_args(p: argparse.ArgumentParser) -> None:
    """The arguments of a game at a table (``hearts play``, ``hearts tui``): the seed, the
    rules, your name, the bots (the same default level at both tables), the record, what a
    bot's failure does (:mod:`hearts.bots.guard`)."""
    p.add_argument("--seed", type=int, metavar="N", help="seed for the deals and the bots (reproducible)")
    add_rules_args(p)
    p.add_argument("--name", help="your name (default: You)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--bot", metavar="SPEC", help=f"the bots at every other seat: {bots_help()}")
    who.add_argument(
        "--bots", nargs="+", metavar="SPEC", help="one level or bot per other seat, clockwise from your left"
    )
    p.add_argument("--record", metavar="FILE", help="save the game record here (after every round too)")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="let --record replace a game record already in FILE (without it, an existing file is refused)",
    )
    p.add_argument("--on-bot-error", choices=BOT_ERROR_POLICIES, default=DEFAULT_BOT_ERROR, help=BOT_ERROR_HELP)
    add_lang_arg(p)


# --- the language ------------------------------------------------------------------------------


def add_lang_arg(p: argparse.ArgumentParser) -> None:
    """``--lang LANG``: the language of what a command prints for a player (``hearts play``,
    ``tui``, ``rules``, ``replay``, ``analyze``); :func:`choose_language` reads it."""
    p.add_argument(
        "--lang",
        metavar="LANG",
        help="the language a player reads: de, en, es or fr, or any language added as a catalog "
        "(default: the locale's, from LANGUAGE, LC_ALL, LC_MESSAGES or LANG; else English); "
        "this help stays English",
    )


def choose_language(args: argparse.Namespace, errors: TextIO, command: str) -> int | None:
    """Make the language of ``--lang`` (else the locale's) the language in use
    (:func:`hearts.i18n.choose_language`), before anything is printed; the exit code (2) of an
    unknown language, said on ``errors``, else None.

    >>> import io
    >>> err = io.StringIO()
    >>> choose_language(argparse.Namespace(lang="xx"), err, "play"), err.getvalue()
    (2, "hearts play: error: --lang 'xx': no such language; one of de, en, es, fr\\n")
    >>> choose_language(argparse.Namespace(lang="en"), err, "play") is None
    True
    """
    try:
        i18n.choose_language(getattr(args, "lang", None))
    except i18n.UnknownLanguage as e:
        return usage_error(errors, command, str(e))
    return None


def check_record_path(path: str | None, overwrite: bool = False, resume: str | None = None) -> None:
    """Raise :class:`~hearts.errors.HeartsError` unless a game record can be saved at ``path``
    (``--record``): its folder exists and may be written, and it is not a folder nor a
    read-only file; a file already there is refused unless ``overwrite`` (``--overwrite``) and
    it is a game record (or empty), or it is the record being resumed (``resume``, ``--resume``):
    as ``hearts selfplay`` refuses a folder that is not empty. Nothing is written (``None``: no
    record, nothing to check).

    >>> check_record_path("no-such-folder/game.json")
    Traceback (most recent call last):
    hearts.errors.HeartsError: cannot save the record to 'no-such-folder/game.json': no folder 'no-such-folder'
    >>> check_record_path(".")
    Traceback (most recent call last):
    hearts.errors.HeartsError: cannot save the record to '.': it is a folder
    """
    if path is None:
        return
    target = Path(path)
    folder = target.parent
    why = ""
    if target.is_dir():
        why = "it is a folder"
    elif not folder.is_dir():
        why = f"no folder {str(folder)!r}"
    elif target.exists() and not os.access(target, os.W_OK):
        why = "the file is read-only"
    elif not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        why = f"the folder {str(folder)!r} is not writable"
    elif target.exists() and not (resume is not None and _same_file(target, Path(resume))):
        why = _existing_record(target, overwrite)
    if why:
        raise HeartsError(f"cannot save the record to {path!r}: {why}")


def _existing_record(target: Path, overwrite: bool) -> str:
    """Why ``--record`` may not replace the file ``target`` (``""``: it may): not without
    ``overwrite``, and never a file that is neither empty nor a game record."""
    try:
        empty = target.stat().st_size == 0
        is_record = empty or isinstance(record.load(target), record.GameRecord)
    except (OSError, HeartsError):
        is_record = False
    if not is_record:
        return "the file is not a game record (--overwrite replaces a game record only); name another file"
    if overwrite:
        return ""
    held = "it is an empty file" if empty else "it holds a game record already"
    return f"{held}; give --overwrite to replace it (or go on with it: hearts tui --resume {target})"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def bot_args(args: argparse.Namespace) -> list[str] | None:
    """The bot specs given with ``--bot`` or ``--bots`` (``None``: neither)."""
    if args.bots:
        return list(args.bots)
    return [args.bot] if args.bot else None
