"""The terminal table: a Textual app laid out like a card table.

You sit at the bottom (South, with four players), your hand along the bottom edge (suit
colours, illegal cards dimmed, wrapped into rows when the window is narrow); the other seats
sit left, across and right in clockwise order (R1.4) with their names, levels, card counts and
points; the trick is in the middle. Every key is listed by ``?`` (:class:`HelpScreen`, made
from the bindings), the main ones in the footer. Clicking a card plays it (or marks it while
passing).

A finished round is summed up (:class:`RoundSummaryScreen`: its last trick, who took which
points, the moon, the round's scores and the new totals) before the next one starts; a
finished game shows the winner and the final totals. ``r`` there (or at the table) reviews
your decisions in the round (:mod:`hearts.tui.review_screen`). Quitting asks whether to save
the game first (:class:`QuitScreen`); ``hearts tui --resume FILE`` goes on with a saved game.
Bots think in a worker thread and their moves are paced by the session's ``delay``. A window
smaller than the table needs says so instead of cutting the table off.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.table import Table as RichTable
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
from hearts.bots.registry import HINT_BOT
from hearts.cards import RANK_LETTERS, SUIT_LETTERS, Card, CardSet
from hearts.errors import HeartsError, IllegalAction
from hearts.mechanics import MoonChoice
from hearts.round import Phase, Round, Trick
from hearts.rules import OPTION_NAMES, PRESETS, OptionSpec, Rules, parse_option_value
from hearts.text import (
    DEFAULT_LEVEL,
    SEAT_NAMES,
    bot_specs,
    direction_name,
    does,
    game_over_lines,
    moon_choice_text,
    option_text,
    plural,
    points_word,
    refusal,
    round_summary,
    rule_last,
    score_table,
    short_name,
    winning_card,
)
from hearts.tui.look import STYLE, card_style, card_text, cards_text
from hearts.tui.review_screen import ReviewScreen
from hearts.tui.session import HUMAN, REVIEW_BUDGET, Session, hint
from hearts.view import View

RANK_KEYS = {c.lower(): i for i, c in enumerate(RANK_LETTERS)}
SUIT_KEYS = {c.lower(): i for i, c in enumerate(SUIT_LETTERS)}


CARD_WIDTH = 3
"""Cells of one card of the hand (``10♥``); one more separates it from the next."""

MIN_WIDTH = 60
"""The narrowest window the table is laid out for (side panels and the trick side by side)."""

NARROW = 80
"""Below this width the side panels are narrower and the trick shows short names."""

REVIEW = Binding(
    "r",
    "app.review",
    "Review",
    tooltip="review your decisions in the last finished round: each one's verdict, the mistakes "
    "with the better card and their cost (←/→ in the review: the other rounds)",
)
"""The review key, on the table, on a round's summary and at game over."""


def table_positions(players: int) -> tuple[list[int], list[int], list[int]]:
    """Seats shown on the left, across (top, left to right) and right of the person: clockwise
    from the person's left (R1.4), so with four players West, North, East.

    >>> table_positions(4), table_positions(3)
    (([1], [2], [3]), ([1], [], [2]))
    """
    return [1], list(range(2, players - 1)), [players - 1]


