"""What a table's seats and tables are called: a seat's name as people read it, the bots'
friendly names, a table's id and its rematch's."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from typing import Final

from hearts.record import Seat
from hearts.server.storage import SeatRow, id_of

TABLE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id looks like (the server makes 8 letters and digits); others name no table."""


def record_seat(seat: SeatRow) -> Seat:
    """A seat as a record names it: its name and, for a bot, the bot's spec."""
    return Seat(seat_name(seat), seat.bot if seat.kind == "bot" else None)


def seat_name(seat: SeatRow) -> str:
    """A seat's name as people read it: the stored one; ``Player 2`` for a person who has not
    chosen one yet (:meth:`Table.unnamed`); empty for an open seat.

    >>> seat_name(SeatRow(1, "human", None, None, "h")), seat_name(SeatRow(2, "bot", "Ada", "hard", None))
    ('Player 2', 'Ada')
    """
    if seat.name:
        return seat.name
    return f"Player {seat.seat + 1}" if seat.kind == "human" else ""


FRIENDLY_NAMES: Final = (
    "Ada", "Bea", "Cal", "Dot", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jem",
    "Kit", "Lou", "Max", "Ned", "Oli", "Pip", "Roz", "Sam", "Tom", "Viv",
)
"""The names bots get (shown with their level: "Ada (hard)")."""


def bot_names(seed: int, count: int, taken: Iterable[str] = ()) -> list[str]:
    """``count`` distinct names for a table's bots, drawn from the table's ``seed`` (the same
    seed gives the same names), none of them one of the ``taken`` names (in any case).

    >>> bot_names(7, 3) == bot_names(7, 3), len(set(bot_names(7, 5))), "Ada" in bot_names(7, 19, ["ada"])
    (True, 5, False)
    """
    used = {name.casefold() for name in taken}
    free = [name for name in FRIENDLY_NAMES if name.casefold() not in used]
    return random.Random(seed).sample(free, count)


def rematch_id(table_id: str) -> str:
    """The id of a finished table's rematch: made from the table's id, so that every process
    makes the same one and the store lets the first of them create it
    (:class:`~hearts.server.storage.TableExists` for the others).

    >>> rematch_id("abc") == rematch_id("abc") != rematch_id("abd"), bool(TABLE_ID.fullmatch(rematch_id("abc")))
    (True, True)
    """
    digest = hashlib.sha256(f"pyhearts rematch of {table_id}".encode()).digest()
    return id_of(digest[:6])

