"""How the terminal table looks and what it says: cards in their suits' colours on a white
face, a finished trick, what a move did, the score history.

Shared by the table's widgets (:mod:`hearts.tui.widgets`) and its screens
(:mod:`hearts.tui.screens`); Rich only, no widget.

>>> card_text(Card.parse("TH")).plain, cards_text([Card.parse("2C"), Card.parse("QS")]).plain
('10♥', '2♣ Q♠')
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from hearts.actions import Action, Moon, Play
from hearts.cards import DIAMONDS, HEARTS, Card
from hearts.game import Game
from hearts.i18n import _
from hearts.round import Trick
from hearts.text import Style, is_you, moon_choice_text, name_word, points_word, score_table
from hearts.view import View

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


def cards_text(cards: Sequence[Card]) -> Text:
    """Cards in their colours, separated by blanks."""
    return Text(" ").join(card_text(c) for c in cards)


def trick_text(trick: Trick, names: Sequence[str]) -> Text:
    """A finished trick, one play a line, and who took it with its points.

    >>> from hearts import Game, Rules
    >>> from hearts.bots import make_bot
    >>> from hearts.view import View
    >>> game = Game(Rules(pass_count=0), seed=1)
    >>> for _ in range(4):
    ...     seat = game.actors()[0]
    ...     game.apply(make_bot("random", seed=seat).act(View.of(game, seat)))
    >>> print(trick_text(game.round.tricks[0], ["You", "West", "North", "East"]).plain)  # doctest: +NORMALIZE_WHITESPACE
    led by North  2♣
           East   4♣
           You    A♣
           West   8♣
    → You take it (no points)
    """
    lines = []
    shown = [name_word(n) for n in names]
    width = max(len(shown[seat]) for seat, _card in trick.plays)
    led_by = _("led by") + " "
    for seat, card in trick.plays:
        led = led_by if seat == trick.leader else " " * len(led_by)
        lines.append(Text(f"{led}{shown[seat]:<{width}}  ") + card_text(card))
    if trick.winner is not None:
        lines.append(Text("→ " + takes(names[trick.winner], _("it"), trick.points), style="bold"))
    return Text("\n").join(lines)


def takes(name: str, what: str, points: int) -> str:
    """``You take it (no points)``, ``West takes the trick (3 points)``, in the language in use."""
    if is_you(name):
        return _("You take {what} ({points})").format(what=what, points=points_word(points))
    return _("{name} takes {what} ({points})").format(name=name_word(name), what=what, points=points_word(points))


def announcement(action: Action, game: Game, names: Sequence[str]) -> str | None:
    """What an accepted ``action`` of ``game`` did, if worth saying: the trick it completed
    (who took it, its points), or the moon shooter's choice.

    >>> from hearts import Rules
    >>> game = Game(Rules(pass_count=0), seed=1)
    >>> plays = [Play(s, c) for s, c in [(2, Card.parse("2C")), (3, Card.parse("4C"))]]
    >>> for play in plays:
    ...     game.apply(play)
    >>> announcement(plays[-1], game, ["You", "West", "North", "East"]) is None  # the trick goes on
    True
    """
    if isinstance(action, Moon):
        return moon_choice_text(names[action.seat], action.choice, game.rules.round_points)
    if isinstance(action, Play) and not game.round.current_trick.cards:  # it completed a trick
        r = game.round if game.round.tricks else game.rounds[-2]  # or the last round's last
        done = r.tricks[-1]
        if done.winner is not None:
            return takes(names[done.winner], _("the trick"), done.points) + "."
    return None


def score_history(history: Sequence[Sequence[int]], view: View, names: Sequence[str]) -> str:
    """The totals after each round (``history``), this round's points so far (``view``: a
    seat's), and how the game is won: the local game's and a service table's alike.

    >>> from hearts import Rules
    >>> game = Game(Rules(target=50), seed=1)
    >>> print(score_history(game.score_history, View.of(game, 0), ["You", "West", "North", "East"]))
    ... # doctest: +NORMALIZE_WHITESPACE
                   You  West  North  East
    Round 1 so far   0     0      0     0
    <BLANKLINE>
    Totals after each round; lowest total wins; target 50.
    """
    rows: list[tuple[str, list[object]]] = [
        (_("Round {n}").format(n=i + 1), list(totals)) for i, totals in enumerate(history)
    ]
    if not view.game_over:
        rows.append((_("Round {n} so far").format(n=view.round_number + 1), list(view.points_taken)))
    if not rows:
        rows = [(_("Totals"), list(view.scores))]
    body = "\n".join(score_table([name_word(n) for n in names], rows))
    return body + "\n\n" + _("Totals after each round; lowest total wins; target {n}.").format(n=view.rules.target)
