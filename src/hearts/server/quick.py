"""Quick match (issue 40): people who ask for a game are queued with their choice of rule set
(:data:`PRESETS`, or ``any``), rated or not, in the database (:mod:`.storage.quick`), and the
:class:`Matchmaker` of every server process seats them together: people of close rating
(:func:`match_window`, wider as they wait) at a new table as soon as
enough are found, or, once the oldest has waited the time they set, with bots of the queue's
level (:func:`closest_level`, by the bots' anchors
:data:`~hearts.server.ratings.BOT_ANCHORS`) in the empty seats. A quick table is
marked ``"quick": true`` in its stored settings (its preset too) and made by the manager as
any other. A person no group holds may take a bot's seat at a quick table of their rules that
has just started, before its round's first card (:mod:`hearts.server.quickseats`).

Whoever is in the queue is kept fresh by their connection (:mod:`.quicksession`); a place not
kept fresh for :data:`FRESH` seconds is not seated (its player went away; their new connection
takes it again), and one not kept for :data:`DROP` seconds is forgotten. The matchmaker never
seats a blocked pair together and refuses a banned profile (:mod:`hearts.server.company`):
:func:`blocked_pairs` and :func:`is_banned` are where it asks the store.

>>> rows = [QueueRow(f"p{i}", f"P{i}", "standard", False, 25.0 + i, 20, 100.0 + i, 105, "c") for i in range(5)]
>>> [([m.player_id for m in g.members], g.preset, g.bots) for g in form_groups(rows, 105.0)]
[(['p0', 'p1', 'p2', 'p3'], 'standard', 0)]
>>> [len(g.members) for g in form_groups(rows[:2], 121.0)]  # p0 waited its 20 s: bots fill
[2]
>>> form_groups(rows[:4], 105.0, {frozenset(("p0", "p3"))})  # a blocked pair is never seated together
[]
>>> far = [QueueRow("a", "A", "standard", False, 10.0, 20, 100.0, 105, "c"),
...        QueueRow("b", "B", "standard", False, 35.0, 20, 101.0, 105, "c")]
>>> form_groups(far, 119.0), [len(g.members) for g in form_groups(far, 121.0)]  # the wait over: any rating
([], [2])
>>> old = [QueueRow(f"p{i}", f"P{i}", "three", False, 25.0, 20, 100.0, 105, "c") for i in range(3)]
>>> [(g.preset, len(g.members)) for g in form_groups(old, 105.0)]  # a row of before the rename (RENAMED)
[('black_maria', 3)]
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Final

from hearts.rules import Rules
from hearts.server.background import Background
from hearts.server.limits import RateLimited
from hearts.server.logs import fields
from hearts.server.outage import Outage, is_outage
from hearts.server.protocol import SeatRequest, TableRequest
from hearts.server.quickseats import take_bot_seats
from hearts.server.ratings import BOT_ANCHORS
from hearts.server.storage import SeatConflict, Storage, hash_token
from hearts.server.storage.quick import QueueRow, QuickQueue, QuickSeat, Seating
from hearts.server.tables import Manager

log = logging.getLogger("hearts.server")


@dataclass(frozen=True)
class Preset:
    """A rule set of the quick match: its words and its rules."""

    label: str
    rules: Rules


PRESETS: Final[dict[str, Preset]] = {
    "standard": Preset("the standard game", Rules.preset("standard")),
    "omnibus": Preset("Omnibus (J♦ −10)", Rules.preset("omnibus")),
    "black_maria": Preset("Black Maria (three players)", Rules.preset("black_maria")),
}
"""The quick match's rule sets (issue 40: the standard game, Omnibus with the J♦, Black Maria
for three, docs/rules.md R6); ``any`` takes whichever seats the player soonest."""
ANY: Final = "any"
RENAMED: Final = {"three": "black_maria"}
"""Presets of earlier versions by their present names: ``three`` (Hearts for three players)
became ``black_maria``. A queue row stored, or a request sent, under an old name is read as
the present one (:func:`preset_name`)."""


def preset_name(name: str) -> str:
    """The present name of a quick-match preset (:data:`RENAMED`); any other name as it is.

    >>> preset_name("three"), preset_name("omnibus"), preset_name("nonsense")
    ('black_maria', 'omnibus', 'nonsense')
    """
    return RENAMED.get(name, name)

FRESH: Final = 5.0
"""Seconds a place stays seatable without its connection's word (it speaks every second)."""
DROP: Final = 120.0
"""Seconds after which a place nobody keeps is forgotten."""
TICK: Final = 0.5
"""Seconds between two rounds of matchmaking in each process."""


MATCH_WINDOW: Final = 2.0
"""How far apart (in ``mu``) the quick match seats people who just joined its queue."""
MATCH_WIDENING: Final = 0.5
"""How much wider the window grows each second a player waits."""


