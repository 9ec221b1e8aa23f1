"""``hearts arena``: bot tournaments (:func:`hearts.arena.arena_main` parses its own arguments)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

NAME = "arena"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """List ``hearts arena`` among the subcommands; its arguments never reach this parser."""
    sub.add_parser(
        NAME,
        help="bot tournaments with duplicate deals and confidence intervals",
        add_help=False,
        prefix_chars="\0",
    )


def run(argv: Sequence[str]) -> int:
    """``hearts arena ARGS``: the arena's own command line (``hearts arena --help``)."""
    from hearts.arena import arena_main

    return arena_main(list(argv))