def cards_per_row(width: int) -> int:
    """How many cards of the hand fit on one row of a window ``width`` cells wide (the hand
    has a cell of padding each side and a blank between cards).

    >>> cards_per_row(80), cards_per_row(60)
    (19, 14)
    """
    return max(1, (width - 2 + 1) // (CARD_WIDTH + 1))


def hand_rows(cards: int, width: int) -> int:
    """Rows of a hand of ``cards`` cards in a window ``width`` cells wide.

    >>> hand_rows(13, 120), hand_rows(17, 60), hand_rows(0, 60)
    (1, 2, 1)
    """
    return max(1, -(-cards // cards_per_row(width)))


def needed_height(players: int, hand_size: int, width: int) -> int:
    """The window height the table needs at ``width``: the status line, the seats across
    (if any), the middle row (seat panels and the trick), your line (two when narrow), the
    hand's rows, the message line and the footer.

    >>> needed_height(4, 13, 80), needed_height(3, 17, 60)
    (19, 17)
    """
    across = 5 if table_positions(players)[1] else 0
    you = 1 if width >= NARROW else 2
    return 1 + across + 8 + you + 2 * hand_rows(hand_size, width) + 1 + 1


def trick_text(trick: Trick, names: Sequence[str]) -> Text:
    """A finished trick, one play a line, and who took it with its points."""
    lines = []
    width = max(len(names[seat]) for seat, _ in trick.plays)
    for seat, card in trick.plays:
        led = "led by " if seat == trick.leader else "       "
        lines.append(Text(f"{led}{names[seat]:<{width}}  ") + card_text(card))
    if trick.winner is not None:
        lines.append(
            Text(f"→ {does(names[trick.winner], 'take')} it ({points_word(trick.points)})", style="bold")
        )
    return Text("\n").join(lines)


# --- widgets -----------------------------------------------------------------------------------


def show(widget: Static, content: Text) -> None:
    """Update a fixed-size widget only when its content changes (no layout pass: it is cheap)."""
    if getattr(widget, "_shown", None) != content:
        widget._shown = content  # type: ignore[attr-defined]
        widget.update(content, layout=False)


class CardWidget(Static):
    """One card of your hand: raised when marked to pass, reversed under the cursor."""

    class Clicked(Message):
        """A card of the hand was clicked (``index`` in the hand as shown)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__("", classes="card")
        self.index = index
        self.card: Card | None = None

    def show(self, card: Card | None, *, legal: bool, marked: bool, cursor: bool) -> None:
        """Show ``card`` (``None``: hide this slot: the hand has fewer cards)."""
        self.card = card
        self.display = card is not None
        if card is None:
            return
        face = Text(STYLE.card(card).rjust(CARD_WIDTH), style=card_style(card, dim=not legal))
        if cursor:
            face.stylize("reverse")
        blank = Text(" " * CARD_WIDTH)
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
    """Another seat: its name, its bot's level and cards held, its points this round and total."""

    def __init__(self, seat: int) -> None:
        super().__init__("", classes="seat", id=f"seat-{seat}")
        self.seat = seat

    def show(self, session: Session, view: View) -> None:
        s = self.seat
        turn = view.to_move == s and view.phase is Phase.PLAYING
        name = Text(("▶ " if turn else "") + session.names[s], style="bold yellow" if turn else "bold")
        held = Text(f"{session.difficulty(s)} · {plural(view.hand_sizes[s], 'card')}", style="italic")
        total = f" · total {session.game.totals[s]}"  # after the round once it is scored
        if view.phase is Phase.PASSING:
            now = "passing…" if s in session.game.actors() else "passed"
        else:
            now = points_word(view.points_taken[s])
            if len(now + total) > self.content_size.width > 0:  # a narrow panel
                now = f"{view.points_taken[s]} pts"
        show(self, Text("\n").join([name, held, Text(now + total, style="dim")]))
        if self.has_class("to-move") != turn:
            self.set_class(turn, "to-move")


# --- dialogs -----------------------------------------------------------------------------------


class InfoScreen(ModalScreen[None]):
    """A text panel (last trick, score history, a round's summary, the keys); Escape, Enter,
    Space or the key that opened it closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,space,l,s,q,question_mark", "close", "Close"),
    ]

    def __init__(
        self,
        title: str,
        body: Text | str | RichTable,
        *,
        id: str | None = None,
        closing: str = "Escape or Enter to close",
    ) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.body = body
        self.closing = closing

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text, style="bold"))
            with VerticalScroll(classes="info-scroll"):
                yield Static(self.body, classes="info-body")
            yield Label(Text(self.closing, style="dim"))

    def on_resize(self, event: events.Resize) -> None:
        """The text scrolls when the window is too short for it; the closing line stays."""
        self.query_one(".info-scroll").styles.max_height = max(3, event.size.height - 4)

    def action_close(self) -> None:
        self.dismiss(None)


class RoundSummaryScreen(InfoScreen):
    """A finished round: its last trick, the point cards each seat took, the moon if shot, the
    round's scores and the new totals (R4). The next round waits until it is closed; ``r``
    reviews your decisions in it (:class:`~hearts.tui.review_screen.ReviewScreen`)."""

    BINDINGS: ClassVar[list[BindingType]] = [REVIEW]

    def __init__(self, r: Round, names: Sequence[str]) -> None:
        lines = round_summary(r, names, STYLE)
        body = Text("Last trick\n", style="bold") + trick_text(r.tricks[-1], names) + Text("\n\n")
        body += Text("\n".join(lines[1:]))
        super().__init__(
            lines[0], body, id="round-summary", closing="Enter, Space or Escape: go on · r: review your play"
        )


class HelpScreen(InfoScreen):
    """Every key of the table, from the bindings themselves (so the list cannot go stale)."""

    TYPING: ClassVar[tuple[tuple[str, str], ...]] = (
        ("a card's name", "jump to that card: a rank (2-9, 10 or t, j, q, k, a) then a suit (c, d, h, s)"),
        ("a rank alone", "jump to your first card of that rank"),
        ("a click", "on a card: play it (mark it while passing)"),
        ("Escape", "close a dialog"),
    )

    def __init__(self, bindings: Sequence[tuple[str, str]]) -> None:
        rows = [*bindings, *self.TYPING]
        table = RichTable.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, what in rows:
            table.add_row(key, what)
        super().__init__("Keys", table, id="help")
        self.rows = rows
        """(key, what it does): the bindings' keys first, then typing and clicking."""


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
                yield Button("Add 26 to the others (a)", id="add", variant="primary")
                yield Button("Subtract 26 from me (s)", id="subtract")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss("subtract" if event.button.id == "subtract" else "add")

    def action_choose(self, choice: MoonChoice) -> None:
        self.dismiss(choice)


class GameOverScreen(ModalScreen[str]):
    """Who won and the totals after each round, the last the final ones (R5); n: a new game,
    r: review your play round by round, Escape: look at the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "choose('new')", "New game"),
        REVIEW,
        Binding("escape", "choose('close')", "Back to the table"),
    ]

    def __init__(self, body: Text) -> None:
        super().__init__(id="game-over")
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("Game over", style="bold"))
            yield Static(self.body, id="game-over-body")
            with Horizontal(classes="buttons"):
                yield Button("New game (n)", id="new", variant="primary")
                yield Button("Review (r)", id="review")
                yield Button("Quit (ctrl+q)", id="quit")

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "review":
            await self.run_action(REVIEW.action)
        else:
            self.dismiss(event.button.id or "close")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)


class QuitScreen(ModalScreen[str]):
    """Quitting: save the game first (s), quit without saving (q), or go back (Escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "choose('save')", "Save, then quit"),
        Binding("q", "choose('quit')", "Quit without saving"),
        Binding("escape", "choose('cancel')", "Cancel"),
    ]

    def __init__(self) -> None:
        super().__init__(id="quit")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("Save the game before quitting?", style="bold"))
            yield Static("A saved game goes on with: hearts tui --resume FILE", classes="dim")
            with Horizontal(classes="buttons"):
                yield Button("Save (s)", id="save", variant="primary")
                yield Button("Don't save (q)", id="quit", variant="error")
                yield Button("Cancel (Esc)", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "cancel")

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
            yield Label(
                Text("Enter to save · Escape to cancel · resume with hearts tui --resume FILE", style="dim")
            )

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
                yield Select(
                    [(p, p) for p in PRESETS], value=preset or Select.BLANK, prompt="(as below)", id="preset"
                )
                for spec in Rules.options():
                    yield Label(f"{spec.label} ({spec.rule})")
                    yield option_field(spec, getattr(rules, spec.name))
                yield Label("Bots")
                yield Select(
                    [(level, level) for level in levels], value=first, allow_blank=False, id="difficulty"
                )
                yield Label("Bot specs")
                yield Input(
                    "", placeholder="optional, one per seat: easy hard search:iterations=200", id="specs"
                )
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
            error.update(Text(rule_last(e), style="bold red"))

    def rules(self) -> Rules:
        """The rules the form holds (a :class:`~hearts.errors.RulesError` names what is wrong)."""
        return Rules.from_dict(
            {
                spec.name: option_value(spec, self.query_one(f"#opt-{spec.name}", Widget))
                for spec in Rules.options()
            }
        )

    def build(self) -> Session:
        """The new session from the form (a :class:`~hearts.errors.HeartsError` names what is wrong)."""
        rules = self.rules()
        seed_text = self.query_one("#seed", Input).value.strip()
        if seed_text and not seed_text.isdigit():
            raise HeartsError(f"seed {seed_text!r} is not a whole number 0 or more")
        level = self.query_one("#difficulty", Select).value
        typed = self.query_one("#specs", Input).value.split()
        specs = bot_specs(
            typed or [level if isinstance(level, str) else DEFAULT_LEVEL], rules.players, DEFAULT_LEVEL
        )
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
    if (
        spec.kind == "int"
        and spec.low is not None
        and spec.high is not None
        and spec.high - spec.low < SHORT_RANGE
    ):
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
    """The card table. All game keys live here, so dialogs on top do not see them.

    Each binding's tooltip is its line in the help screen (``?``).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", tooltip="this list of keys"),
        Binding("left", "move(-1)", "←", show=False, tooltip="the card on the left in your hand"),
        Binding("right", "move(1)", "→", show=False, tooltip="the card on the right in your hand"),
        Binding("enter", "confirm", "Play/pass", tooltip="play the selected card, or pass the marked cards"),
        Binding("space", "mark", "Mark", tooltip="mark or unmark the selected card to pass"),
        Binding("h", "hint", "Hint", tooltip="what the search bot would do, and why (one line)"),
        Binding(
            "u", "undo", "Undo", tooltip="take back your last play in this round and the bots' plays after it"
        ),
        Binding("l", "last_trick", "Last", tooltip="the last trick: who played what, who took it"),
        Binding("s", "scores", "Scores", tooltip="the totals after each round, and this round's points"),
        REVIEW,
        Binding(
            "n",
            "new_game",
            "New",
            tooltip="a new game: a rules preset, every rule option, the bots, the seed",
        ),
        Binding(
            "ctrl+s", "save", "Save", tooltip="save the game record (go on later: hearts tui --resume FILE)"
        ),
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
        yield Static("", id="too-small")
        with Vertical(id="table"):
            yield Static("", id="status")
            with Horizontal(id="top") as across:
                across.display = bool(top)
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
            with Grid(id="hand"):
                for i in range(session.rules.hand_size):
                    yield CardWidget(i)
            yield Static("", id="message")
        yield Footer()

    def on_mount(self) -> None:
        self.fit(self.size.width, self.size.height)
        self.refresh_table()
        self.say(self._said)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.width, event.size.height)
        self.call_after_refresh(self.refresh_table)  # once the parts have their new sizes

    def fit(self, width: int, height: int) -> None:
        """Lay the table out for a window of ``width`` × ``height``: narrow side panels below
        :data:`NARROW` columns, and a notice instead of the table when it does not fit."""
        rules = self.hearts.session.rules
        need = needed_height(rules.players, rules.hand_size, max(width, MIN_WIDTH))
        small = width < MIN_WIDTH or height < need
        self.set_class(width < NARROW, "narrow")
        self.set_class(small, "too-small")
        self.query_one("#hand", Grid).styles.grid_size_columns = cards_per_row(width)
        if small:
            notice = (
                f"This window is {width}×{height}: the table needs at least {max(width, MIN_WIDTH)}×{need} "
                f"for {rules.players} players.\nMake the window larger (Ctrl+Q quits), "
                "or play in line mode: hearts play --plain"
            )
            show(self.query_one("#too-small", Static), Text(notice, style="bold"))

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
        """The round, the pass, the trick, hearts, the target and the seed: as many as fit."""
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
        parts.append(f"to {view.rules.target}")
        parts.append(f"seed {session.seed}")
        room = self.size.width - 2
        while len(parts) > 2 and len(" · ".join(parts)) > room:
            parts.pop()
        return Text(" · ".join(parts), style="bold")

    def _you(self, view: View) -> Text:
        session = self.hearts.session
        t = Text()
        mine = view.to_move == HUMAN and view.phase is Phase.PLAYING
        name, seat_name = session.names[HUMAN], SEAT_NAMES[view.players][HUMAN]
        t.append(("▶ " if mine or view.must_pass else "") + name, style="bold yellow")
        if name != seat_name:
            t.append(f" ({seat_name})", style="yellow")
        t.append(f" · {points_word(view.points_taken[HUMAN])} · total {session.game.totals[HUMAN]}")
        if view.must_pass:
            count = view.rules.pass_count
            t.append(f" · mark {count} to pass ({len(self.marked)}/{count}), Enter", style="bold")
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
        room = self.query_one("#trick", Grid).content_size.width or self.size.width

        def cell(seats: list[int], room: int) -> Text:
            """Names on one line, each seat's card centred under its name on the next; short
            names (``NW``) when the full ones would not fit in ``room`` cells."""
            full = [session.names[s] for s in seats]
            if sum(max(len(name), 3) + 2 for name in full) - 2 > room:
                full = [short_name(name) for name in full]
            names, faces = Text(), Text()
            for i, (s, name) in enumerate(zip(seats, full, strict=True)):
                if i:
                    names.append("  ")
                    faces.append("  ")
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

        show(self.query_one("#trick-tc", Static), cell(top, room))
        show(self.query_one("#trick-ml", Static), cell(left, room // 4))
        show(self.query_one("#trick-mr", Static), cell(right, room // 4))
        show(self.query_one("#trick-bc", Static), cell([HUMAN], room))
        middle = Text()
        if view.phase is Phase.PASSING:
            middle = Text("passing", style="dim")
        elif done and trick.winner is not None:
            middle = Text(f"→ {session.names[trick.winner]}\n{points_word(trick.points)}", style="italic")
        elif view.phase is Phase.PLAYING and not trick.cards:
            middle = Text(f"{session.names[view.to_move or 0]}\nto lead", style="dim")
        elif view.result is not None:
            middle = Text("round\nover", style="dim")
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

    def action_help(self) -> None:
        self.hearts.show_help()

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
    """Hearts at a terminal table: you at seat 0 (South) against bots.

    Give it a :class:`~hearts.tui.session.Session` and ``run()`` it; ``record_path`` (the
    ``--record FILE``) is saved after every round and offered first when saving;
    ``review_budget``: sampled deals per decision when reviewing a round.
    """

    TITLE = "Hearts"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+q", "quit", "Quit", tooltip="quit (asks whether to save the game first)", priority=True
        ),
    ]
    CSS = """
    TableScreen { layout: vertical; }
    #too-small { display: none; height: 1fr; content-align: center middle; padding: 1 2; }
    TableScreen.too-small #table { display: none; }
    TableScreen.too-small #too-small { display: block; }
    #status { height: 1; background: $primary-background; padding: 0 1; }
    #top { height: 5; align: center middle; }
    #top .seat { width: 1fr; max-width: 26; }
    #middle { height: 1fr; min-height: 8; }
    .side { width: 26; align: center middle; }
    .seat { width: 26; height: 5; border: round $secondary; padding: 0 1; }
    .seat.to-move { border: heavy $warning; }
    TableScreen.narrow .side { width: 20; }
    TableScreen.narrow .seat { width: 20; padding: 0; }
    TableScreen.narrow #top .seat { width: 1fr; max-width: 20; }
    #trick { grid-size: 3 3; grid-columns: auto 1fr auto; grid-rows: 1fr 1fr 1fr; width: 1fr;
             min-width: 18; border: round $success; }
    .trick-cell { content-align: center middle; width: 1fr; height: 1fr; min-height: 2; }
    #trick-tc, #trick-bc { column-span: 3; }
    #trick-ml { content-align: left middle; width: auto; }
    #trick-mr { content-align: right middle; width: auto; }
    #you { height: auto; max-height: 2; padding: 0 1; }
    #hand { height: auto; padding: 0 1; grid-gutter: 0 1; grid-columns: 3; grid-rows: 2; }
    .card { width: 3; height: 2; }
    #message { height: 1; padding: 0 1; color: $text-muted; }
    .dialog { width: 76; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
              background: $surface; padding: 0 1; }
    .info-scroll { height: auto; }
    .info-body { height: auto; }
    .dim { color: $text-muted; }
    ModalScreen { align: center middle; }
    .buttons { height: auto; align: center middle; }
    .buttons Button { margin: 0 1; min-width: 10; }
    #new-game-form { height: 100%; max-height: 40; }
    #new-game-fields { height: 1fr; }
    #new-game-grid { grid-size: 2; grid-columns: 30 1fr; grid-rows: 3; height: auto; }
    #new-game-grid Label { padding: 1 0 0 0; }
    #new-game-help, #new-game-error { height: auto; max-height: 3; }
    """

    def __init__(
        self,
        session: Session,
        *,
        record_path: str | Path | None = None,
        hint_spec: str = HINT_BOT,
        review_budget: int = REVIEW_BUDGET,
    ) -> None:
        super().__init__()
        self.session = session
        self.record_path = Path(record_path) if record_path is not None else None
        self.hint_spec = hint_spec
        self.review_budget = review_budget
        """Sampled deals per decision in a review (:data:`~hearts.tui.session.REVIEW_BUDGET`)."""
        self.message = ""
        """The last line said under the hand, as plain text (for tests and the curious)."""
        self.generation = 0
        self.thinking = False
        self.hinting = False
        self._paused = False  # a dialog the game waits for (the moon, a round's summary)
        self._game_over_shown = False
        self._rounds_saved = self._rounds_summed_up = len(session.game.score_history)
        self._table = TableScreen()

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

    def on_mount(self) -> None:
        self.push_screen(self._table)
        self.call_after_refresh(self.advance)
        welcome = (
            "Welcome! ←/→ or type a card (qs), Enter plays, Space marks a pass card, h hint, ? every key."
        )
        self.table.say(" · ".join(self.session.notices) or welcome)

    # --- the game loop -----------------------------------------------------------------------

    def advance(self) -> None:
        """Sum up a finished round, or show the game over, or ask the person (moon), or start
        the next bot move."""
        session = self.session
        game = session.game
        self._autosave()
        if self._paused:
            return
        finished = len(game.score_history)
        if finished > self._rounds_summed_up:
            self._rounds_summed_up = finished
            self._pause(RoundSummaryScreen(game.rounds[finished - 1], session.names))
            return
        if game.is_over:
            if not self._game_over_shown:
                self._game_over_shown = True
                self.show_game_over()
            return
        if game.phase is Phase.MOON_CHOICE and HUMAN in game.actors():
            self._pause(MoonScreen(list(game.totals), session.names), self._moon_chosen)
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

    def _pause(self, screen: ModalScreen[Any], then: Callable[[Any], None] | None = None) -> None:
        """Show a dialog the game waits for; when it closes, ``then(result)`` and go on."""
        self._paused = True

        def closed(result: Any) -> None:
            self._paused = False
            if then is not None:
                then(result)
            self.redraw()
            self.advance()

        self.push_screen(screen, closed)

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
        """Carry out the person's action; on a refusal say why, in a person's words, and
        change nothing (False)."""
        try:
            self.session.apply(action)
        except IllegalAction as e:
            self.table.say(Text(refusal(e, self.session.names, STYLE), style="bold red"))
            return False
        if not isinstance(action, Pass):
            self.table.say("")  # a refusal or a hint said before no longer holds
            self._announce(action)
        self.redraw()
        self.advance()
        return True

    def _moon_chosen(self, choice: MoonChoice | None) -> None:
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

    def show_help(self) -> None:
        """Every key: the table's bindings and the app's, then the review's, each with its tooltip."""
        rows = [
            (self.get_key_display(b) + where, b.tooltip or b.description)
            for bindings, where in (
                ((*TableScreen.BINDINGS, *HeartsApp.BINDINGS), ""),
                (ReviewScreen.BINDINGS, " (review)"),
            )
            for b in bindings
            if isinstance(b, Binding)
        ]
        self.push_screen(HelpScreen(rows))

    def action_review(self) -> None:
        """Review your decisions in the last finished round (←/→ in the review: the others)."""
        finished = self.session.finished_rounds
        if isinstance(self.screen, ReviewScreen):
            return
        if not finished:
            self.table.say("A review looks back at a finished round: none has finished yet.")
            return
        self.push_screen(ReviewScreen(self.session, finished - 1, budget=self.review_budget))

    def show_last_trick(self) -> None:
        view = self.session.view
        if not view.tricks:
            self.table.say("No trick has been completed yet this round.")
            return
        title = f"Trick {len(view.tricks)} of round {view.round_number + 1}"
        self.push_screen(InfoScreen(title, trick_text(view.tricks[-1], self.session.names), id="last-trick"))

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
        head, *rest = game_over_lines(self.session.game, self.session.names)
        body = Text(head + "\n\n", style="bold") + Text("\n".join(rest))
        self.push_screen(GameOverScreen(body), self._game_over_chosen)

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
        self.generation += 1  # a bot still thinking about the old game is ignored
        self.session = session
        self._game_over_shown = False
        self._paused = False
        self._rounds_saved = self._rounds_summed_up = len(session.game.score_history)
        while len(self.screen_stack) > 2 and self.screen is not self._table:
            self.pop_screen()  # a dialog still on top of the table
        self._table = TableScreen()
        self.switch_screen(self._table)
        self.call_after_refresh(self.advance)
        self.call_after_refresh(
            self._table.say, f"New game · seed {session.seed} · {session.rules.describe()}"
        )

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
            self.table.say(Text(f"Cannot save to {path!r}: {e.strerror or e}", style="bold red"))
            return False
        self.table.say(f"Saved to {path} · go on later with: hearts tui --resume {path}")
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
                self.table.say(Text(why, style="bold red"))

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
