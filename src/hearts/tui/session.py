"""The state behind the terminal table, without any screen: a game, who sits where, the bots.

A :class:`Session` is a :class:`~hearts.game.Game` driven the one way every front end drives
it (``actors()``, ``legal_actions()``, ``apply()``), the seats (names and bot specs, as a
record keeps them) and a bot for every seat but the person's. Undo is
:meth:`Game.undo <hearts.game.Game.undo>`; saving writes a version 2 record; resuming loads
one and goes on with its seed, so the later rounds are dealt exactly as in the original game.
:func:`review_round` reviews the person's decisions in a finished round (:mod:`hearts.review`).

>>> s = Session.new(Rules(target=30), seed=3, specs=["easy"], delay=0)
>>> s.names, s.specs
(['You', 'West', 'North', 'East'], ['easy', 'easy', 'easy'])
>>> s.run_bots_until_human()
>>> s.view.must_pass
True
>>> s.apply(Pass(HUMAN, list(s.view.hand)[:3]))
>>> s.run_bots_until_human()
>>> s.view.to_move == HUMAN and len(s.view.hand) == 13
True
>>> card = next(iter(s.view.legal))
>>> s.apply(Play(HUMAN, card))
>>> s.run_bots_until_human()
>>> s.can_undo, s.undo(), s.view.to_move, card in s.view.hand
(True, True, 0, True)

A table with a bot that cannot play its rules is refused when the session is set, for a new
game and a resumed one alike (:class:`TableRefused`); a bot that fails mid-game is stood in for
by :meth:`Session.fallback`, a random legal action, or stops the game, as the session's
``on_bot_error`` says (:mod:`hearts.bots.guard`, the policy of every command).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hearts import record
from hearts.actions import Action, Moon, Pass, Play
from hearts.bots import Bot, check_table, make_bot, run_bots
from hearts.bots.guard import DEFAULT_BOT_ERROR, BotErrorPolicy, BotFault, substitute
from hearts.bots.registry import HINT_BOT
from hearts.cards import SPADES, Card, CardSet
from hearts.errors import HeartsError, RecordError
from hearts.game import Game
from hearts.i18n import _, ngettext
from hearts.record import GameRecord, Seat
from hearts.review import ProgressCallback, RoundReview, review_game
from hearts.round import Phase, Round
from hearts.rules import Rules
from hearts.text import (
    DEFAULT_LEVEL,
    Style,
    bot_label,
    bot_specs,
    default_names,
    error_line,
    game_stopped,
    name_word,
    seat_label,
    unfinished,
    winning_card,
)
from hearts.view import View

HUMAN = 0
"""The person sits at seat 0, South, at the bottom of the table; the others follow clockwise (R1.4)."""

DEFAULT_DELAY = 0.6
"""Seconds a bot's move stays on screen, unless the table is told otherwise."""

REVIEW_BUDGET = 400
"""Sampled deals per decision in the table's review of a round, a module constant (no command
line option): about 1.5 s a round in one process on the pure rollout kernel (the pass takes a
third of it; far less with the compiled one), so the review stays responsive; a loss's standard
error is then about 0.4 points for a pass and 0.1 for a play. ``hearts analyze`` samples more
by default (:data:`hearts.review.DEFAULT_BUDGET`); ``hearts analyze FILE --seat 0 --round N
--budget 400`` gives the table's numbers (both use the review's default seed)."""


class TableRefused(HeartsError):
    """A table the session will not set: a seat's bot cannot play the rules (or is no bot at
    all); the message names the seat and the reason (:func:`hearts.bots.check_table`).

    >>> Session.new(Rules(), seed=1, specs=["easy", "nobody", "easy"])
    Traceback (most recent call last):
    ...
    hearts.tui.session.TableRefused: seat 2 (North): unknown bot 'nobody'; known bots: ...
    """


