"""Ratings of the web table's players: people and bots on one OpenSkill scale.

A table created ``"rated": true`` (every person at it sits with a player profile,
:mod:`hearts.server.players`) is rated once its game is over: the final totals rank the seats
(R5: the lowest total first; equal totals share a place, :func:`places`), but for the people
who left it (:func:`leavers`: the stand-in bot played for them at its end), ranked last
whatever the stand-in scored — leaving a rated game counts as a loss; and the
:data:`MODEL` updates each person's ``mu`` and ``sigma``. :func:`settle` does it, exactly once
per table whichever process calls it and however often: the store's
:meth:`~hearts.server.storage.Storage.rate_game` marks the table rated in the transaction that
writes the new ratings. The process that logs a game's last action calls it (a server process,
or the bot worker that made the last move); :func:`settle_pending` rates, when a server starts,
the finished rated games whose process stopped before it could.

**The model**: Plackett–Luce (``openskill.models.PlackettLuce``). A game of Hearts ends in a
ranking of 3 to 6 individuals, not in a win or loss between two teams; Plackett–Luce is the
model of a ranking (each place a choice among those not placed yet), takes ties as shared
ranks, and is OpenSkill's default: its update is cheap and stable for many players, where the
Thurstone–Mosteller variants are made for pairwise comparisons.

**Bots anchor the scale**: a bot is a player of its own per level ("Bot (hard)"), whose rating
is fixed (:data:`BOT_ANCHORS`, with a small :data:`ANCHOR_SIGMA`) and never updated, so the
scale cannot drift as people come and go. The anchors come from the levels' measured strength:
at one table (``hearts arena easy medium hard expert``, 200 rounds, when first measured) they scored
``easy`` 10.0, ``medium`` 9.5, ``hard`` 4.6 and ``expert`` 5.6 points per round, where an equal
share is 6.5; an anchor is ``25 + (6.5 − points per round)`` — the default start (25) for an
average player, one ``mu`` point per point a round saved. ``hard`` takes the pooled 5.1 points a
round of the two search levels, and ``expert`` half a point less: head to head it scores
0.54 points a round fewer than ``hard`` (2,000 deals, ``docs/bots.md``).

>>> places([40, 102, 40, 77])
[1, 4, 1, 3]
>>> round(conservative(25.0, 25 / 3), 6)
0.0
>>> shown(23.0, 25 / 3), shown(30.2, 1.0), shown(21.5, 1.0)
(0, 27, 19)
>>> BOT_ANCHORS
{'easy': 21.5, 'medium': 22.0, 'hard': 26.4, 'expert': 26.9}
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from hearts.bots.registry import LEVELS
from hearts.server.logs import fields
from hearts.server.storage import PlayerRow, SeatRow, Storage, StoreError, load_game

if TYPE_CHECKING:
    from openskill.models import PlackettLuce

log = logging.getLogger("hearts.server")

DEFAULT_MU: Final = 25.0
"""A new profile's ``mu`` (OpenSkill's default)."""
DEFAULT_SIGMA: Final = 25.0 / 3
"""A new profile's ``sigma`` (OpenSkill's default: its conservative rating starts at 0)."""
ANCHOR_SIGMA: Final = 1.0
"""The uncertainty given to a bot's fixed rating: its strength is measured, not guessed."""
BOT_ANCHORS: Final[dict[str, float]] = {"easy": 21.5, "medium": 22.0, "hard": 26.4, "expert": 26.9}
"""Each bot level's fixed ``mu`` (see the module's text for where they come from)."""
assert set(BOT_ANCHORS) == set(LEVELS)


@functools.cache
def model() -> PlackettLuce:
    """The rating model (made once; ``openskill`` is imported only when a game is rated)."""
    from openskill.models import PlackettLuce

    return PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


def conservative(mu: float, sigma: float) -> float:
    """The rating shown on the leaderboard: ``mu - 3 sigma`` (the player is very probably at
    least this good)."""
    return mu - 3 * sigma


PROVISIONAL_GAMES: Final = 5
"""A person's rating is *provisional* until this many rated games: its uncertainty is still
large (a new profile's conservative rating starts at 0 and may dip below it)."""


def shown(mu: float, sigma: float) -> int:
    """The rating as a player reads it: the conservative rating (:func:`conservative`) as a
    whole number, never below 0 (a new player's first games may take ``mu - 3 sigma`` a little
    below the start; the leaderboard still orders by the exact value), halves rounded up."""
    return max(0, math.floor(conservative(mu, sigma) + 0.5))


def places(totals: Sequence[int], left: Collection[int] = ()) -> list[int]:
    """Each seat's place by its final total (R5: the lowest first; equal totals share the
    better place): 1 + how many seats have a lower total. The seats in ``left`` (people who
    left the game: :func:`leavers`) come after all the others whatever their totals, sharing
    the last place.

    >>> places([40, 102, 40, 77], left=[0])
    [4, 3, 1, 2]
    """
    stayed = [t for s, t in enumerate(totals) if s not in left]
    return [len(stayed) + 1 if s in left else 1 + sum(other < mine for other in stayed) for s, mine in enumerate(totals)]


