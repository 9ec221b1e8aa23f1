"""The terminal table: a Textual app laid out like a card table.

Your hand runs along the bottom (suit colours, illegal cards dimmed), the other seats sit
left, across and right with their names, difficulty, card counts and points, the trick is in
the middle. Keys (see :data:`TableScreen.BINDINGS` and the footer):

=================  ===============================================================
←/→                move along your hand; typing a card (``qs``, ``10h``) jumps to it
Enter              play the selected card, or confirm the pass
Space              mark / unmark a card to pass
h                  hint: what the search bot would do, and why (one line)
u                  undo your last play in this round (and the bots' plays after it)
l / s              the last trick / the score history
n                  new game (a rules preset, every rule option, the bots, the seed)
Ctrl+S             save the game record (resume with ``hearts tui --resume FILE``)
Ctrl+Q             quit (the record is saved first when ``--record`` was given)
=================  ===============================================================

Clicking a card plays it (or marks it while passing). Bots think in a worker thread and
their moves are paced by the session's ``delay``.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Label, Select, Static, Switch

from hearts.actions import Action, Moon, Pass, Play
from hearts.bots import LEVELS
from hearts.cards import DIAMONDS, HEARTS, RANK_LETTERS, SUIT_LETTERS, Card, CardSet
from hearts.errors import HeartsError, IllegalAction
from hearts.mechanics import MoonChoice
from hearts.round import Phase, Trick
from hearts.rules import OPTION_NAMES, PRESETS, OptionSpec, Rules, parse_option_value
from hearts.text import (
    Style,
    bot_specs,
    direction_name,
    does,
    moon_choice_text,
    option_text,
    points_word,
    refusal,
    score_table,
    winning_card,
)
from hearts.tui.session import DEFAULT_LEVEL, HINT_BOT, HUMAN, Session, hint
from hearts.view import View

RANK_KEYS = {c.lower(): i for i, c in enumerate(RANK_LETTERS)}
SUIT_KEYS = {c.lower(): i for i, c in enumerate(SUIT_LETTERS)}


STYLE = Style()
"""Cards on the table: ``Q♠``, ``10♥`` (as in line mode)."""


def card_style(card: Card, *, dim: bool = False) -> str:
    """Red for hearts and diamonds, black for clubs and spades, on a white card; grey when dim."""
    red = card.suit in (HEARTS, DIAMONDS)
    if dim:
        return ("#b06060" if red else "#808080") + " on #3a3a3a"
    return ("bold #c00000" if red else "bold #000000") + " on #f0f0f0"


def card_text(card: Card, *, dim: bool = False) -> Text:
    """One card in its colours."""
    return Text(STYLE.card(card), style=card_style(card, dim=dim))


def cards_text(cards: list[Card]) -> Text:
    """Cards in their colours, separated by blanks."""
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(card_text(c))
    return out


def table_positions(players: int) -> tuple[list[int], list[int], list[int]]:
    """Seats shown on the left, across (top) and right of the person, clockwise (R1.4)."""
    if players == 2:  # pragma: no cover - the engine has 3..6 players
        return [], [1], []
    return [1], list(range(2, players - 1)), [players - 1]


# --- widgets -----------------------------------------------------------------------------------


def show(widget: Static, content: Text) -> None:
    """Update a fixed-size widget only when its content changes (no layout pass: it is cheap)."""
    if getattr(widget, "_shown", None) != content:
        widget._shown = content  # type: ignore[attr-defined]
        widget.update(content, layout=False)


class CardWidget(Static):
    """One card of your hand: raised when marked to pass, reversed under the cursor."""

    class Clicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__("", classes="card")
        self.index = index
        self.card: Card | None = None

    def show(self, card: Card | None, *, legal: bool, marked: bool, cursor: bool) -> None:
        self.card = card
        self.display = card is not None
        if card is None:
            return
        face = Text(STYLE.card(card).rjust(3), style=card_style(card, dim=not legal))  # a 3-cell card
        if cursor:
            face.stylize("reverse")
        blank = Text("   ")
        lines = [face, blank] if marked else [blank, face]
        show(self, Text("\n").join(lines))
        if self.has_class("illegal") == legal:
            self.set_class(not legal, "illegal")
        if self.has_class("marked") != marked:
            self.set_class(marked, "marked")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.index))


class SeatPanel(Static):
    """Another seat: name, difficulty, cards held, points this round, total."""

    def __init__(self, seat: int) -> None:
        super().__init__("", classes="seat", id=f"seat-{seat}")
        self.seat = seat

    def show(self, session: Session, view: View) -> None:
        s = self.seat
        turn = view.to_move == s and view.phase is not Phase.PASSING
        name = Text(("▶ " if turn else "") + session.names[s], style="bold yellow" if turn else "bold")
        name.append(f" · {session.difficulty(s)}", style="italic")
        line = f"{view.hand_sizes[s]} cards · {points_word(view.points_taken[s])}"
        total = f"total {view.scores[s]}"
        if view.phase is Phase.PASSING:
            total += " · passing…" if s in session.game.actors() else " · passed"
        show(self, Text("\n").join([name, Text(line), Text(total, style="dim")]))
        if self.has_class("to-move") != turn:
            self.set_class(turn, "to-move")


# --- dialogs -----------------------------------------------------------------------------------


class InfoScreen(ModalScreen[None]):
    """A text panel (last trick, score history); any of Escape, Enter or the key that opened it closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,space,l,s,q", "close", "Close"),
    ]

    def __init__(self, title: str, body: Text | str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text, style="bold"))
            yield Static(self.body, id="info-body")
            yield Label(Text("Escape or Enter to close", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


class MoonScreen(ModalScreen[MoonChoice]):
    """R4.4 ``shooter_chooses``: add 26 to everyone else, or subtract 26 from yourself."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,plus", "choose('add')", "Add 26 to the others"),
        Binding("s,minus", "choose('subtract')", "Subtract 26 from you"),
    ]

    def __init__(self, totals: list[int], names: list[str]) -> None:
        super().__init__(id="moon")
        self.totals = totals
        self.names = names

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("☾ You shot the moon: all the hearts and the Q♠!", style="bold"))
            yield Static(
                "Totals before this round: "
                + " · ".join(f"{n} {t}" for n, t in zip(self.names, self.totals, strict=True))
            )
            with Horizontal(classes="buttons"):
                yield Button("Add 26 to everyone else (a)", id="add", variant="primary")
                yield Button("Subtract 26 from me (s)", id="subtract")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("subtract" if event.button.id == "subtract" else "add")

    def action_choose(self, choice: MoonChoice) -> None:
        self.dismiss(choice)


class GameOverScreen(ModalScreen[str]):
    """Who won, the totals after each round; n: a new game, Escape: look at the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New game"),
        Binding("escape", "choose('close')", "Back to the table"),
        Binding("ctrl+q", "choose('quit')", "Quit"),
    ]

    def __init__(self, body: Text) -> None:
        super().__init__(id="game-over")
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("Game over", style="bold"))
            yield Static(self.body)
            with Horizontal(classes="buttons"):
                yield Button("New game (n)", id="new", variant="primary")
                yield Button("Quit (ctrl+q)", id="quit")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "close")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