@dataclass
class Session:
    """A game at the terminal table: the person at seat :data:`HUMAN`, a bot at every other seat.

    ``seats`` are the record's seats: the person's has ``bot=None``, every other one its bot's
    spec. ``notices`` are lines to show when the table opens (what a resumed record lacked).
    """

    game: Game
    seats: tuple[Seat, ...]
    delay: float = DEFAULT_DELAY
    """Seconds a bot's move stays on screen before the next one (0 in tests)."""
    notices: tuple[str, ...] = ()
    on_bot_error: BotErrorPolicy = DEFAULT_BOT_ERROR
    """What a bot's failure does: a random legal move made for it, or the end (``--on-bot-error``)."""
    bots: dict[int, Bot] = field(init=False, repr=False)
    reviews: dict[tuple[int, int], RoundReview] = field(init=False, repr=False, default_factory=dict)
    """The reviews of the person's rounds made so far, by round number and budget (a finished
    round never changes, nor does its review)."""

    def __post_init__(self) -> None:
        n = self.game.rules.players
        self.seats = tuple(self.seats)
        if len(self.seats) != n:
            raise HeartsError(f"{n} seats are needed, got {len(self.seats)}")
        if self.seats[HUMAN].is_bot or not all(s.is_bot for s in self.seats[HUMAN + 1 :]):
            raise HeartsError(
                f"the person sits at seat {HUMAN} and a bot at every other seat, not {self.seats!r}"
            )
        if not self.delay >= 0:
            raise HeartsError(f"a bot's move stays on screen 0 seconds or more, not {self.delay!r}")
        if self.game.seed is None:
            raise HeartsError("the session's game needs a seed (an int) to be saved and resumed")
        self._check_bots()
        self._make_bots()

    # --- construction -----------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules,
        seed: int | None = None,
        specs: Sequence[str] | None = None,
        *,
        name: str = "You",
        delay: float = DEFAULT_DELAY,
    ) -> Session:
        """A new game; ``specs``: one bot spec per other seat, or one for all (default
        :data:`~hearts.text.DEFAULT_LEVEL`); ``seed`` ``None`` draws a short one (shown, to play it again)."""
        chosen = bot_specs(specs, rules.players, DEFAULT_LEVEL)
        if seed is None:
            seed = random.SystemRandom().randrange(1_000_000)
        names = default_names(rules.players, name)
        seats = [Seat(names[HUMAN]), *(Seat(names[s], bot=spec) for s, spec in enumerate(chosen, start=1))]
        return cls(Game(rules, seed=seed), tuple(seats), delay=delay)

    @classmethod
    def resume(
        cls,
        path: str | Path,
        *,
        specs: Sequence[str] | None = None,
        name: str | None = None,
        delay: float = DEFAULT_DELAY,
    ) -> Session:
        """The game saved at ``path`` (a game record), ready to go on where it stopped, with its
        seed (so the later rounds are dealt as in the original game).

        The bots are rebuilt from the record's seats, unless ``specs`` replaces them. A seat the
        record names no bot for (a version 1 record, or another person) gets
        :data:`~hearts.text.DEFAULT_LEVEL`, and a notice says so. The person takes seat 0, as ``name`` or
        the record's name for it. A record without a seed (version 1) is replayed into a game
        with a new one, which a notice names: its rounds are the record's, the later ones that seed's.
        """
        loaded = record.load(path)
        if not isinstance(loaded, GameRecord):
            raise RecordError(f"{str(path)!r} holds a single round, not a game")
        game, recorded = loaded.game, loaded.seats
        n = game.rules.players
        chosen = bot_specs(specs, n, DEFAULT_LEVEL) if specs else None
        notices = []
        if game.seed is None:  # a version 1 record keeps no seed: the rounds after it get one
            game = replayed(game, random.SystemRandom().randrange(1_000_000))
            notices.append(
                _("The record keeps no seed: the rounds after its last are dealt from seed {seed}.").format(seed=game.seed)
            )
        if recorded[HUMAN].is_bot:
            notices.append(
                _("You take seat {seat}, which {label} played in the record.").format(
                    seat=HUMAN, label=seat_label(recorded[HUMAN]))
            )
        seats = [Seat(name or recorded[HUMAN].name)]
        unnamed = []
        for s in range(1, n):
            spec = chosen[s - 1] if chosen else recorded[s].bot
            if spec is None:
                spec = DEFAULT_LEVEL
                unnamed.append(name_word(recorded[s].name))
            seats.append(Seat(recorded[s].name, bot=spec))
        if unnamed:
            notices.append(ngettext(
                "The record names no bot for {names}: it plays at the default level, {level}.",
                "The record names no bot for {names}: they play at the default level, {level}.", len(unnamed),
            ).format(names=", ".join(unnamed), level=name_word(DEFAULT_LEVEL)))
        return cls(game, tuple(seats), delay=delay, notices=tuple(notices))

    def _check_bots(self) -> None:
        """Refuse the table (:class:`TableRefused`) if a seat's bot cannot play the rules:
        before a card is dealt in a new game, and before a resumed one goes on."""
        for s, seat in enumerate(self.seats):
            if seat.bot is not None:
                try:
                    check_table([seat.bot], self.rules)
                except HeartsError as e:
                    raise TableRefused(f"seat {s} ({seat.name}): {e}") from e

    def _make_bots(self) -> None:
        """A bot for every bot seat. As in line mode for a new game; after an undo or a resume
        the seeds also depend on the position, so the bots do not repeat themselves."""
        played = self.game.ply
        seeder = random.Random(f"hearts-bots-{self.seed}" + (f"-{played}" if played else ""))
        self.bots = {
            s: make_bot(seat.bot, seed=seeder.randrange(2**31))
            for s, seat in enumerate(self.seats)
            if seat.bot is not None
        }

    # --- state ------------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        return self.game.rules

    @property
    def seed(self) -> int:
        """The game's seed (every round's deal comes from it, R1.3)."""
        assert self.game.seed is not None  # checked when the session is made
        return self.game.seed

    @property
    def round(self) -> Round:
        return self.game.round

    @property
    def names(self) -> list[str]:
        """The seats' names, clockwise from the person's."""
        return [s.name for s in self.seats]

    @property
    def specs(self) -> list[str]:
        """The bots' specs, seats 1..n-1."""
        return [s.bot for s in self.seats if s.bot is not None]

    @property
    def view(self) -> View:
        """What the person may know (R7)."""
        return View.of(self.game, HUMAN)

    @property
    def levels(self) -> tuple[str, ...]:
        """Each seat's bot level (:meth:`difficulty`); ``""`` for the person."""
        return tuple("" if s == HUMAN else self.difficulty(s) for s in range(len(self.seats)))

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self.game.totals)

    @property
    def passing(self) -> frozenset[int]:
        """The seats still choosing their pass (empty once the tricks are played)."""
        return frozenset(self.game.actors()) if self.game.phase is Phase.PASSING else frozenset()

    @property
    def pass_offset(self) -> int:
        return self.game.round.pass_offset

    @property
    def clocks(self) -> tuple[int | None, ...]:
        """No clocks at a local table: everyone takes their time."""
        return ()

    def difficulty(self, seat: int) -> str:
        """A bot's level (``hard``), or what its spec stands for (``heuristic`` is ``medium``)."""
        return bot_label(self.seats[seat].bot or "")

    # --- driving the game -------------------------------------------------------------------

    def bot_turn(self) -> tuple[int, View] | None:
        """A bot seat that may act now and its view, or ``None`` (only the person may act, or
        the game is over)."""
        seat = next((s for s in self.game.actors() if s != HUMAN), None)
        return None if seat is None else (seat, View.of(self.game, seat))

    def decide(self, seat: int, view: View) -> Action:
        """The bot's action for ``view`` (slow for search bots: run it off the screen's thread)."""
        return self.bots[seat].act(view)

    def fallback(self, seat: int) -> Action:
        """A random legal action of ``seat`` now, for a bot that failed: the same one for the
        same game and position (:func:`hearts.bots.guard.substitute`, as every command makes it).

        >>> s = Session.new(Rules(), seed=5, specs=["random"], delay=0)
        >>> s.fallback(1) in s.game.legal_actions(1), s.fallback(1) == s.fallback(1)
        (True, True)
        """
        return substitute(self.game, seat, self.seed)

    def apply(self, action: Action) -> None:
        """Carry out an action (checked by the engine; a refused one raises an
        :class:`~hearts.errors.IllegalAction` and changes nothing)."""
        self.game.apply(action)

    def run_bots_until_human(self) -> None:
        """Let every bot act until the person must (for scripts and tests; no pacing)."""
        run_bots(self.game, self.bots)

    # --- undo, save -------------------------------------------------------------------------

    def _undo_point(self) -> int | None:
        """Where an undo goes back to: the person's last play in the round being played (never
        into a finished, scored round; the passes stay)."""
        game = self.game
        if game.round.is_over:
            return None
        history = game.history
        for i in range(len(history) - 1, game.round_starts[-1] - 1, -1):
            action = history[i]
            if isinstance(action, Play) and action.seat == HUMAN:
                return i
        return None

    @property
    def can_undo(self) -> bool:
        """True when the person has played a card in the round being played."""
        return self._undo_point() is not None

    def undo(self) -> bool:
        """Take back the person's last play in this round and every bot play after it
        (:meth:`Game.undo <hearts.game.Game.undo>`); False: nothing to undo."""
        index = self._undo_point()
        if index is None:
            return False
        while self.game.ply > index:
            self.game.undo()
        self._make_bots()  # a bot's memory of the plays taken back goes with them
        return True

    # --- review -----------------------------------------------------------------------------

    @property
    def finished_rounds(self) -> int:
        """How many rounds have been played to the end and scored."""
        return len(self.game.score_history)

    def finished_game(self) -> Game:
        """A copy of the game up to the end of its last finished round: the same deals, seed and
        actions (so a review of it is the review of this game), for a worker thread to read
        while this game goes on. Make it on the thread that plays the game."""
        return replayed(self.game, self.seed, self.finished_rounds)

    def save(self, path: str | Path) -> None:
        """Write the game record (version 2: seats with names and bot specs, the seed, the
        actions); :meth:`resume` reads it back."""
        record.save(GameRecord(self.game, self.seats), path)

    def stopped_by(self, fault: BotFault, path: Path | None) -> str:
        """The one line ``hearts tui`` ends with when a bot's failure stops the game (the
        ``"stop"`` policy): the bot, its seat and the error, and where the game was saved
        (to ``path``, the ``--record`` file, first)."""
        line = game_stopped(fault)
        if path is None:
            return error_line("tui", unfinished(line, None))
        try:
            self.save(path)
        except OSError as e:
            return error_line("tui", unfinished(line, path, saved=False, why=str(e.strerror or e)))
        return error_line("tui", unfinished(line, path))


