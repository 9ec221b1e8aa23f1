"""The ``hearts`` command: play in the terminal, replay a record, show the rules, serve the web
table, run tournaments. One module per subcommand:

=================================  ===========================================================
:mod:`hearts.cli.play`             ``hearts play``: the line-mode table (or the full-screen one)
:mod:`hearts.cli.tui`              ``hearts tui``: the full-screen terminal table (new or resumed)
:mod:`hearts.cli.replay`           ``hearts replay FILE``: check a record and print it
:mod:`hearts.cli.analyze`          ``hearts analyze RECORD``: where each seat lost points
:mod:`hearts.cli.rules`            ``hearts rules [--book]``: the options, presets, rule book
:mod:`hearts.cli.serve`            ``hearts serve``: the web table
:mod:`hearts.cli.botworker`        ``hearts bot-worker``: the bots' moves of a service on PostgreSQL
:mod:`hearts.cli.admin`            ``hearts admin``: the operator's reports and bans
:mod:`hearts.cli.arena`            ``hearts arena``: bot tournaments
:mod:`hearts.cli.selfplay`         ``hearts selfplay``: training data from bots playing
:mod:`hearts.cli.common`           what they share: streams, rule flags, table arguments
=================================  ===========================================================

>>> import io
>>> out = io.StringIO()
>>> main(["rules", "--preset", "omnibus"], stdout=out)
0
>>> "jack_of_diamonds = -10" in out.getvalue()
True
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from hearts.cli import admin, analyze, arena, botworker, play, replay, rules, selfplay, serve, tui
from hearts.cli.common import Streams

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class _Parser(argparse.ArgumentParser):
    """An argument parser that writes its help and its errors on the streams given to :func:`main`."""

    streams: Streams | None = None

    def print_help(self, file: SupportsWrite[str] | None = None) -> None:
        super().print_help(file or (_Parser.streams.stdout if _Parser.streams else None))

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse writes --version (and help) on sys.stdout, its errors on sys.stderr: use ours
        if _Parser.streams is not None and (file is None or file is sys.stdout):
            file = _Parser.streams.stdout
        elif _Parser.streams is not None and file is sys.stderr:
            file = _Parser.streams.stderr
        super()._print_message(message, file)

    def error(self, message: str) -> NoReturn:
        stream = _Parser.streams.stderr if _Parser.streams else sys.stderr
        self.print_usage(stream)
        stream.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def package_version() -> str:
    """The installed version of pyhearts (its distribution's metadata), as ``hearts --version`` shows it.

    >>> package_version() == importlib.metadata.version("pyhearts")
    True
    """
    return importlib.metadata.version("pyhearts")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``hearts`` command (each subcommand's module adds its own)."""
    parser = _Parser(
        prog="hearts", description="The card game Hearts: play, replay or review a record, show the rules."
    )
    parser.add_argument("--version", action="version", version=f"pyhearts {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (play, tui, replay, analyze, rules, serve, botworker, admin, arena, selfplay):
        command.register(sub)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the ``hearts`` command with ``argv`` (default: the process's arguments); the exit
    code: 0 on success (and for ``--help``, ``--version`` and a bare ``hearts``, which prints the
    help), 1 for a bad record, 2 for a bad command line or rule option, 130 when interrupted.

    The streams default to the process's; tests pass their own.
    """
    streams = Streams(
        sys.stdin if stdin is None else stdin,
        sys.stdout if stdout is None else stdout,
        sys.stderr if stderr is None else stderr,
    )
    raw = list(argv) if argv is not None else sys.argv[1:]
    if raw[:1] == [arena.NAME]:  # its own parser: hearts arena --help
        return arena.run(raw[1:])
    parser = build_parser()
    _Parser.streams = streams
    try:
        args = parser.parse_args(raw)
    except SystemExit as e:  # --help (0), or a bad command line (2, reported)
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    finally:
        _Parser.streams = None
    if args.command is None:  # a bare `hearts`: the help, as for --help (git and pip do the same)
        parser.print_help(streams.stdout)
        return 0
    try:
        code: int = args.run(args, streams)
    except KeyboardInterrupt:
        streams.stderr.write("\nInterrupted.\n")
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `hearts replay FILE | head`): stop quietly, and keep
        # Python from complaining when it flushes standard output at exit.
        if streams.stdout is sys.stdout:
            with contextlib.suppress(OSError, ValueError):  # no real file descriptor
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


__all__ = ["build_parser", "main", "package_version"]
