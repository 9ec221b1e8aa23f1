"""The terminal table: :class:`HeartsApp`, the game loop that wires the session to the screens.

The table itself is :class:`~hearts.tui.screens.table.TableScreen` (its parts are in
:mod:`hearts.tui.widgets`), the dialogs are the other :mod:`hearts.tui.screens`. Every key is
listed by ``?`` (:class:`~hearts.tui.screens.help.HelpScreen`, made from the bindings), the main
ones in the footer.

The app keeps the :class:`~hearts.tui.session.Session`. After every change of the game it gives
the table a new :class:`~hearts.tui.state.TableState` (a reactive: each widget redraws only the
part that changed) and goes on (:meth:`HeartsApp.advance`): a finished round is summed up
(:class:`~hearts.tui.screens.round_summary.RoundSummaryScreen`) before the next one starts, a
finished game shows the winner and the final totals, the moon shooter is asked, or the next bot
thinks. Bots and hints think in worker threads (``@work(exclusive=True, thread=True)``: starting
one cancels the one before it); a result is used only if its worker was not cancelled and the
game still stands where it was computed (:class:`~hearts.tui.state.Position`). A bot that fails
(raises, or answers an illegal move) does not stop the table: the player is told, and a random
legal move (:meth:`Session.fallback <hearts.tui.session.Session.fallback>`) is made for it; with
the session's ``on_bot_error`` ``"stop"`` the table closes instead, saving the record, with exit
code 1 and one line on stderr (:attr:`HeartsApp.failure`; :mod:`hearts.bots.guard`).
Quitting asks whether to save the game first; ``hearts tui --resume FILE`` goes on with a saved game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.worker import Worker, WorkerState, get_current_worker

from hearts.actions import Action, Moon, Pass
from hearts.bots.guard import BotFault
from hearts.bots.registry import HINT_BOT
from hearts.errors import IllegalAction
from hearts.i18n import N_, _
from hearts.mechanics import MoonChoice
from hearts.round import Phase
from hearts.text import bot_stood_in, name_word, refusal_words
from hearts.tui.guide import Guide, GuideScreen
from hearts.tui.look import STYLE, announcement, cards_text
from hearts.tui.screens import (
    GameOverScreen,
    HelpScreen,
    InfoScreen,
    MoonScreen,
    NewGameScreen,
    QuitScreen,
    ReviewScreen,
    RoundSummaryScreen,
    SaveScreen,
    TableScreen,
)
from hearts.tui.session import HUMAN, REVIEW_BUDGET, Session, hint
from hearts.tui.state import Position, TableState
from hearts.tui.words import translate_bindings
from hearts.view import View

FINISHED = (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)

WELCOME = N_("Welcome! ←/→ or type a card (qs), Enter plays, Space marks a pass card, h hint, ? every key.")


@dataclass(frozen=True)
class BotMove:
    """What a bot's worker found: the ``action`` of ``seat`` at ``position``, or (``action``
    ``None``) why the bot failed."""

    position: Position
    seat: int
    action: Action | None
    error: str = ""


@dataclass(frozen=True)
class Hint:
    """The hint's line for the person at ``position``."""

    position: Position
    text: str


_Result = TypeVar("_Result", BotMove, Hint)
"""What a bot's or the hint's worker returns."""