def replayed(game: Game, seed: int, rounds: int | None = None) -> Game:
    """A new game with ``game``'s rules and start totals, shuffled from ``seed``, given the deals
    of ``game``'s first ``rounds`` rounds (all by default) and replaying the actions of those
    rounds (:func:`hearts.record.replay`).

    >>> game = Game(Rules(), seed=4)
    >>> game.apply(Pass(0, list(game.round.hand(0))[:3]))
    >>> again = replayed(game, 9)
    >>> again.seed, again.history == game.history, again.round.dealt == game.round.dealt
    (9, True, True)
    """
    starts = game.round_starts
    done = len(starts) if rounds is None else rounds
    deals = [r.dealt for r in game.rounds[:done]]
    copy = Game(game.rules, seed=seed, deals=deals, scores=game.start_scores)
    return record.replay(copy, game.history[: starts[done] if done < len(starts) else None])


# --- review ----------------------------------------------------------------------------------


def review_round(
    game: Game, round_number: int, *, budget: int = REVIEW_BUDGET, on_progress: ProgressCallback | None = None
) -> RoundReview:
    """The review of the person's decisions in finished round ``round_number`` (0 for the
    first) of ``game``, each valued from the person's own view at the time (R7: only seat
    :data:`HUMAN` is reviewed) with ``budget`` sampled deals per decision.

    It runs in the calling thread and process (``jobs=1``: a screen's worker thread never
    forks) and calls ``on_progress(done, total)`` as :func:`~hearts.review.review_game` does;
    an exception raised there stops it. In another thread, give it a
    :meth:`Session.finished_game`, not the game being played.
    """
    if not 0 <= round_number < len(game.score_history):
        raise HeartsError(
            f"round {round_number + 1} has not finished: only finished rounds are reviewed "
            f"({len(game.score_history)} so far)"
        )
    review = review_game(game, [HUMAN], rounds=[round_number], budget=budget, jobs=1, on_progress=on_progress)
    return review.of_seat(HUMAN)[0]


