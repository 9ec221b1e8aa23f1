"""The fewest bot seats the quick match's rules allow on an arrival log, computed offline:
the ``min_bot_seats`` of ``matchmaking.py`` (issue 40).

The rules (the issue's, with rating closeness left out so that the bound does not depend on
the server's rating window): a table is of one preset, which each of its people accepts (their
own or ``any``), rated or not alike, never with a blocked pair, at most ``sizes[preset]``
people; **as soon as enough people who may share a table are waiting, a table starts** (the
matchmaker may not hold them back for a better grouping later); else a newcomer takes a bot's
seat that awaits them, at a table made at most ``join`` seconds before (the seat's bot leaves:
one bot seat fewer); bots fill a table only for a person who waited the fill wait (``due``:
arrival + fill wait, at the latest the rules allow), who sits at a bot's seat that awaits them
or at a new table with as many of those waiting who may share it as may sit together; a
leaver who is not seated by their leaving time is gone. (The quick match seats people as soon
as it can: these are ``hearts.server.quick``'s rules, ratings aside.)

Within those rules the matchmaker may choose, knowing every arrival to come: which group
starts when several could, which preset an ``any`` player sits at, which bot's seat a
newcomer or a person whose wait is over takes, and whether the latter makes a new table. :func:`min_bot_seats` explores
every such choice (a search over the states of the queue, the same states merged), so its
answer is the smallest number of bot seats at the tables' ends of any matchmaker that obeys
the rules — an online one (which cannot know what comes next) included.

>>> from types import SimpleNamespace as P
>>> sizes = {"standard": 4, "black_maria": 3}
>>> anys = [P(index=i, at=float(i), preset="any", rated=False, leave=None) for i in range(3)]
>>> min_bot_seats(anys + [P(index=3, at=3.0, preset="standard", rated=False, leave=None)], (), 21.0, 0.0, sizes)
3

(Three ``any`` players make a full table of three the moment the third arrives; the standard
player who comes a second later then waits alone, and three bots join them. A matchmaker that
held the first three back for a fourth would need none, but the rules start a table as soon
as it can.)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Person(Protocol):
    """One player of the arrival log (``matchmaking.Arrival``)."""

    @property
    def index(self) -> int: ...
    @property
    def at(self) -> float: ...
    @property
    def preset(self) -> str: ...
    @property
    def rated(self) -> bool: ...
    @property
    def leave(self) -> float | None: ...


@dataclass(frozen=True, order=True)
class Open:
    """A table made with bots whose bot seats a newcomer may still take."""

    until: float
    """The last moment a seat may be taken (made + ``join``)."""
    preset: str
    rated: bool
    free: int
    """Its bot seats."""
    people: frozenset[int]
    """Those at it who are in a blocked pair (the others do not matter to who may join)."""


State = tuple[frozenset[int], tuple[Open, ...]]
"""Who waits, and the tables whose bot seats may still be taken."""


def min_bot_seats(log: Sequence[Person], blocks: Sequence[tuple[int, int]], fill_wait: float, join: float,
                  sizes: Mapping[str, int], any_preset: str = "any", most_states: int = 1_000_000) -> int:
    """The fewest bot seats (at the tables' ends) of any matchmaker obeying the module's rules
    on this log: ``fill_wait`` seconds until a person is due (the fill wait and the rounds'
    slack), ``join`` seconds after a table's making for a newcomer to take one of its bot
    seats. Raises :class:`RuntimeError` if the search holds more than ``most_states`` states
    at once (it then has no answer)."""
    people = {p.index: p for p in log}
    blocked = {frozenset(b) for b in blocks}
    rules = _Rules(people, blocked, sizes, any_preset)
    events: list[tuple[float, int, int]] = []  # (time, order: leave 0, arrive 1, due 2; person)
    for p in log:
        events.append((p.at, 1, p.index))
        due = p.at + fill_wait
        if p.leave is not None and p.leave < due:
            events.append((p.leave, 0, p.index))
        else:
            events.append((due, 2, p.index))
    states: dict[State, int] = {(frozenset(), ()): 0}
    for t, kind, i in sorted(events):
        after: dict[State, int] = {}
        for (waiting, tables), bots in states.items():
            tables = tuple(o for o in tables if o.until >= t)
            if kind == 0:
                moves: Iterator[tuple[State, int]] = iter([((waiting - {i}, tables), 0)])
            elif kind == 1:
                moves = rules.arrive(i, waiting, tables)
            elif i in waiting:
                moves = rules.due(i, t, join, waiting, tables)
            else:
                moves = iter([((waiting, tables), 0)])
            for state, cost in moves:
                if bots + cost < after.get(state, 1 << 30):
                    after[state] = bots + cost
        if len(after) > most_states:
            raise RuntimeError(f"the bound's search holds {len(after)} states at {t:.1f} s")
        states = after
    return min(states.values())


@dataclass(frozen=True)
class _Rules:
    people: Mapping[int, Any]
    blocked: set[frozenset[int]]
    sizes: Mapping[str, int]
    any_preset: str

    def involved(self, people: set[int]) -> frozenset[int]:
        return frozenset(p for p in people if any(p in pair for pair in self.blocked))

    def presets(self, i: int) -> list[str]:
        own = self.people[i].preset
        return list(self.sizes) if own == self.any_preset else [own]

    def may_share(self, i: int, j: int, preset: str) -> bool:
        p, q = self.people[i], self.people[j]
        return p.rated == q.rated and q.preset in (preset, self.any_preset) and frozenset((i, j)) not in self.blocked

    def groups(self, i: int, others: list[int], preset: str, most: int) -> Iterator[tuple[int, ...]]:
        """Sets of up to ``most`` of ``others`` (each may share a table of ``preset`` with ``i``),
        no blocked pair among them."""
        for n in range(most, -1, -1):
            for group in itertools.combinations(others, n):
                if all(frozenset(pair) not in self.blocked for pair in itertools.combinations(group, 2)):
                    yield group

    def takes(self, i: int, tables: tuple[Open, ...]) -> Iterator[tuple[State, int]]:
        """``i`` takes a bot's seat at one of the open tables (the waiting set is the caller's).
        Of the tables of one preset, rated or not, with nobody in a blocked pair, only the one
        whose seats may be taken the shortest (``tables`` are sorted): a seat of a table open
        longer serves whoever the other would, and later."""
        plain: set[tuple[str, bool]] = set()
        for k, o in enumerate(tables):
            if not o.people:
                if (o.preset, o.rated) in plain:
                    continue
                plain.add((o.preset, o.rated))
            if o.free and o.rated == self.people[i].rated and o.preset in self.presets(i) and not any(
                    frozenset((i, j)) in self.blocked for j in o.people):
                taken = Open(o.until, o.preset, o.rated, o.free - 1, o.people | self.involved({i}))
                rest = tables[:k] + ((taken,) if taken.free else ()) + tables[k + 1:]
                yield (frozenset(), tuple(sorted(rest))), -1

    def arrive(self, i: int, waiting: frozenset[int], tables: tuple[Open, ...]) -> Iterator[tuple[State, int]]:
        """A newcomer: a full table that now may start, starts (one of them, when several may);
        else they take a bot's seat that awaits them (one of them); else they wait."""
        full = []
        for preset in self.presets(i):
            others = [j for j in waiting if self.may_share(i, j, preset)]
            size = self.sizes[preset]
            full += [g for g in self.groups(i, others, preset, size - 1) if len(g) == size - 1]
        for group in full:
            yield (waiting - set(group), tables), 0
        if full:
            return
        took = False
        for (_, rest), cost in self.takes(i, tables):
            took = True
            yield (waiting, rest), cost
        if not took:
            yield (waiting | {i}, tables), 0

    def due(self, i: int, t: float, join: float, waiting: frozenset[int],
            tables: tuple[Open, ...]) -> Iterator[tuple[State, int]]:
        """A person who waited the fill wait sits now: at a bot's seat, or at a new table with
        as many of those waiting who may share it as may sit together, and bots in the other
        seats."""
        rest = waiting - {i}
        for (_, open_tables), cost in self.takes(i, tables):
            yield (rest, open_tables), cost
        for preset in self.presets(i):
            size = self.sizes[preset]
            others = [j for j in rest if self.may_share(i, j, preset)]
            groups = list(self.groups(i, others, preset, size - 1))
            for group in (g for g in groups if len(g) == len(groups[0])):
                bots = size - 1 - len(group)
                made = (*tables, Open(t + join, preset, self.people[i].rated, bots, self.involved({i, *group}))) \
                    if bots else tables
                yield (rest - set(group), tuple(sorted(made))), bots
