"""The state behind the terminal table, without any screen: a game, its bots, its events.

A :class:`Session` is the game as an event list (passes, plays, moon choices) on top of a
reproducible source of deals (the recorded deals while they last, then a seed). The game is
what replaying the events gives, so undo is "replay all but the tail" and resume is "replay
what the record holds". Bots are rebuilt from their specs and seeds (they keep no memory a
replay would lose: everything they know is in the :class:`~hearts.view.View`).

>>> s = Session.new(Rules(target=30), seed=3, specs=["easy"] * 3, delay=0)
>>> s.names, s.labels[1:]
(['You', 'East', 'South', 'West'], ['easy', 'easy', 'easy'])
>>> s.run_bots_until_human()
>>> s.view.must_pass
True
>>> s.apply(("pass", 0, CardSet(list(s.view.hand)[:3])))
>>> s.run_bots_until_human()
>>> s.view.to_move == 0 and len(s.view.hand) == 13
True
>>> card = next(iter(s.view.legal))
>>> s.apply(("play", 0, card))
>>> s.run_bots_until_human()
>>> s.can_undo, s.undo(), s.view.to_move, card in s.view.hand
(True, True, 0, True)
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hearts import record
from hearts.bots import LEVELS, Bot, make_bot
from hearts.cards import Card, CardSet
from hearts.errors import HeartsError, RecordError
from hearts.game import Game
from hearts.mechanics import MoonChoice
from hearts.round import Phase, Round
from hearts.rules import Rules
from hearts.view import View

HUMAN = 0
"""The person sits at seat 0; the others follow clockwise (R1.4)."""

Event = (
    tuple[Literal["pass"], int, CardSet]
    | tuple[Literal["play"], int, Card]
    | tuple[Literal["moon"], int, MoonChoice]
)
"""One accepted action: ``("pass", seat, cards)``, ``("play", seat, card)``, ``("moon", seat, choice)``."""

HINT_BOT = "search:iterations=400"


def seat_names(players: int, human: str = "You") -> list[str]:
    """North (the person), East, South, West with four players, else ``Seat i`` (as in line mode)."""
    from hearts.cli import default_names

    return default_names(players, human)


def label_of(spec: str) -> str:
    """How a bot is shown: its level (``hard``) or its spec (``search:iterations=100``)."""
    return spec.strip()


def events_of(game: Game) -> list[Event]:
    """The events that replay ``game``, round by round: passes (seat order), plays, the moon."""
    events: list[Event] = []
    for r in game.rounds:
        for seat in range(r.players):
            passed = r.passed(seat)
            if passed is not None:
                events.append(("pass", seat, passed))
        for trick in (*r.tricks, r.current_trick):
            for seat, card in trick.plays:
                events.append(("play", seat, card))
        result = r.result
        if (
            result is not None
            and result.moon_choice is not None
            and result.shooter is not None
            and r.rules.moon == "shooter_chooses"
        ):
            events.append(("moon", result.shooter, result.moon_choice))
    return events


def apply_event(game: Game, event: Event) -> None:
    """Carry out one event on ``game`` (the engine checks it)."""
    if event[0] == "pass":
        game.pass_cards(event[1], event[2])
    elif event[0] == "play":
        game.play(event[2], event[1])
    else:
        game.choose_moon(event[1], event[2])


@dataclass
class Session:
    """A game at the terminal table: the person at seat 0, bots elsewhere."""

    rules: Rules
    seed: int
    specs: list[str]
    """One bot spec per seat 1..n-1 (a level such as ``hard`` or a spec such as ``heuristic``)."""
    names: list[str]
    deals: list[tuple[CardSet, ...]] = field(default_factory=list)
    """Deals to use first (from a resumed record); later rounds are dealt from ``seed``."""
    events: list[Event] = field(default_factory=list)
    delay: float = 0.6
    """Seconds a bot's move stays on screen before the next one (0 in tests)."""
    game: Game = field(init=False)
    bots: dict[int, Bot] = field(init=False)

    def __post_init__(self) -> None:
        if len(self.specs) != self.rules.players - 1:
            raise HeartsError(f"{self.rules.players - 1} bot specs are needed, got {len(self.specs)}")
        self.rebuild()

    # --- construction -----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules,
        seed: int | None = None,
        specs: Sequence[str] | None = None,
        *,
        name: str = "You",
        delay: float = 0.6,
    ) -> Session:
        """A new game; ``specs``: one per other seat, or one for all (default ``medium``)."""
        n = rules.players
        chosen = list(specs) if specs else ["medium"]
        if len(chosen) == 1:
            chosen *= n - 1
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        for spec in chosen:
            make_bot(spec)  # an unknown bot is refused here, with the registry's message
        return cls(rules, seed, chosen, seat_names(n, name), delay=delay)

    @classmethod
    def resume(
        cls,
        path: str | Path,
        *,
        seed: int | None = None,
        specs: Sequence[str] | None = None,
        name: str | None = None,
        delay: float = 0.6,
    ) -> Session:
        """The game saved at ``path`` (a game record), ready to go on where it stopped.

        The bots are those named in the record's seats (``East (hard)``) unless ``specs`` is
        given; rounds after the recorded ones are dealt from ``seed``.
        """
        loaded = record.load(path)
        if not isinstance(loaded, Game):
            raise RecordError(f"{str(path)!r} holds a single round, not a game")
        n = loaded.rules.players
        try:
            seats = json.loads(Path(path).read_text(encoding="utf-8")).get("seats")
        except (OSError, ValueError):  # pragma: no cover - record.load has just read it
            seats = None
        names = seat_names(n, name or "You")
        recorded_specs: list[str] = []
        if isinstance(seats, list) and len(seats) == n and all(isinstance(s, str) for s in seats):
            for s in range(n):
                base, _, rest = seats[s].partition(" (")
                names[s] = base if s or name is None else name
                if s and rest.endswith(")"):
                    recorded_specs.append(rest[:-1])
        chosen = list(specs) if specs else recorded_specs
        if len(chosen) == 1:
            chosen *= n - 1
        if len(chosen) != n - 1:
            chosen = ["medium"] * (n - 1)
        for i, spec in enumerate(chosen):
            try:
                make_bot(spec)
            except HeartsError:
                chosen[i] = "medium"
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        return cls(
            loaded.rules,
            seed,
            chosen,
            names,
            deals=[r.dealt for r in loaded.rounds],
            events=events_of(loaded),
            delay=delay,
        )

    def rebuild(self) -> None:
        """Replay :attr:`events` on a fresh game and make the bots anew (same seeds)."""
        game = Game(self.rules, seed=self.seed, deals=list(self.deals))
        for event in self.events:
            apply_event(game, event)
        self.game = game
        # As in line mode for a new game; after an undo or a resume, seeded by the position too.
        suffix = f"-{len(self.events)}" if self.events else ""
        seeder = random.Random(f"hearts-bots-{self.seed}{suffix}")
        self.bots = {
            seat: make_bot(spec, seed=seeder.randrange(2**31)) for seat, spec in enumerate(self.specs, start=1)
        }

    # --- state ------------------------------------------------------------------------------

    @property
    def round(self) -> Round:
        return self.game.round

    @property
    def view(self) -> View:
        """What the person may know (R7)."""
        return View.of(self.game, HUMAN)

    @property
    def labels(self) -> list[str]:
        """Per seat: ``""`` for the person, the bot's level or spec for the others."""
        return ["", *(label_of(s) for s in self.specs)]

    @property
    def record_names(self) -> list[str]:
        """Seat names for a record: ``East (hard)``; read back by :meth:`resume`."""
        return [self.names[0], *(f"{self.names[s]} ({self.specs[s - 1]})" for s in range(1, len(self.names)))]

    def difficulty(self, seat: int) -> str:
        """A bot's level (``hard``), or what its spec stands for (``heuristic`` is ``medium``)."""
        spec = self.specs[seat - 1].strip()
        if spec in LEVELS:
            return spec
        return next((level for level, s in LEVELS.items() if s == spec), spec)

    def bot_turn(self) -> tuple[int, View] | None:
        """The bot seat that must act now and its view, or ``None`` (the person's turn, game over)."""
        game = self.game
        if game.is_over:
            return None
        r = game.round
        if r.phase is Phase.PASSING:
            seat = next((s for s in r.seats_to_pass() if s != HUMAN), None)
        else:
            seat = r.to_move if r.to_move != HUMAN else None
        return None if seat is None else (seat, View.of(game, seat))

    def decide(self, seat: int, view: View) -> Event:
        """The bot's action for ``view`` (slow for search bots: run it off the screen's thread)."""
        bot = self.bots[seat]
        if view.must_pass:
            return ("pass", seat, bot.choose_pass(view))
        if view.moon_choice_pending:
            return ("moon", seat, bot.choose_moon(view))
        return ("play", seat, bot.choose_play(view))

    def apply(self, event: Event) -> None:
        """Carry out an action (checked by the engine; nothing changes if it is refused)."""
        apply_event(self.game, event)
        self.events.append(event)

    def run_bots_until_human(self) -> None:
        """Let every bot act until the person must (for scripts and tests; no pacing)."""
        while (turn := self.bot_turn()) is not None:
            self.apply(self.decide(*turn))

    # --- undo, hint, save -------------------------------------------------------------------

    def _last_human_play(self) -> int | None:
        return next(
            (i for i in range(len(self.events) - 1, -1, -1) if self.events[i][:2] == ("play", HUMAN)),
            None,
        )

    @property
    def can_undo(self) -> bool:
        return self._last_human_play() is not None

    def undo(self) -> bool:
        """Take back the person's last play and every bot action after it (False: nothing to undo)."""
        index = self._last_human_play()
        if index is None:
            return False
        del self.events[index:]
        self.rebuild()
        return True

    def save(self, path: str | Path) -> None:
        """Write the game record (``hearts.record``), with the bots in the seat names."""
        record.save(self.game, path, seats=self.record_names)


