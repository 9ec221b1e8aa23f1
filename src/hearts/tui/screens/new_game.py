"""A new game's rules, bots and seed: :class:`NewGameScreen`, its form made from the rule options."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static, Switch

from hearts.bots import LEVELS
from hearts.errors import HeartsError
from hearts.i18n import N_, _
from hearts.rules import OPTION_NAMES, PRESETS, OptionSpec, Rules, option_text, parse_option_value
from hearts.text import DEFAULT_LEVEL, allowed_words, bot_specs, name_word, rule_last
from hearts.tui.screens.dialog import Dialog
from hearts.tui.screens.rules import RulesScreen
from hearts.tui.session import HUMAN, Session

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


class NewGameScreen(Dialog[Session | None]):
    """A new game: a rules preset, every rule option, the bots and the seed; the new
    :class:`~hearts.tui.session.Session` is the screen's result (``None``: cancelled).

    The options' part of the form is made from :meth:`Rules.options()
    <hearts.rules.Rules.options>`: each option's label, its rule and help (shown for the field
    in focus), and a field for its kind: a switch (yes/no), a list (choices, or a short
    range), or a text field checked by the engine's parser. Choosing a preset fills the
    options with its values. A table the session refuses (a bot that cannot play the rules)
    says why, as a wrong value does.
    """

    DEFAULT_CSS = """
    NewGameScreen #new-game-form { height: 100%; max-height: 40; }
    NewGameScreen #new-game-fields { height: 1fr; }
    NewGameScreen #new-game-grid { grid-size: 2; grid-columns: 30 1fr; grid-rows: 3; height: auto; }
    NewGameScreen #new-game-grid Label { padding: 1 0 0 0; }
    NewGameScreen #new-game-help, NewGameScreen #new-game-error { height: auto; max-height: 3; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", N_("Cancel")),
        Binding("f1", "rules", N_("Rules"), tooltip=N_("the rule book, with the options of this form")),
    ]

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
            yield Label(Text(_("New game"), style="bold"))
            with VerticalScroll(id="new-game-fields"), Grid(id="new-game-grid"):
                yield Label(_("Preset (R6)"))
                yield Select(
                    [(p, p) for p in PRESETS], value=preset or Select.BLANK, prompt=_("(as below)"), id="preset"
                )
                for spec in Rules.options():
                    yield Label(f"{_(spec.label)} ({spec.rule})")
                    yield option_field(spec, getattr(rules, spec.name))
                yield Label(_("Bots"))
                yield Select(
                    [(name_word(level), level) for level in levels], value=first, allow_blank=False, id="difficulty"
                )
                yield Label(_("Bot specs"))
                yield Input(
                    "", placeholder=_("optional, one per seat: easy hard search:iterations=200"), id="specs"
                )
                yield Label(_("Seed"))
                yield Input("", placeholder=_("empty: random"), id="seed")
            yield Static("", id="new-game-help")
            yield Static("", id="new-game-error")
            with Horizontal(classes="buttons"):
                yield Button(_("Start (Enter)"), id="start", variant="primary")
                yield Button(_("Cancel (Esc)"), id="cancel")
                yield Button(_("Rules (F1)"), id="rules-button")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Show the rule and help of the option in focus."""
        name = (event.widget.id or "").removeprefix("opt-")
        text = ""
        if name in OPTION_NAMES:
            spec = Rules.option(name)
            text = f"{spec.rule}: {_(spec.help)} · " + _("allowed: {values}").format(values=allowed_words(spec))
        self.query_one("#new-game-help", Static).update(Text(text, style="dim"))

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "preset" and isinstance(event.value, str):
            preset = Rules.preset(event.value)
            for spec in Rules.options():
                set_option_field(self.query_one(f"#opt-{spec.name}", Widget), getattr(preset, spec.name))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.start()
        elif event.button.id == "rules-button":
            self.action_rules()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.start()

    def action_rules(self) -> None:
        """The rule book with the form's options (the current game's while the form is wrong)."""
        try:
            rules = self.rules()
        except HeartsError:
            rules = self.current.rules
        self.app.push_screen(RulesScreen(rules))

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