class SaveScreen(ModalScreen[str | None]):
    """Where to save the record (Enter saves, Escape cancels)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default: str) -> None:
        super().__init__(id="save")
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("Save the game record to:", style="bold"))
            yield Input(self.default, id="save-path")
            yield Label(Text("Enter to save · Escape to cancel · resume with hearts tui --resume FILE", style="dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NewGameScreen(ModalScreen[Session | None]):
    """A new game: a rules preset, every rule option, the bots and the seed.

    The options' part of the form is made from :meth:`Rules.options()
    <hearts.rules.Rules.options>`: each option's label, its rule and help (shown for the field
    in focus), and a field for its kind: a switch (yes/no), a list (choices, or a short
    range), or a text field checked by the engine's parser. Choosing a preset fills the
    options with its values.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: Session) -> None:
        super().__init__(id="new-game")
        self.current = current

    def compose(self) -> ComposeResult:
        rules = self.current.rules
        levels = [*LEVELS, "random"]
        specs = self.current.specs
        first = specs[0] if len(set(specs)) == 1 and specs[0] in levels else DEFAULT_LEVEL
        preset = next((p for p in PRESETS if Rules.preset(p) == rules), None)
        with Vertical(classes="dialog", id="new-game-form"):
            yield Label(Text("New game", style="bold"))
            with VerticalScroll(id="new-game-fields"), Grid(id="new-game-grid"):
                yield Label("Preset (R6)")
                yield Select([(p, p) for p in PRESETS], value=preset or Select.BLANK, prompt="(as below)", id="preset")
                for spec in Rules.options():
                    yield Label(f"{spec.label} ({spec.rule})")
                    yield option_field(spec, getattr(rules, spec.name))
                yield Label("Bots")
                yield Select([(level, level) for level in levels], value=first, allow_blank=False, id="difficulty")
                yield Label("Bot specs")
                yield Input("", placeholder="optional, one per seat: easy hard search:iterations=200", id="specs")
                yield Label("Seed")
                yield Input("", placeholder="empty: random", id="seed")
            yield Static("", id="new-game-help")
            yield Static("", id="new-game-error")
            with Horizontal(classes="buttons"):
                yield Button("Start (Enter)", id="start", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Show the rule and help of the option in focus."""
        name = (event.widget.id or "").removeprefix("opt-")
        text = ""
        if name in OPTION_NAMES:
            spec = Rules.option(name)
            text = f"{spec.rule}: {spec.help} · allowed: {spec.allowed()}"
        show(self.query_one("#new-game-help", Static), Text(text, style="dim"))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "preset" and isinstance(event.value, str):
            preset = Rules.preset(event.value)
            for spec in Rules.options():
                set_option_field(self.query_one(f"#opt-{spec.name}", Widget), getattr(preset, spec.name))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.start()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.start()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def start(self) -> None:
        error = self.query_one("#new-game-error", Static)
        try:
            self.dismiss(self.build())
        except HeartsError as e:
            error.update(Text(str(e), style="bold red"))

    def rules(self) -> Rules:
        """The rules the form holds (a :class:`~hearts.errors.RulesError` names what is wrong)."""
        return Rules.from_dict(
            {spec.name: option_value(spec, self.query_one(f"#opt-{spec.name}", Widget)) for spec in Rules.options()}
        )

    def build(self) -> Session:
        """The new session from the form (a :class:`~hearts.errors.HeartsError` names what is wrong)."""
        rules = self.rules()
        seed_text = self.query_one("#seed", Input).value.strip()
        if seed_text and not seed_text.isdigit():
            raise HeartsError(f"seed {seed_text!r} is not a whole number 0 or more")
        level = self.query_one("#difficulty", Select).value
        typed = self.query_one("#specs", Input).value.split()
        specs = bot_specs(typed or [level if isinstance(level, str) else DEFAULT_LEVEL], rules.players, DEFAULT_LEVEL)
        return Session.new(
            rules,
            int(seed_text) if seed_text else None,
            specs,
            name=self.current.names[HUMAN],
            delay=self.current.delay,
        )


SHORT_RANGE = 8
"""An ``int`` option with at most this many values is a list in the form; a longer one is typed."""


def option_field(spec: OptionSpec, value: object) -> Widget:
    """The form's field for one rule option (id ``opt-NAME``), showing ``value``."""
    field_id = f"opt-{spec.name}"
    if spec.kind == "bool":
        return Switch(value=bool(value), id=field_id)
    if spec.kind == "choice":
        return Select([(c, c) for c in spec.choices], value=value, allow_blank=False, id=field_id)
    if spec.kind == "int" and spec.low is not None and spec.high is not None and spec.high - spec.low < SHORT_RANGE:
        values = range(spec.low, spec.high + 1)
        return Select([(str(v), v) for v in values], value=value, allow_blank=False, id=field_id)
    return Input(option_text(value), placeholder=spec.allowed(), id=field_id)


def set_option_field(field: Widget, value: object) -> None:
    """Show ``value`` in a field made by :func:`option_field`."""
    if isinstance(field, Input):
        field.value = option_text(value)
    elif isinstance(field, (Switch, Select)):
        field.value = value


def option_value(spec: OptionSpec, field: Widget) -> object:
    """The value a field made by :func:`option_field` holds (typed text through the engine's
    parser, :func:`~hearts.rules.parse_option_value`)."""
    if isinstance(field, Input):
        return parse_option_value(spec.name, field.value.strip())
    assert isinstance(field, (Switch, Select))
    return field.value


# --- the table ---------------------------------------------------------------------------------


class TableScreen(Screen[None]):
    """The card table. All game keys live here, so dialogs on top do not see them."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "←", show=False),
        Binding("right", "move(1)", "→", show=False),
        Binding("enter", "confirm", "Play/pass"),
        Binding("space", "mark", "Mark"),
        Binding("h", "hint", "Hint"),
        Binding("u", "undo", "Undo"),
        Binding("l", "last_trick", "Last"),
        Binding("s", "scores", "Scores"),
        Binding("n", "new_game", "New"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.cursor = 0
        self.marked: set[Card] = set()
        self.pending_rank: int | None = None
        self.pending_ten = False
        self._cards: list[Card] = []
        self._my_turn = False
        self._said: str | Text = ""

    @property
    def hearts(self) -> HeartsApp:
        app = self.app
        assert isinstance(app, HeartsApp)
        return app

    def compose(self) -> ComposeResult:
        session = self.hearts.session
        left, top, right = table_positions(session.rules.players)
        yield Static("", id="status")
        with Horizontal(id="top"):
            for s in top:
                yield SeatPanel(s)
        with Horizontal(id="middle"):
            with Vertical(id="left", classes="side"):
                for s in left:
                    yield SeatPanel(s)
            with Grid(id="trick"):
                for name in ("tc", "ml", "mc", "mr", "bc"):
                    yield Static("", id=f"trick-{name}", classes="trick-cell")
            with Vertical(id="right", classes="side"):
                for s in right:
                    yield SeatPanel(s)
        yield Static("", id="you")
        with Horizontal(id="hand"):
            for i in range(session.rules.hand_size):
                yield CardWidget(i)
        yield Static("", id="message")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_table()
        self.say(self._said)

    # --- drawing -----------------------------------------------------------------------------

    def refresh_table(self) -> None:
        session = self.hearts.session
        view = session.view
        # The hand: sorted by suit; the cursor stays on its card when it can.
        old = self._cards[self.cursor] if 0 <= self.cursor < len(self._cards) else None
        self._cards = view.hand.sorted_by_suit()
        self.marked &= set(self._cards)
        if not view.must_pass:
            self.marked.clear()
        if old is not None and old in self._cards:
            self.cursor = self._cards.index(old)
        self.cursor = max(0, min(self.cursor, len(self._cards) - 1))
        playing = view.to_move == HUMAN and view.phase is Phase.PLAYING
        if playing and not self._my_turn and self._cards[self.cursor] not in view.legal:
            # the turn starts on a legal card; the cursor may still visit the illegal ones
            self.cursor = next(i for i, c in enumerate(self._cards) if c in view.legal)
        self._my_turn = playing
        for w in self.query(CardWidget):
            card = self._cards[w.index] if w.index < len(self._cards) else None
            w.show(
                card,
                legal=card is not None and (not playing or card in view.legal),
                marked=card in self.marked,
                cursor=w.index == self.cursor and bool(self._cards),
            )
        for panel in self.query(SeatPanel):
            panel.show(session, view)
        self._draw_trick(view)
        show(self.query_one("#status", Static), self._status(view))
        show(self.query_one("#you", Static), self._you(view))

    def _status(self, view: View) -> Text:
        session = self.hearts.session
        r = session.round
        n = view.players
        parts = [f"Round {r.round_number + 1}"]
        if r.pass_offset:
            to = session.names[r.pass_target(HUMAN)]
            parts.append(f"pass {view.rules.pass_count} {direction_name(r.pass_offset, n)}→{to}")
        else:
            parts.append("no passing (hold)")
        if view.phase is Phase.PLAYING:
            parts.append(f"trick {len(view.tricks) + 1}/{view.rules.hand_size}")
        parts.append("♥ broken" if view.hearts_broken else "♥ not broken")
        parts.append(f"to {view.rules.target} · seed {session.seed}")
        return Text(" · ".join(parts), style="bold")

    def _you(self, view: View) -> Text:
        session = self.hearts.session
        t = Text()
        mine = view.to_move == HUMAN and view.phase is Phase.PLAYING
        t.append(("▶ " if mine or view.must_pass else "") + session.names[HUMAN], style="bold yellow")
        t.append(f" · {points_word(view.points_taken[HUMAN])} this round · total {view.scores[HUMAN]}")
        if view.must_pass:
            count = view.rules.pass_count
            t.append(f" · mark {count} to pass ({len(self.marked)} marked), Enter", style="bold")
        elif mine:
            t.append(" · your turn: Enter plays", style="bold")
        elif view.phase is Phase.PASSING:
            t.append(" · waiting for the others to pass", style="dim")
        if view.received is not None and not view.tricks and view.phase is Phase.PLAYING:
            t.append(" · received ")
            t.append_text(cards_text(view.received.sorted_by_suit()))
        return t

    def _draw_trick(self, view: View) -> None:
        session = self.hearts.session
        n = view.players
        trick: Trick = view.trick
        done = False
        if not trick.cards and view.tricks:
            trick, done = view.tricks[-1], True
        played = dict(trick.plays)
        best = winning_card(trick) if trick.cards else None
        left, top, right = table_positions(n)

        def cell(seats: list[int]) -> Text:
            """Names on one line, each seat's card centred under its name on the next."""
            names, faces = Text(), Text()
            for i, s in enumerate(seats):
                if i:
                    names.append("  ")
                    faces.append("  ")
                name = session.names[s]
                width = max(len(name), 3)
                names.append(name.center(width), style="bold" if view.to_move == s and not done else "")
                card = played.get(s)
                face = Text("··", style="dim") if card is None else card_text(card)
                if card is not None and card == best:
                    face.stylize("underline")
                pad = width - face.cell_len
                faces.append(" " * (pad // 2))
                faces.append_text(face)
                faces.append(" " * (pad - pad // 2))
            return Text("\n").join([names, faces]) if seats else Text()

        show(self.query_one("#trick-tc", Static), cell(top))
        show(self.query_one("#trick-ml", Static), cell(left))
        show(self.query_one("#trick-mr", Static), cell(right))
        show(self.query_one("#trick-bc", Static), cell([HUMAN]))
        middle = Text()
        if view.phase is Phase.PASSING:
            middle = Text("passing", style="dim")
        elif done and trick.winner is not None:
            middle = Text(f"→ {session.names[trick.winner]}\n{points_word(trick.points)}", style="italic")
        elif view.phase is Phase.PLAYING and not trick.cards:
            middle = Text(f"{session.names[view.to_move or 0]} to lead", style="dim")
        elif view.result is not None:
            middle = Text("round over", style="dim")
        show(self.query_one("#trick-mc", Static), middle)
        grid = self.query_one("#trick", Grid)
        title = f"Trick {len(view.tricks) + (0 if done else 1)}" if view.tricks or trick.cards else "Trick"
        if grid.border_title != title:
            grid.border_title = title

    def say(self, text: str | Text) -> None:
        """Show one line under the hand (hints, refusals, what just happened)."""
        self._said = text
        self.hearts.message = text.plain if isinstance(text, Text) else text
        if self.is_mounted:
            show(self.query_one("#message", Static), text if isinstance(text, Text) else Text(text))

    # --- keys --------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """Typing a card: a rank (``q``, ``10``, ``t``) then a suit (``s``); a rank alone jumps."""
        char = (event.character or "").lower()
        if self.pending_ten and char == "0":
            self.pending_ten = False
            self._rank_typed(RANK_KEYS["t"])
            event.stop()
            event.prevent_default()
            return
        if char == "1":
            self.pending_ten = True
            event.stop()
            event.prevent_default()
            return
        self.pending_ten = False
        if self.pending_rank is not None and char in SUIT_KEYS:
            rank, self.pending_rank = self.pending_rank, None
            card = Card.of(rank, SUIT_KEYS[char])
            if card in self._cards:
                self.cursor = self._cards.index(card)
                self.refresh_table()
                self.say(Text.assemble("Selected ", card_text(card), " · Enter to play / Space to mark"))
            else:
                self.say(Text.assemble("You do not hold ", card_text(card)))
            event.stop()
            event.prevent_default()
            return
        if char in RANK_KEYS and char not in ("h", "s"):
            self._rank_typed(RANK_KEYS[char])
            event.stop()
            event.prevent_default()
            return
        self.pending_rank = None

    def _rank_typed(self, rank: int) -> None:
        self.pending_rank = rank
        index = next((i for i, c in enumerate(self._cards) if c.rank == rank), None)
        if index is not None:
            self.cursor = index
            self.refresh_table()

    def on_card_widget_clicked(self, message: CardWidget.Clicked) -> None:
        if message.index >= len(self._cards):
            return
        self.cursor = message.index
        view = self.hearts.session.view
        if view.must_pass:
            self.action_mark()
        else:
            self.action_confirm()

    def action_move(self, step: int) -> None:
        self.pending_rank = None
        if self._cards:
            self.cursor = (self.cursor + step) % len(self._cards)
            self.refresh_table()

    def action_mark(self) -> None:
        view = self.hearts.session.view
        if not view.must_pass or not self._cards:
            self.say("Space marks a card to pass, while passing.")
            return
        card = self._cards[self.cursor]
        if card in self.marked:
            self.marked.discard(card)
        elif len(self.marked) >= view.rules.pass_count:
            self.say(f"You pass {view.rules.pass_count} cards: unmark one first (Space).")
            return
        else:
            self.marked.add(card)
        self.refresh_table()
        self.say(Text.assemble("To pass: ", cards_text(sorted(self.marked, key=self._cards.index))))

    def action_confirm(self) -> None:
        app = self.hearts
        view = app.session.view
        if view.must_pass:
            count = view.rules.pass_count
            if len(self.marked) != count:
                self.say(f"Mark {count} cards with Space first ({len(self.marked)} marked).")
                return
            cards = CardSet(self.marked)
            if app.human_act(Pass(HUMAN, cards)):
                self.marked.clear()
                self.say(Text.assemble("You pass ", cards_text(cards.sorted_by_suit())))
            return
        if view.to_move != HUMAN or view.phase is not Phase.PLAYING or not self._cards:
            self.say("Not your turn: the others are playing.")
            return
        app.human_act(Play(HUMAN, self._cards[self.cursor]))

    def action_hint(self) -> None:
        if self.pending_rank is not None:  # 'h' completes a card being typed: hearts
            self.on_key(events.Key("h", "h"))
            return
        self.hearts.ask_hint()

    def action_scores(self) -> None:
        if self.pending_rank is not None:  # 's' completes a card being typed: spades
            self.on_key(events.Key("s", "s"))
            return
        self.hearts.show_scores()

    def action_undo(self) -> None:
        self.hearts.undo()

    def action_last_trick(self) -> None:
        self.hearts.show_last_trick()

    def action_new_game(self) -> None:
        self.hearts.ask_new_game()

    def action_save(self) -> None:
        self.hearts.ask_save()


# --- the app -----------------------------------------------------------------------------------


class HeartsApp(App[int]):
    """Hearts at a terminal table: you at seat 0 against bots."""

    TITLE = "Hearts"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; }
    #status { height: 1; background: $primary-background; padding: 0 1; }
    #top { height: 5; align: center middle; }
    #middle { height: 1fr; min-height: 7; }
    .side { width: 26; align: center middle; }
    .seat { width: 26; height: 5; border: round $secondary; padding: 0 1; }
    .seat.to-move { border: heavy $warning; }
    #trick { grid-size: 3 3; grid-columns: 1fr 1fr 1fr; grid-rows: 1fr 1fr 1fr; width: 1fr;
             min-width: 26; border: round $success; }
    .trick-cell { content-align: center middle; width: 1fr; height: 1fr; min-height: 2; }
    #trick-tc, #trick-bc { column-span: 3; }
    #trick-ml { content-align: left middle; }
    #trick-mr { content-align: right middle; }
    #you { height: 1; padding: 0 1; }
    #hand { height: 2; padding: 0 1; }
    .card { width: 3; height: 2; margin: 0 1 0 0; }
    #message { height: 1; padding: 0 1; color: $text-muted; }
    .dialog { width: 76; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
              background: $surface; padding: 0 1; }
    ModalScreen { align: center middle; }
    .buttons { height: auto; align: center middle; }
    .buttons Button { margin: 0 1; }
    #new-game-form { height: 90%; }
    #new-game-fields { height: 1fr; }
    #new-game-grid { grid-size: 2; grid-columns: 30 1fr; grid-rows: 3; height: auto; }
    #new-game-grid Label { padding: 1 0 0 0; }
    #new-game-help, #new-game-error { height: auto; }
    """

    def __init__(
        self,
        session: Session,
        *,
        record_path: str | Path | None = None,
        hint_spec: str = HINT_BOT,
    ) -> None:
        super().__init__()
        self.session = session
        self.record_path = Path(record_path) if record_path is not None else None
        self.hint_spec = hint_spec
        self.message = ""
        self.generation = 0
        self.thinking = False
        self.hinting = False
        self._dialog_open = False
        self._game_over_shown = False
        self._rounds_saved = len(session.game.score_history)
        self._table = TableScreen()

    @property
    def busy(self) -> bool:
        """A bot or the hint is thinking."""
        return self.thinking or self.hinting

    @property
    def table(self) -> TableScreen:
        """The card table (under any dialog)."""
        return self._table

    def on_mount(self) -> None:
        self.push_screen(self._table)
        self.call_after_refresh(self.advance)
        welcome = "Welcome! ←/→ or type a card (qs), Enter plays, Space marks a pass card, h for a hint."
        self.table.say(" · ".join(self.session.notices) or welcome)

    # --- the game loop -----------------------------------------------------------------------

    def advance(self) -> None:
        """Start the next bot move, or ask the person (moon), or show the game over."""
        session = self.session
        game = session.game
        self._autosave()
        if game.is_over:
            if not self._game_over_shown:
                self._game_over_shown = True
                self.show_game_over()
            return
        if game.phase is Phase.MOON_CHOICE and HUMAN in game.actors() and not self._dialog_open:
            self._dialog_open = True
            self.push_screen(MoonScreen(list(game.totals), session.names), self._moon_chosen)
            return
        if self.thinking:
            return
        turn = session.bot_turn()
        if turn is None:
            return
        seat, view = turn
        generation = self.generation
        delay = session.delay
        self.thinking = True

        def think() -> None:
            start = time.monotonic()
            action = session.decide(seat, view)
            pause = delay - (time.monotonic() - start)
            if pause > 0 and not isinstance(action, Pass):  # passes are face down: no need to watch
                time.sleep(pause)
            with contextlib.suppress(RuntimeError):  # the app has closed meanwhile
                self.call_from_thread(self._bot_done, generation, action)

        self.run_worker(think, thread=True, group="bots", exit_on_error=False)

    def _bot_done(self, generation: int, action: Action) -> None:
        self.thinking = False
        if generation == self.generation:
            try:
                self.session.apply(action)
            except IllegalAction:
                pass  # the position changed under the bot: it thinks again
            else:
                self._announce(action)
        self.redraw()
        self.advance()

    def _announce(self, action: Action) -> None:
        """Say what an accepted play or moon choice did: the trick it completed, the moon."""
        game = self.session.game
        names = self.session.names
        if isinstance(action, Moon):
            self.table.say(moon_choice_text(names[action.seat], action.choice))
        elif isinstance(action, Play) and not game.round.current_trick.cards:  # it completed a trick
            r = game.round if game.round.tricks else game.rounds[-2]  # or the last round's last
            done = r.tricks[-1]
            if done.winner is not None:
                self.table.say(f"{does(names[done.winner], 'take')} the trick ({points_word(done.points)}).")

    def human_act(self, action: Action) -> bool:
        """Carry out the person's action; on a refusal show the engine's reason and change
        nothing (False)."""
        try:
            self.session.apply(action)
        except IllegalAction as e:
            what = (
                Text.assemble("Cannot play ", card_text(action.card))
                if isinstance(action, Play)
                else Text("Cannot pass" if isinstance(action, Pass) else "Cannot choose")
            )
            what.stylize("bold red")
            self.table.say(Text.assemble(what, f": {refusal(e)}"))
            return False
        if not isinstance(action, Pass):
            self._announce(action)
            if self.message.startswith(("Hint", "Cannot")):
                self.table.say("")
        self.redraw()
        self.advance()
        return True

    def _moon_chosen(self, choice: MoonChoice | None) -> None:
        self._dialog_open = False
        if choice is not None and self.session.view.moon_choice_pending:
            self.human_act(Moon(HUMAN, choice))

    def redraw(self) -> None:
        if self._table.is_mounted:
            self._table.refresh_table()

    # --- commands ----------------------------------------------------------------------------

    def ask_hint(self) -> None:
        view = self.session.view
        if not view.my_turn:
            self.table.say("A hint is for your turn.")
            return
        if self.hinting:
            return
        self.hinting = True
        self.table.say("Thinking about a hint…")
        generation, position, spec = self.generation, len(self.session.game.history), self.hint_spec

        def think() -> None:
            text = hint(view, seed=position, spec=spec)
            with contextlib.suppress(RuntimeError):
                self.call_from_thread(self._hint_done, generation, position, text)

        self.run_worker(think, thread=True, group="hint", exit_on_error=False)

    def _hint_done(self, generation: int, position: int, text: str) -> None:
        self.hinting = False
        if generation == self.generation and position == len(self.session.game.history):
            self.table.say(Text("Hint: ", style="bold green") + Text(text))

    def undo(self) -> None:
        session = self.session
        if not session.can_undo:
            self.table.say("Nothing to undo: you have not played a card in this round yet.")
            return
        self.generation += 1  # a bot still thinking is ignored
        session.undo()
        self.table.say("Undone: your last play and the bots' plays after it.")
        self.redraw()
        self.advance()

    def show_last_trick(self) -> None:
        view = self.session.view
        names = self.session.names
        if not view.tricks:
            self.table.say("No trick has been completed yet this round.")
            return
        t = view.tricks[-1]
        body = Text()
        for seat, card in t.plays:
            body.append(f"{'led by ' if seat == t.leader else '       '}{names[seat]:<8} ")
            body.append_text(card_text(card))
            body.append("\n")
        if t.winner is not None:
            body.append(f"→ {names[t.winner]} takes it ({points_word(t.points)})")
        self.push_screen(InfoScreen(f"Trick {len(view.tricks)} of round {view.round_number + 1}", body, id="last-trick"))

    def show_scores(self) -> None:
        session = self.session
        game = session.game
        r = game.round
        rows: list[tuple[str, list[object]]] = [
            (f"Round {i + 1}", list(totals)) for i, totals in enumerate(game.score_history)
        ]
        if not game.is_over:
            rows.append((f"Round {r.round_number + 1} so far", list(r.points_taken)))
        if not rows:
            rows = [("Totals", list(game.totals))]
        body = "\n".join(score_table(session.names, rows))
        body += f"\n\nTotals after each round; lowest total wins; target {session.rules.target}."
        self.push_screen(InfoScreen("Score history", body, id="scores"))

    def show_game_over(self) -> None:
        session = self.session
        game = session.game
        winners = game.winners or ()
        names = session.names
        low = game.totals[winners[0]] if winners else 0
        head = (
            f"{does(names[winners[0]], 'win')} with {points_word(low)}!"
            if len(winners) == 1
            else f"{' and '.join(names[s] for s in winners)} share the win with {points_word(low)} each."
        )
        rows = [(f"Round {i + 1}", list(t)) for i, t in enumerate(game.score_history)]
        body = Text(head + "\n\n", style="bold") + Text("\n".join(score_table(names, rows)))
        self.push_screen(GameOverScreen(body), self._game_over_chosen)

    def _game_over_chosen(self, choice: str | None) -> None:
        if choice == "new":
            self.ask_new_game()
        elif choice == "quit":
            self.action_quit_game()

    def ask_new_game(self) -> None:
        self.push_screen(NewGameScreen(self.session), self._new_game_chosen)

    def _new_game_chosen(self, session: Session | None) -> None:
        if session is not None:
            self.start_session(session)

    def start_session(self, session: Session) -> None:
        """Replace the game (new game dialog, or tests); the table is rebuilt for its players."""
        self.generation += 1  # a bot still thinking about the old game is ignored
        self.session = session
        self._game_over_shown = False
        self._dialog_open = False
        self._rounds_saved = len(session.game.score_history)
        while len(self.screen_stack) > 2 and self.screen is not self._table:
            self.pop_screen()  # a dialog still on top of the table
        self._table = TableScreen()
        self.switch_screen(self._table)
        self.call_after_refresh(self.advance)
        self.call_after_refresh(self._table.say, f"New game · seed {session.seed} · {session.rules.describe()}")

    def default_save_path(self) -> str:
        if self.record_path is not None:
            return str(self.record_path)
        return f"hearts-{self.session.seed}.json"

    def ask_save(self) -> None:
        self.push_screen(SaveScreen(self.default_save_path()), self._save_chosen)

    def _save_chosen(self, path: str | None) -> None:
        if path is None:
            return
        try:
            self.session.save(path)
        except OSError as e:
            self.table.say(Text(f"Cannot save to {path!r}: {e}", style="bold red"))
            return
        self.table.say(f"Saved to {path} · resume with: hearts tui --resume {path}")

    def _autosave(self) -> None:
        """``--record FILE``: save after every round (and when quitting)."""
        rounds = len(self.session.game.score_history)
        if self.record_path is not None and rounds != self._rounds_saved:
            self._rounds_saved = rounds
            with contextlib.suppress(OSError):
                self.session.save(self.record_path)

    async def action_quit(self) -> None:
        self.action_quit_game()

    def action_quit_game(self) -> None:
        if self.record_path is not None:
            with contextlib.suppress(OSError):
                self.session.save(self.record_path)
        self.exit(0)