# --- hints -------------------------------------------------------------------------------------


def hint(view: View, seed: int = 0, spec: str = HINT_BOT) -> str:
    """One line: what the search bot would do for ``view`` and why.

    >>> hint(View.of(Game(Rules(), seed=2), 0)).startswith("Pass ")
    True
    """
    if not view.my_turn:
        return _("Nothing to do: it is not your turn.")
    action = make_bot(spec, seed=seed).act(view)
    if isinstance(action, Pass):
        return _("Pass {cards}: {reason}").format(cards=_STYLE.sorted_cards(action.cards), reason=_pass_reason(action.cards))
    if isinstance(action, Moon):
        worth = view.rules.round_points  # 26, or 43 with Black Maria's spades (R4.5)
        if action.choice == "add":
            return _("Moon: add (everyone else +{n}), by the totals").format(n=worth)
        return _("Moon: subtract (you -{n}), by the totals").format(n=worth)
    assert isinstance(action, Play)
    return _("Play {card}: {reason}").format(card=_STYLE.card(action.card), reason=play_reason(view, action.card))


_STYLE = Style()


def _pass_reason(cards: CardSet) -> str:
    high_spades = [c for c in cards if c.suit == SPADES and c.rank >= 10]
    hearts = [c for c in cards if c.points and c.suit != SPADES]
    if high_spades:
        return _("gets rid of dangerous high spades (the Q♠ and what catches it)")
    if hearts:
        return _("sheds high hearts that would take tricks")
    return _("the riskiest high cards, and maybe a void")


def play_reason(view: View, card: Card) -> str:
    """Why a play is sound, in a few words (the search's rollouts agree it scores best)."""
    trick = view.trick
    if len(view.legal) == 1:
        return _("your only legal card")
    if not trick.cards:
        if card.rank <= 5:
            return _("a low lead, unlikely to win the trick")
        return _("a lead that should be safe to win (rollouts score it best)")
    if card.suit != trick.led_suit:
        points = view.rules.points(1 << card)  # R4.1, R4.5
        if points:
            return ngettext("dumps {n} point on another player (you cannot follow)",
                            "dumps {n} points on another player (you cannot follow)", points).format(n=points)
        return _("a discard: you cannot follow suit")
    best = winning_card(trick)
    last = len(trick.cards) == view.players - 1
    if card < best:
        return _("ducks under the {card}").format(card=_STYLE.card(best))
    if last and not trick.points:
        return _("takes a trick with no points, as last to play")
    return _("wins the trick; the rollouts say it costs least")