def leavers(seats: Sequence[SeatRow]) -> list[int]:
    """The people who left a finished game: the person seats the table's stand-in bot was
    playing for when it ended (their clock ran out, and they did not take the seat back). For
    the ratings they lost — whatever the stand-in scored for them."""
    return [s.seat for s in seats if s.kind == "human" and s.away]


def bot_name(level: str) -> str:
    """How the leaderboard names a bot level's anchor: ``Bot (hard)``."""
    return f"Bot ({level})"


def anchors() -> list[dict[str, Any]]:
    """The bot anchors as leaderboard rows (fixed ratings: no games counted)."""
    return [
        {"id": None, "bot": level, "name": bot_name(level), "mu": mu, "sigma": ANCHOR_SIGMA,
         "rating": conservative(mu, ANCHOR_SIGMA), "shown": shown(mu, ANCHOR_SIGMA), "provisional": False,
         "games": None}
        for level, mu in BOT_ANCHORS.items()
    ]


@dataclass(frozen=True)
class Entrant:
    """A seat of a rated game: a person's profile (``player``) or a bot level's anchor (``level``)."""

    player: str | None = None
    level: str | None = None


class Unratable(StoreError):
    """A finished game that cannot be rated (a person seat without a profile, a profile in two
    seats, a bot that is no level); it is logged and left unrated."""


def entrants(seats: Sequence[SeatRow]) -> list[Entrant]:
    """Who each seat is for the ratings; :class:`Unratable` if a seat has no rating."""
    out = []
    for s in seats:
        if s.kind == "bot" and s.bot in BOT_ANCHORS:
            out.append(Entrant(level=s.bot))
        elif s.kind == "human" and s.player_id is not None:
            out.append(Entrant(player=s.player_id))
        else:
            raise Unratable(f"seat {s.seat} ({s.kind}, {s.bot or 'no bot'}) has no rating")
    people = [e.player for e in out if e.player is not None]
    if len(set(people)) != len(people):
        raise Unratable("a player profile sits at two seats")
    if not people:
        raise Unratable("no person sits at the table")
    return out


def rate(
    seats: Sequence[Entrant], profiles: Sequence[PlayerRow], totals: Sequence[int], left: Collection[int] = ()
) -> list[tuple[float, float]]:
    """The new ``(mu, sigma)`` of each person of a finished game (in seat order), the bots'
    anchors taking part with their fixed ratings, ranked by ``totals`` and who ``left``
    (:func:`places`).

    >>> seats = [Entrant(player="p1"), Entrant(level="hard"), Entrant(level="easy"), Entrant(level="easy")]
    >>> [(mu, sigma)] = rate(seats, [PlayerRow("p1", "Ann", 25.0, 25 / 3, 0)], [20, 90, 101, 60])
    >>> mu > 25 and sigma < 25 / 3
    True
    """
    m = model()
    by_id = {p.id: p for p in profiles}
    teams = [
        [m.rating(mu=by_id[e.player].mu, sigma=by_id[e.player].sigma) if e.player is not None
         else m.rating(mu=BOT_ANCHORS[e.level or ""], sigma=ANCHOR_SIGMA)]
        for e in seats
    ]
    new = m.rate(teams, ranks=[float(p) for p in places(totals, left)])
    return [(float(team[0].mu), float(team[0].sigma)) for e, team in zip(seats, new, strict=True) if e.player is not None]


async def settle(store: Storage, table_id: str) -> bool:
    """Rate a table's game if it is a rated table whose game is over and not rated yet;
    whether this call rated it. Safe to call from any process, any number of times: the store
    rates a game once. An unratable game is logged, and left unrated."""
    row = await store.log.table(table_id)
    if row is None or not row.config.get("rated") or not row.finished:
        return False
    stored = await load_game(store, table_id)
    if stored is None or not stored.game.is_over:
        return False
    try:
        seats = entrants(stored.seats)
    except Unratable as e:
        log.warning("a rated game cannot be rated", extra=fields(table=table_id, reason=str(e)))
        return False
    totals = list(stored.game.totals)
    left = leavers(stored.seats)
    people = [e.player for e in seats if e.player is not None]
    done = await store.players.rate_game(table_id, people, lambda profiles: rate(seats, profiles, totals, left))
    if done:
        log.info("game rated", extra=fields(table=table_id, players=len(people), totals=totals, left=left))
    return done


async def settle_pending(store: Storage) -> int:
    """Rate the finished rated games left unrated (see :func:`settle`); how many were."""
    count = 0
    for table_id in await store.players.unrated():
        try:
            count += await settle(store, table_id)
        except Exception:
            log.exception("a rated game could not be rated", extra=fields(table=table_id))
    return count