class HeartsApp(App[int]):
    """Hearts at a terminal table: you at seat 0 (South) against bots.

    Give it a :class:`~hearts.tui.session.Session` and ``run()`` it; ``record_path`` (the
    ``--record FILE``) is saved after every round and offered first when saving;
    ``review_budget``: sampled deals per decision when reviewing a round; ``notes``: what the
    table says first, before the session's notices (``hearts tui``'s start-up notes, such as
    why the bots are slow here, which the full screen would otherwise hide).
    """

    TITLE = "Hearts"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+q", "quit", N_("Quit"), tooltip=N_("quit (asks whether to save the game first)"), priority=True
        ),
    ]

    def __init__(
        self,
        session: Session,
        *,
        record_path: str | Path | None = None,
        hint_spec: str = HINT_BOT,
        review_budget: int = REVIEW_BUDGET,
        notes: Sequence[str] = (),
        guide: bool = False,
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.session = session
        self.notes = tuple(notes)
        self.record_path = Path(record_path) if record_path is not None else None
        self.hint_spec = hint_spec
        self.review_budget = review_budget
        """Sampled deals per decision in a review (:data:`~hearts.tui.session.REVIEW_BUDGET`)."""
        self._bot_worker: Worker[BotMove] | None = None
        self._hint_worker: Worker[Hint] | None = None
        self._paused = False  # a dialog the game waits for (the moon, a round's summary)
        self._game_over_shown = False
        self._rounds_saved = self._rounds_summed_up = len(session.game.score_history)
        self._table = TableScreen(TableState.of(session))
        self.guide = Guide() if guide else None
        """The guided first game's tips (``hearts tui --guide``), or None."""

    @property
    def thinking(self) -> bool:
        """A bot is thinking about the position on the table."""
        return self._bot_worker is not None

    @property
    def hinting(self) -> bool:
        """The hint is being worked out."""
        return self._hint_worker is not None

    @property
    def busy(self) -> bool:
        """A bot or the hint is thinking."""
        return self.thinking or self.hinting

    @property
    def waiting(self) -> bool:
        """The game waits for the person: a dialog it needs is open (the moon, a round's
        summary), or the person must act, or the game is over."""
        return self._paused or self.session.bot_turn() is None

    @property
    def table(self) -> TableScreen:
        """The card table (under any dialog)."""
        return self._table

    @property
    def message(self) -> str:
        """The line said under the hand, as plain text (for tests and the curious)."""
        return self._table.said.plain

    @message.setter
    def message(self, text: str) -> None:
        self.say(text)

    def say(self, text: str | Text) -> None:
        """Show one line under the hand (hints, refusals, what just happened)."""
        self._table.say(text)

    def on_mount(self) -> None:
        self.push_screen(self._table)
        self.call_after_refresh(self.advance)
        self.say(" · ".join([*self.notes, *self.session.notices]) or _(WELCOME))

    # --- the game loop -----------------------------------------------------------------------

    def moved(self) -> None:
        """The game has changed: show it (only what changed is redrawn) and go on."""
        self._table.state = TableState.of(self.session)
        self.advance()

    def advance(self) -> None:
        """Sum up a finished round, or show the game over, or ask the person (moon), or start
        the next bot move."""
        game = self.session.game
        self._autosave()
        if self._paused:
            return
        finished = len(game.score_history)
        if finished > self._rounds_summed_up:
            self._rounds_summed_up = finished
            self._pause(RoundSummaryScreen(game.rounds[finished - 1], self.session.names))
        elif game.is_over:
            if not self._game_over_shown:
                self._game_over_shown = True
                self.show_game_over()
        elif game.phase is Phase.MOON_CHOICE and HUMAN in game.actors():
            self._pause(MoonScreen(list(game.totals), self.session.names, game.rules.round_points), self._moon_chosen)
        elif not self.thinking and self.guide is not None and (tip := self.guide.next(self.session.view)) is not None:
            screen = GuideScreen(tip, self.session.view)  # a tip whose moment has come (the bots wait for it)
            self._pause(screen, lambda _result: self._guide_closed(screen))
        elif not self.thinking and (turn := self.session.bot_turn()) is not None:
            self._bot_worker = self.think(self.session, Position.of(game), *turn)

    def _guide_closed(self, screen: GuideScreen) -> None:
        if screen.skipped and self.guide is not None:
            self.guide.skipped = True

    def _pause(self, screen: ModalScreen[Any], then: Callable[[Any], None] | None = None) -> None:
        """Show a dialog the game waits for; when it closes, ``then(result)`` and go on."""
        self._paused = True

        def closed(result: Any) -> None:
            self._paused = False
            if then is not None:
                then(result)
            self.moved()

        self.push_screen(screen, closed)

    @work(exclusive=True, thread=True, group="bots", exit_on_error=False)
    def think(self, session: Session, position: Position, seat: int, view: View) -> BotMove:
        """In a worker thread: the move of ``session``'s bot at ``seat`` for ``view``, kept on
        screen for the session's delay (a pass is face down: no need to watch); a bot that
        raises gives its error instead."""
        worker = get_current_worker()
        start = time.monotonic()
        try:
            action = session.decide(seat, view)
        except Exception as e:  # a bot of one's own may fail in any way: the table goes on
            return BotMove(position, seat, None, f"{type(e).__name__}: {e}")
        pause = session.delay - (time.monotonic() - start)
        if pause > 0 and not isinstance(action, Pass):
            worker.cancelled_event.wait(pause)
        return BotMove(position, seat, action)

    @work(exclusive=True, thread=True, group="hint", exit_on_error=False)
    def think_of_hint(self, position: Position, view: View, spec: str) -> Hint:
        """In a worker thread: the hint's line for ``view`` (:func:`~hearts.tui.session.hint`)."""
        return Hint(position, hint(view, seed=len(position.history), spec=spec))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A bot's move or a hint is ready (or failed, or was cancelled). Only the current
        worker of each group counts; its result only if it was not cancelled and the game is
        still where it was computed."""
        worker = event.worker
        if event.state not in FINISHED:
            return
        if worker is self._bot_worker:
            self._bot_worker = None
            move = self._still_true(event, BotMove)
            if move is not None:
                self._bot_moved(move)
            self.advance()
        elif worker is self._hint_worker:
            self._hint_worker = None
            found = self._still_true(event, Hint)
            if found is not None:
                self.say(Text(_("Hint:") + " ", style="bold green") + Text(found.text))
            elif event.state is WorkerState.ERROR:
                self.say(Text(f"No hint: the search failed ({worker.error})", style="bold red"))

    def _still_true(self, event: Worker.StateChanged, kind: type[_Result]) -> _Result | None:
        """A finished worker's result of ``kind`` if it succeeded, was not cancelled and the
        game is still at the position it was computed for; else ``None``."""
        worker = event.worker
        result = worker.result if event.state is WorkerState.SUCCESS else None
        if isinstance(result, kind) and not worker.is_cancelled and result.position.is_now(self.session.game):
            return result
        return None

    def _bot_moved(self, move: BotMove) -> None:
        """Carry out a bot's move; a bot that failed or chose an illegal move is stood in for
        by a random legal one, and the player is told."""
        error = move.error
        if move.action is not None:
            try:
                self.session.apply(move.action)
            except IllegalAction as e:
                error = f"an illegal move ({e})"
            else:
                self._announce(move.action)
        if error:
            seat = self.session.seats[move.seat]
            fault = BotFault(move.seat, seat.bot or "", error, f" ({name_word(seat.name)})")
            if self.session.on_bot_error == "stop":
                self._stop_the_game(fault)
                return
            self.session.apply(self.session.fallback(move.seat))
            self.say(Text(bot_stood_in(fault), style="bold red"))
        self._table.state = TableState.of(self.session)

    failure: str | None = None
    """The line ``hearts tui`` ends with when a bot's failure stopped the game (``"stop"``)."""

    def _stop_the_game(self, fault: BotFault) -> None:
        """A bot failed under ``"stop"``: save the record (``--record``) and close the table with
        exit code 1 and one line on stderr naming the bot, its seat and the error."""
        self.failure = line = self.session.stopped_by(fault, self.record_path)
        self.exit(1, return_code=1, message=Text(line))

    def _announce(self, action: Action) -> None:
        """Say what an accepted play or moon choice did (:func:`~hearts.tui.look.announcement`)."""
        said = announcement(action, self.session.game, self.session.names)
        if said is not None:
            self.say(said)

    def human_act(self, action: Action) -> bool:
        """Carry out the person's action; on a refusal say why, in a person's words, and
        change nothing (False)."""
        try:
            self.session.apply(action)
        except IllegalAction as e:
            # the rule in words, in the language in use
            self.say(Text(refusal_words(e, self.session.names, STYLE), style="bold red"))
            return False
        self._stop("hint")  # a hint for the position before no longer holds
        if isinstance(action, Pass):
            self.say(Text.assemble(_("You pass") + " ", cards_text(action.cards.sorted_by_suit())))
        else:
            self.say("")  # a refusal or a hint said before no longer holds
            self._announce(action)
        self.moved()
        return True

    def _moon_chosen(self, choice: MoonChoice | None) -> None:
        if choice is not None and self.session.view.moon_choice_pending:
            self.human_act(Moon(HUMAN, choice))

    def _stop(self, *groups: str) -> None:
        """Cancel the workers of ``groups`` (``bots``, ``hint``): their results are dropped."""
        for group in groups:
            self.workers.cancel_group(self, group)
            if group == "bots":
                self._bot_worker = None
            elif group == "hint":
                self._hint_worker = None

    # --- what the table asks -----------------------------------------------------------------

    def on_table_screen_acted(self, message: TableScreen.Acted) -> None:
        self.human_act(message.action)

    def on_table_screen_asked(self, message: TableScreen.Asked) -> None:
        commands: dict[str, Callable[[], None]] = {
            "help": self.show_help,
            "hint": self.ask_hint,
            "undo": self.undo,
            "last_trick": self.show_last_trick,
            "scores": self.show_scores,
            "new_game": self.ask_new_game,
            "save": self.ask_save,
        }
        commands[message.command]()

    def ask_hint(self) -> None:
        view = self.session.view
        if not view.my_turn:
            self.say(_("A hint is for your turn."))
            return
        if self.hinting:
            return
        self.say(_("Thinking about a hint…"))
        self._hint_worker = self.think_of_hint(Position.of(self.session.game), view, self.hint_spec)

    def undo(self) -> None:
        session = self.session
        if not session.can_undo:
            self.say(_("Nothing to undo: you have not played a card in this round yet."))
            return
        self._stop("bots", "hint")  # a bot still thinking is ignored
        session.undo()
        self.say(_("Undone: your last play and the bots' plays after it."))
        self.moved()

    def show_help(self) -> None:
        """Every key: the table's bindings and the app's, then the review's, each with its tooltip."""
        self.push_screen(HelpScreen(key_rows(self.get_key_display)))

    def action_review(self) -> None:
        """Review your decisions in the last finished round (←/→ in the review: the others)."""
        finished = self.session.finished_rounds
        if isinstance(self.screen, ReviewScreen):
            return
        if not finished:
            self.say(_("A review looks back at a finished round: none has finished yet."))
            return
        self.push_screen(ReviewScreen(self.session, finished - 1, budget=self.review_budget))

    def show_last_trick(self) -> None:
        screen = InfoScreen.last_trick(self.session.view, self.session.names)
        if screen is None:
            self.say(_("No trick has been completed yet this round."))
        else:
            self.push_screen(screen)

    def show_scores(self) -> None:
        self.push_screen(InfoScreen.scores(self.session.game.score_history, self.session.view, self.session.names))

    def show_game_over(self) -> None:
        self.push_screen(GameOverScreen.of(self.session.game, self.session.names), self._game_over_chosen)

    def _game_over_chosen(self, choice: str | None) -> None:
        if choice == "new":
            self.ask_new_game()
        elif choice == "quit":
            self.ask_quit()

    def ask_new_game(self) -> None:
        self.push_screen(NewGameScreen(self.session), self._new_game_chosen)

    def _new_game_chosen(self, session: Session | None) -> None:
        if session is not None:
            self.start_session(session)

    def start_session(self, session: Session) -> None:
        """Replace the game (new game dialog, or tests); the table is rebuilt for its players."""
        self._stop("bots", "hint")  # a bot still thinking about the old game is ignored
        session.on_bot_error = self.session.on_bot_error  # the command line's policy holds for every game
        self.session = session
        self._game_over_shown = False
        self._paused = False
        self._rounds_saved = self._rounds_summed_up = len(session.game.score_history)
        while len(self.screen_stack) > 2 and self.screen is not self._table:
            self.pop_screen()  # a dialog still on top of the table
        self._table = TableScreen(TableState.of(session))
        self.switch_screen(self._table)
        self.call_after_refresh(self.advance)
        self.say(f"New game · seed {session.seed} · {session.rules.describe()}")

    # --- saving and quitting -----------------------------------------------------------------

    def default_save_path(self) -> str:
        if self.record_path is not None:
            return str(self.record_path)
        return f"hearts-{self.session.seed}.json"

    def ask_save(self, *, then_quit: bool = False) -> None:
        """Ask where to save the record, save it; with ``then_quit``, quit once it is saved."""

        def chosen(path: str | None) -> None:
            if path is not None and self.save(path) and then_quit:
                self.exit(0)

        self.push_screen(SaveScreen(self.default_save_path()), chosen)

    def save(self, path: str) -> bool:
        """Save the record to ``path`` and say so (or why not: False)."""
        try:
            self.session.save(path)
        except OSError as e:
            self.say(Text(f"Cannot save to {path!r}: {e.strerror or e}", style="bold red"))
            return False
        self.say(f"Saved to {path} · go on later with: hearts tui --resume {path}")
        return True

    def _autosave(self) -> None:
        """``--record FILE``: save after every round."""
        rounds = len(self.session.game.score_history)
        if self.record_path is not None and rounds != self._rounds_saved:
            self._rounds_saved = rounds
            try:
                self.session.save(self.record_path)
            except OSError as e:  # shown, not swallowed: the player may still save elsewhere (ctrl+s)
                why = f"Cannot save to {str(self.record_path)!r}: {e.strerror or e} · ctrl+s saves elsewhere"
                self.say(Text(why, style="bold red"))

    def ask_quit(self) -> None:
        """Offer to save the game before quitting: save, quit without saving, or cancel."""
        if isinstance(self.screen, (QuitScreen, SaveScreen)):
            return

        def chosen(choice: str | None) -> None:
            if choice == "save":
                self.ask_save(then_quit=True)
            elif choice == "quit":
                self.exit(0)

        self.push_screen(QuitScreen(), chosen)

    async def action_quit(self) -> None:
        self.ask_quit()


def key_rows(display: Callable[[Binding], str]) -> list[tuple[str, str]]:
    """The help's rows: each key of the table and the app, then of the review (``display``: how
    the app shows a binding's key), with its tooltip."""
    return [
        (display(b) + where, _(b.tooltip or b.description))
        for bindings, where in (
            ((*TableScreen.BINDINGS, *HeartsApp.BINDINGS), ""),
            (ReviewScreen.BINDINGS, " (" + _("review") + ")"),
        )
        for b in bindings
        if isinstance(b, Binding)
    ]