def match_window(waited: float) -> float:
    """The greatest difference of ``mu`` the quick match accepts between a player who waited
    ``waited`` seconds and those seated with them: narrow at first, wider with the wait.

    >>> match_window(0), match_window(20)
    (2.0, 12.0)
    """
    return MATCH_WINDOW + MATCH_WIDENING * max(0.0, waited)


def closest_level(mu: float) -> str:
    """The bot level whose anchor is nearest ``mu``: the bots that fill a quick table.

    >>> closest_level(25.0), closest_level(10.0), closest_level(40.0)
    ('hard', 'easy', 'expert')
    """
    return min(BOT_ANCHORS, key=lambda level: (abs(BOT_ANCHORS[level] - mu), level))


@dataclass(frozen=True)
class Group:
    """People to seat at one table: the preset, who, and how many bots fill the rest."""

    preset: str
    members: tuple[QueueRow, ...]
    bots: int

    @property
    def rated(self) -> bool:
        return self.members[0].rated


def _fits(row: QueueRow, preset: str) -> bool:
    return row.preset in (preset, ANY)


def _pick(anchor: QueueRow, others: Sequence[QueueRow], preset: str, now: float,
          blocked: Collection[frozenset[str]]) -> list[QueueRow]:
    """The anchor and the nearest in rating who may sit with it (and with each other) at a
    table of ``preset``, at most its seats: within the anchor's :func:`match_window`, or of
    any rating once the anchor waited its ``fill_after`` (people rather than bots)."""
    waited = now - anchor.queued
    window = match_window(waited) if waited < anchor.fill_after else float("inf")
    near = sorted((r for r in others if r.rated == anchor.rated and _fits(r, preset)
                   and abs(r.mu - anchor.mu) <= window), key=lambda r: (abs(r.mu - anchor.mu), r.queued))
    chosen = [anchor]
    for r in near:
        if len(chosen) == PRESETS[preset].rules.players:
            break
        if all(frozenset((r.player_id, c.player_id)) not in blocked for c in chosen):
            chosen.append(r)
    return chosen


def _group_for(anchor: QueueRow, others: Sequence[QueueRow], now: float,
               blocked: Collection[frozenset[str]]) -> Group | None:
    """The table the anchor (the oldest waiting) sits at now, if any: a full one of a preset it
    accepts, else, once it waited its ``fill_after``, the fullest with bots."""
    presets = list(PRESETS) if anchor.preset == ANY else [anchor.preset]
    options = [(p, _pick(anchor, others, p, now, blocked)) for p in presets]
    for p, chosen in options:
        if len(chosen) == PRESETS[p].rules.players:
            return Group(p, tuple(chosen), 0)
    if now - anchor.queued < anchor.fill_after:
        return None
    p, chosen = max(options, key=lambda o: len(o[1]))  # (the first preset when as full)
    return Group(p, tuple(chosen), PRESETS[p].rules.players - len(chosen))


def form_groups(rows: Sequence[QueueRow], now: float, blocked: Collection[frozenset[str]] = ()) -> list[Group]:
    """The tables to make now from the waiting ``rows``, the oldest first served; each person
    in one group at most. A row under a renamed preset (:data:`RENAMED`) waits for its
    present name."""
    rows = [replace(r, preset=preset_name(r.preset)) if r.preset in RENAMED else r for r in rows]
    left = sorted(rows, key=lambda r: (r.queued, r.player_id))
    groups = []
    i = 0
    while i < len(left):
        group = _group_for(left[i], left[:i] + left[i + 1:], now, blocked)
        if group is None:
            i += 1
            continue
        groups.append(group)
        taken = {m.player_id for m in group.members}
        left = [r for r in left if r.player_id not in taken]
    return groups


async def blocked_pairs(store: Storage, player_ids: Collection[str]) -> set[frozenset[str]]:
    """The pairs of these players who must not sit together (one blocked the other:
    :mod:`hearts.server.company`); the one place the matchmaker asks."""
    return await store.players.blocked_pairs(player_ids) if player_ids else set()


async def is_banned(store: Storage, player_id: str) -> bool:
    """Whether the profile is banned from this service (it may not queue)."""
    return await store.players.is_banned(player_id)