def hint(view: View, seed: int = 0, spec: str = HINT_BOT) -> str:
    """One line: what the search bot would do for ``view`` and why.

    >>> from hearts import Game
    >>> hint(View.of(Game(Rules(), seed=2), 0)).startswith("Pass ")
    True
    """
    bot = make_bot(spec, seed=seed)
    if view.must_pass:
        cards = bot.choose_pass(view)
        return f"Pass {' '.join(c.symbol for c in cards.sorted_by_suit())}: {_pass_reason(cards)}"
    if view.moon_choice_pending:
        choice = bot.choose_moon(view)
        return f"Moon: {choice} ({'everyone else +26' if choice == 'add' else 'you -26'}), by the totals"
    if view.to_move != view.seat:
        return "Nothing to do: it is not your turn."
    card = bot.choose_play(view)
    return f"Play {card.symbol}: {play_reason(view, card)}"


def _pass_reason(cards: CardSet) -> str:
    from hearts.cards import SPADES

    high_spades = [c for c in cards if c.suit == SPADES and c.rank >= 10]
    hearts = [c for c in cards if c.points and c.suit != SPADES]
    if high_spades:
        return "gets rid of dangerous high spades (the Q♠ and what catches it)"
    if hearts:
        return "sheds high hearts that would take tricks"
    return "the riskiest high cards, and maybe a void"


def play_reason(view: View, card: Card) -> str:
    """Why a play is sound, in a few words (the search's rollouts agree it scores best)."""
    trick = view.trick
    if len(view.legal) == 1:
        return "your only legal card"
    if not trick.cards:
        if card.rank <= 5:
            return "a low lead, unlikely to win the trick"
        return "a lead that should be safe to win (rollouts score it best)"
    led = trick.led_suit
    if card.suit != led:
        if card.points:
            return f"dumps {card.points} point{'s' * (card.points > 1)} on another player (you cannot follow)"
        return "a discard: you cannot follow suit"
    best = max((c for c in trick.cards if c.suit == led), key=int)
    last = len(trick.cards) == view.players - 1
    if card < best:
        return f"ducks under the {best.symbol}"
    if last and not trick.points:
        return "takes a trick with no points, as last to play"
    return "wins the trick; the rollouts say it costs least"
