"""The card table: :class:`TableScreen`.

You sit at the bottom (South, with four players), your hand along the bottom edge (suit
colours, illegal cards dimmed, wrapped into rows when the window is narrow); the other seats
sit left, across and right in clockwise order (R1.4) with their names, levels, card counts and
points; the trick is in the middle. A window smaller than the table needs says so instead of
cutting the table off.

The screen holds the game's :attr:`~TableScreen.state` (a :class:`~hearts.tui.state.TableState`
the app sets after every change) and your hand's ``cursor`` and ``marked`` cards, all Textual
reactives its widgets are bound to (``data_bind``): each widget redraws only when its own part
changes. What you do goes up to the app as messages: :class:`TableScreen.Acted` (a pass, a
play) and :class:`TableScreen.Asked` (a hint, undo, a dialog).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer

from hearts.actions import Action, Pass, Play
from hearts.cards import RANK_LETTERS, SUIT_LETTERS, Card, CardSet
from hearts.i18n import N_, _, ngettext
from hearts.round import Phase
from hearts.tui.layout import MIN_WIDTH, NARROW, cards_per_row, needed_height, table_positions
from hearts.tui.look import card_text, cards_text
from hearts.tui.screens.review import REVIEW
from hearts.tui.screens.rules import RulesScreen
from hearts.tui.state import TableState
from hearts.tui.widgets import CardWidget, Hand, SeatPanel, StatusLine, TextLine, TrickView, YouLine
from hearts.tui.words import translate_bindings
from hearts.view import View

RANK_KEYS = {c.lower(): i for i, c in enumerate(RANK_LETTERS)}
SUIT_KEYS = {c.lower(): i for i, c in enumerate(SUIT_LETTERS)}

Command = Literal["help", "hint", "undo", "last_trick", "scores", "new_game", "save"]
"""What the table may ask of the app (:class:`TableScreen.Asked`)."""


class TableScreen(Screen[None]):
    """The card table. All game keys live here, so dialogs on top do not see them.

    Each binding's tooltip is its line in the help screen (``?``).
    """

    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    TableScreen #too-small { display: none; height: 1fr; content-align: center middle; padding: 1 2; }
    TableScreen.too-small #table { display: none; }
    TableScreen.too-small #too-small { display: block; }
    TableScreen #top { height: 5; align: center middle; }
    TableScreen #top .seat { width: 1fr; max-width: 26; }
    TableScreen #middle { height: 1fr; min-height: 8; }
    TableScreen .side { width: 26; align: center middle; }
    TableScreen.narrow .side { width: 20; }
    TableScreen.narrow .seat { width: 20; padding: 0; }
    TableScreen.narrow #top .seat { width: 1fr; max-width: 20; }
    TableScreen #message { height: 1; padding: 0 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "ask('help')", N_("Help"), tooltip=N_("this list of keys")),
        Binding("left", "move(-1)", "←", show=False, tooltip=N_("the card on the left in your hand")),
        Binding("right", "move(1)", "→", show=False, tooltip=N_("the card on the right in your hand")),
        Binding("enter", "confirm", N_("Play/pass"), tooltip=N_("play the selected card, or pass the marked cards")),
        Binding("space", "mark", N_("Mark"), tooltip=N_("mark or unmark the selected card to pass")),
        Binding("h", "hint", N_("Hint"), tooltip=N_("what the search bot would do, and why (one line)")),
        Binding(
            "u",
            "ask('undo')",
            N_("Undo"),
            tooltip=N_("take back your last play in this round and the bots' plays after it"),
        ),
        Binding("l", "ask('last_trick')", N_("Last"), tooltip=N_("the last trick: who played what, who took it")),
        Binding("s", "scores", N_("Scores"), tooltip=N_("the totals after each round, and this round's points")),
        Binding("b", "rules", N_("Rules"), tooltip=N_("the rule book, with this table's options")),
        REVIEW,
        Binding(
            "n",
            "ask('new_game')",
            N_("New"),
            tooltip=N_("a new game: a rules preset, every rule option, the bots, the seed"),
        ),
        Binding(
            "ctrl+s",
            "ask('save')",
            N_("Save"),
            tooltip=N_("save the game record (go on later: hearts tui --resume FILE)"),
        ),
    ]

    state: var[TableState | None] = var(None)
    """The game as the person sees it; set by the app after every change."""
    cursor: var[int] = var(0)
    """The selected card's place in the hand (sorted by suit)."""
    marked: var[frozenset[Card]] = var(frozenset())
    """The cards marked to pass."""
    said: var[Text] = var(Text)
    """The line under the hand (hints, refusals, what just happened)."""

    class Acted(Message):
        """The person chose an action (a pass or a play); the app carries it out, or says why not."""

        def __init__(self, action: Action) -> None:
            super().__init__()
            self.action = action

    class Asked(Message):
        """The person asked for a hint, an undo or one of the app's dialogs."""

        def __init__(self, command: Command) -> None:
            super().__init__()
            self.command: Command = command

    def __init__(self, state: TableState) -> None:
        super().__init__()
        translate_bindings(self)  # the footer and the help in the language in use
        self.pending_rank: int | None = None
        self.pending_ten = False
        self._cards: list[Card] = []
        """The hand as shown, sorted by suit."""
        self.state = state

    @property
    def view(self) -> View:
        """The person's view (R7) of the game shown."""
        assert self.state is not None  # given when the screen is made
        return self.state.view

    def compose(self) -> ComposeResult:
        rules = self.view.rules
        me, n = self.view.seat, rules.players
        left, top, right = ([(me + p) % n for p in places] for places in table_positions(n))
        yield TextLine(id="too-small")
        with Vertical(id="table"):
            yield StatusLine().data_bind(TableScreen.state)
            with Horizontal(id="top") as across:
                across.display = bool(top)
                for s in top:
                    yield SeatPanel(s).data_bind(TableScreen.state)
            with Horizontal(id="middle"):
                with Vertical(id="left", classes="side"):
                    for s in left:
                        yield SeatPanel(s).data_bind(TableScreen.state)
                yield TrickView().data_bind(TableScreen.state)
                with Vertical(id="right", classes="side"):
                    for s in right:
                        yield SeatPanel(s).data_bind(TableScreen.state)
            yield YouLine().data_bind(TableScreen.state, TableScreen.marked)
            yield Hand(rules.hand_size).data_bind(TableScreen.state, TableScreen.cursor, TableScreen.marked)
            yield TextLine(id="message").data_bind(text=TableScreen.said)
        yield Footer()

    def on_mount(self) -> None:
        self.fit(self.size.width, self.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.width, event.size.height)

    def fit(self, width: int, height: int) -> None:
        """Lay the table out for a window of ``width`` × ``height``: narrow side panels below
        :data:`~hearts.tui.layout.NARROW` columns, and a notice instead of the table when it
        does not fit."""
        rules = self.view.rules
        need = needed_height(rules.players, rules.hand_size, max(width, MIN_WIDTH))
        small = width < MIN_WIDTH or height < need
        self.set_class(width < NARROW, "narrow")
        self.set_class(small, "too-small")
        self.query_one(Hand).columns = cards_per_row(width)
        if small:
            notice = _(
                "This window is {width}×{height}: the table needs at least {need} for {n} players.\n"
                "Make the window larger (Ctrl+Q quits), or play in line mode: hearts play --plain"
            ).format(width=width, height=height, need=f"{max(width, MIN_WIDTH)}×{need}", n=rules.players)
            self.query_one("#too-small", TextLine).text = Text(notice, style="bold")

    # --- the state ---------------------------------------------------------------------------

    def watch_state(self, old: TableState | None, state: TableState | None) -> None:
        """A new position: the hand sorted by suit, the cursor still on its card when it can
        (on a legal card when your turn starts), the marks kept only while passing."""
        if state is None:
            return
        view = state.view
        before = self._cards[self.cursor] if 0 <= self.cursor < len(self._cards) else None
        self._cards = view.hand.sorted_by_suit()
        cursor = self._cards.index(before) if before in self._cards else self.cursor
        cursor = max(0, min(cursor, len(self._cards) - 1))
        starts = state.turn(state.me) and not (old is not None and old.turn(state.me))
        if starts and self._cards[cursor] not in view.legal:
            # the turn starts on a legal card; the cursor may still visit the illegal ones
            cursor = next(i for i, c in enumerate(self._cards) if c in view.legal)
        self.marked = self.marked & frozenset(self._cards) if view.must_pass else frozenset()
        self.cursor = cursor

    def say(self, text: str | Text) -> None:
        """Show one line under the hand (hints, refusals, what just happened)."""
        self.said = text if isinstance(text, Text) else Text(text)

    # --- keys --------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """Typing a card: a rank (``q``, ``10``, ``t``) then a suit (``s``); a rank alone jumps."""
        char = (event.character or "").lower()
        if self.pending_ten and char == "0":
            self.pending_ten = False
            self._rank_typed(RANK_KEYS["t"])
        elif char == "1":
            self.pending_ten = True
        elif self.pending_rank is not None and char in SUIT_KEYS:
            self.pending_ten = False
            rank, self.pending_rank = self.pending_rank, None
            self._card_typed(Card.of(rank, SUIT_KEYS[char]))
        elif char in RANK_KEYS and char not in ("h", "s"):
            self.pending_ten = False
            self._rank_typed(RANK_KEYS[char])
        else:
            self.pending_ten = False
            self.pending_rank = None
            return
        event.stop()
        event.prevent_default()

    def _rank_typed(self, rank: int) -> None:
        self.pending_rank = rank
        index = next((i for i, c in enumerate(self._cards) if c.rank == rank), None)
        if index is not None:
            self.cursor = index

    def _card_typed(self, card: Card) -> None:
        if card in self._cards:
            self.cursor = self._cards.index(card)
            self.say(Text.assemble(_("Selected") + " ", card_text(card), " · " + _("Enter to play / Space to mark")))
        else:
            self.say(Text.assemble(_("You do not hold") + " ", card_text(card)))

    def on_card_widget_clicked(self, message: CardWidget.Clicked) -> None:
        if message.index >= len(self._cards):
            return
        self.cursor = message.index
        if self.view.must_pass:
            self.action_mark()
        else:
            self.action_confirm()

    def action_move(self, step: int) -> None:
        self.pending_rank = None
        if self._cards:
            self.cursor = (self.cursor + step) % len(self._cards)

    def action_mark(self) -> None:
        view = self.view
        if not view.must_pass or not self._cards:
            self.say(_("Space marks a card to pass, while passing."))
            return
        card = self._cards[self.cursor]
        if card in self.marked:
            self.marked -= {card}
        elif len(self.marked) >= view.rules.pass_count:
            count = view.rules.pass_count
            self.say(ngettext("You pass {n} card: unmark one first (Space).", "You pass {n} cards: unmark one first (Space).",
                              count).format(n=count))
            return
        else:
            self.marked |= {card}
        self.say(Text.assemble(_("To pass:") + " ", cards_text(sorted(self.marked, key=self._cards.index))))

    def action_confirm(self) -> None:
        view = self.view
        if view.must_pass:
            count = view.rules.pass_count
            if len(self.marked) != count:
                self.say(ngettext("Mark {n} card with Space first ({marked} marked).",
                                  "Mark {n} cards with Space first ({marked} marked).", count).format(n=count, marked=len(self.marked)))
            else:
                self.post_message(self.Acted(Pass(view.seat, CardSet(self.marked))))
            return
        if view.to_move != view.seat or view.phase is not Phase.PLAYING or not self._cards:
            self.say(_("Not your turn: the others are playing."))
            return
        self.post_message(self.Acted(Play(view.seat, self._cards[self.cursor])))

    def action_hint(self) -> None:
        if self.pending_rank is not None:  # 'h' completes a card being typed: hearts
            self.on_key(events.Key("h", "h"))
            return
        self.action_ask("hint")

    def action_scores(self) -> None:
        if self.pending_rank is not None:  # 's' completes a card being typed: spades
            self.on_key(events.Key("s", "s"))
            return
        self.action_ask("scores")

    def action_rules(self) -> None:
        """The rule book with this table's options (:class:`RulesScreen`)."""
        self.app.push_screen(RulesScreen(self.view.rules))

    def action_ask(self, command: Command) -> None:
        """Ask the app for ``command`` (the keys' actions: ``ask('undo')``, …)."""
        self.post_message(self.Asked(command))