class Matchmaker(Background):
    """The quick match of one server process: a round every :data:`TICK` seconds (:meth:`run`)
    seats whom it can (:meth:`match_round`); the connections of the players seated here are
    woken (:meth:`wake`), the others hear of it within a second."""

    def __init__(self, manager: Manager, tick: float = TICK) -> None:
        self.manager = manager
        self.queue = QuickQueue.of(manager.store)
        self.tick = tick
        self.lock = asyncio.Lock()
        """Held by a round, a join and a leave of this process (SQLite: the only one)."""
        self.waiters: dict[str, asyncio.Event] = {}
        """The connections here of players in the queue, by profile id: set when seated."""
        self.waiting: Counter[str] = Counter()
        """The people waiting, by preset (``any`` apart), as last read."""
        self.outage = Outage(log, task="quick matchmaking")
        """The rounds that find the database out, said once in the log."""

    async def run(self) -> None:
        """Rounds until cancelled; a round that fails is logged (one line for an outage,
        however many rounds it fails), and the next one tries again."""
        rounds = 0
        while True:
            await asyncio.sleep(self.tick)
            try:
                await self.match_round()
                rounds += 1
                if rounds % 20 == 0:
                    await self.queue.drop_stale(time.time() - DROP)
            except Exception as e:
                if is_outage(e):
                    self.outage.failed(e)  # (said once, not a traceback a round)
                else:
                    log.exception("a round of quick matchmaking failed")
            else:
                self.outage.answered()

    async def match_round(self) -> list[Seating]:
        """Seat whom the queue allows now (nobody waiting: one read); wake their connections
        here; count who waits."""
        async with self.lock:
            fresh = [r for r in await self.queue.waiting() if r.seen >= time.time() - FRESH]
            seated = await self.queue.match(time.time() - FRESH, self._seat) if fresh else []
        seats = {s.player_id for s in seated}
        self.waiting = Counter(preset_name(r.preset) for r in fresh if r.player_id not in seats)
        for s in seated:
            self.wake(s.player_id)
        return seated

    def wake(self, player_id: str) -> None:
        event = self.waiters.get(player_id)
        if event is not None:
            event.set()

    async def _seat(self, rows: list[QueueRow]) -> list[Seating]:
        """Tell the people who hold a seat at a quick table already where it is (:meth:`reseat`);
        give the people no group holds a bot's seat at a quick table just started, if one
        awaits them (:mod:`hearts.server.quickseats`); make the groups' tables."""
        held = await self.queue.quick_seats([r.player_id for r in rows])
        out = [s for r in rows if r.player_id in held and (s := await self.reseat(r.player_id, held[r.player_id]))]
        rows = [r for r in rows if r.player_id not in held]
        blocked = await blocked_pairs(self.manager.store, [r.player_id for r in rows])
        groups = form_groups(rows, time.time(), blocked)
        grouped = {m.player_id for g in groups for m in g.members}
        out += await take_bot_seats(self, [r for r in rows if r.player_id not in grouped])
        for group in groups:
            try:
                out += await self._make_table(group)
            except RateLimited as e:  # the service is full: they wait for room, still queued
                log.warning("quick table not made", extra=fields(reason=str(e)))
                break
            except Exception:  # this group waits for the next round; the tables made are kept
                log.exception("a quick table could not be made", extra=fields(preset=group.preset))
        return out

    async def reseat(self, player_id: str, held: QuickSeat) -> Seating | None:
        """The seat a waiting profile holds at a quick table already, with a new token (the old
        one given up): a process that made the table died before it marked their place seated
        (the place waits again; the table is theirs, never a second one). ``None`` if the seat
        changed hands meanwhile."""
        token = secrets.token_urlsafe(18)
        try:
            await self.manager.store.log.update_seat(held.table_id, held.seat, "human", held.name, hash_token(token),
                                                     was="human")
        except SeatConflict:
            return None
        table = await self.manager.get(held.table_id)
        if table is not None:
            await table.follower.refresh_seats()
        log.info("quick seat told again", extra=fields(table=held.table_id, seat=held.seat))
        return Seating(player_id, held.table_id, held.seat, token, held.bots, held.preset)

    async def _make_table(self, group: Group) -> list[Seating]:
        """A quick table for ``group``: its people in the first seats (each linked to their
        profile), bots of the group's level in the others."""
        level = closest_level(sum(m.mu for m in group.members) / len(group.members))
        seats = [SeatRequest("human", name=m.name) for m in group.members]
        seats += [SeatRequest("bot", level=level)] * group.bots
        request = TableRequest(seats=tuple(seats), rules=PRESETS[group.preset].rules, listed=True, rated=group.rated)
        table, tokens = await self.manager.create(request, "quick", extra={"quick": True, "preset": group.preset})
        for seat, m in enumerate(group.members):
            await self.manager.store.players.link_seat(table.id, seat, m.player_id)
        log.info("quick table", extra=fields(table=table.id, preset=group.preset, people=len(group.members),
                                             bots=group.bots, level=level))
        return [Seating(m.player_id, table.id, seat, tokens[seat], group.bots, group.preset)
                for seat, m in enumerate(group.members)]
