"""The observation encoding shared by every adapter: a flat ``float32`` vector of named slices,
built only from a :class:`~hearts.view.View` (docs/rules.md R7: what one seat may know).

Seats are *relative*: index 0 is the observing seat, 1 the seat on its left (the next to play
after it), and so on clockwise (R1.4). ``n`` is the number of players; cards are one-hot over
the 52 card ids (``rank * 4 + suit``, OpenSpiel's order).

=================  ==========  ===========================================================
slice              length      meaning
=================  ==========  ===========================================================
``hand``           52          the cards this seat holds (while passing: minus those chosen)
``played``         n × 52      cards each seat has played this round
``trick``          n × 52      the current trick, one card one-hot per slot in play order
``trick_leader``   n           who led the current trick
``voids``          n × 4       suits each seat has shown it lacks (R3.2)
``points``         n           penalty points taken this round, / the round's (26; 43, R4.5)
``passed``         52          cards this seat passed (or has chosen so far)
``received``       52          cards this seat received (R2.3)
``pass_to``        n           the pass direction this round, one-hot offset (0 = hold)
``scores``         n           game totals before this round / target, clipped to [-1, 2]
``phase``          3           passing, playing, moon choice (R4.4)
``hearts_broken``  1           R3.5
``tricks_played``  1           tricks completed / tricks in the round
``rules``          13          the options of R3 and R4 (:data:`RULE_OPTIONS`), in the order
                               of :meth:`Rules.options() <hearts.rules.Rules.options>`: R3.1
                               any club, R3.3 points on first trick, R3.4 must break, R3.5
                               Q♠ breaks, R3.6 Q♠ after break, R3.7 hearts instead, R4.2 J♦
                               bonus / 26, R4.3 no-trick bonus / 26, R4.5 Black Maria's
                               spades, R4.4 moon one-hot (add, subtract, chooses, add
                               unless losing)
=================  ==========  ===========================================================

A yes/no option is 1 when on, a two-way choice 1 when not its default, a whole number is
divided by the largest it may be (26), and a choice among more is one-hot.

Four players: 52 + 208 + 208 + 4 + 16 + 4 + 52 + 52 + 4 + 4 + 3 + 1 + 1 + 13 = 622 values.

>>> from hearts import Game, Rules
>>> from hearts.view import View
>>> enc = ObservationEncoder(Rules())
>>> enc.size, enc.slices["trick"]
(622, slice(260, 468, None))
>>> obs = enc.encode(View.of(Game(Rules(), seed=1), 0))
>>> int(obs[enc.slices["hand"]].sum()), obs.dtype.name
(13, 'float32')
"""

from __future__ import annotations

from typing import Final

from hearts.rl import MissingExtra

try:
    import numpy as np
    from numpy.typing import NDArray
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None

from hearts.round import Phase
from hearts.rules import OptionSpec, Rules
from hearts.view import View

RULE_OPTIONS: Final = tuple(spec for spec in Rules.options() if spec.rule.startswith(("R3", "R4")))
"""The options that change how a round is played and scored (R3, R4), encoded in ``rules``."""


def _width(spec: OptionSpec) -> int:
    """Values one option takes in ``rules``: one, or one per choice of a choice among more than two."""
    return len(spec.choices) if spec.kind == "choice" and len(spec.choices) > 2 else 1


def _scale(spec: OptionSpec) -> int:
    """What a whole-number option is divided by: the largest value it may take."""
    return max(abs(spec.low or 0), abs(spec.high or 0), 1)


RULE_FLAGS: Final = sum(_width(spec) for spec in RULE_OPTIONS)


def _layout(n: int) -> list[tuple[str, int]]:
    return [
        ("hand", 52),
        ("played", n * 52),
        ("trick", n * 52),
        ("trick_leader", n),
        ("voids", n * 4),
        ("points", n),
        ("passed", 52),
        ("received", 52),
        ("pass_to", n),
        ("scores", n),
        ("phase", 3),
        ("hearts_broken", 1),
        ("tricks_played", 1),
        ("rules", RULE_FLAGS),
    ]


def _mask_to(out: NDArray[np.float32], start: int, mask: int) -> None:
    while mask:
        low = mask & -mask
        out[start + low.bit_length() - 1] = 1.0
        mask ^= low


class ObservationEncoder:
    """The encoding for one set of rules (its length depends on the number of players)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.players = n = rules.players
        self.slices: dict[str, slice] = {}
        start = 0
        for name, length in _layout(n):
            self.slices[name] = slice(start, start + length)
            start += length
        self.size = start
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.ones(self.size, dtype=np.float32)
        self.low[self.slices["scores"]] = -1.0
        self.high[self.slices["scores"]] = 2.0
        start = self.slices["rules"].start
        self._rule_values = np.zeros(RULE_FLAGS, dtype=np.float32)
        i = 0
        for spec in RULE_OPTIONS:  # see the module docstring
            value = getattr(rules, spec.name)
            if spec.kind == "int":
                self._rule_values[i] = value / _scale(spec)
                self.low[start + i] = (spec.low or 0) / _scale(spec)
            elif spec.kind == "bool":
                self._rule_values[i] = value
            elif _width(spec) == 1:
                self._rule_values[i] = value != spec.default
            else:
                self._rule_values[i + spec.choices.index(value)] = 1.0
            i += _width(spec)

    def encode(self, view: View, pending_pass: int = 0) -> NDArray[np.float32]:
        """The observation of ``view``'s seat. ``pending_pass`` is a mask of cards this seat has
        chosen so far in a pass given one card at a time (they leave ``hand``, join ``passed``)."""
        n, me, s = self.players, view.seat, self.slices
        out = np.zeros(self.size, dtype=np.float32)
        _mask_to(out, s["hand"].start, view.hand.mask & ~pending_pass)
        base = s["played"].start
        for t in (*view.tricks, view.trick):
            for seat, card in t.plays:
                out[base + ((seat - me) % n) * 52 + card] = 1.0
        base = s["trick"].start
        for i, card in enumerate(view.trick.cards):
            out[base + i * 52 + card] = 1.0
        if view.phase is Phase.PLAYING:
            out[s["trick_leader"].start + (view.trick.leader - me) % n] = 1.0
        base = s["voids"].start
        for seat, suits in enumerate(view.voids):
            for suit in suits:
                out[base + ((seat - me) % n) * 4 + suit] = 1.0
        base = s["points"].start
        for seat, pts in enumerate(view.points_taken):
            out[base + (seat - me) % n] = pts / view.rules.round_points
        passed = (view.passed.mask if view.passed is not None else 0) | pending_pass
        _mask_to(out, s["passed"].start, passed)
        if view.received is not None:
            _mask_to(out, s["received"].start, view.received.mask)
        offset = (view.pass_to - me) % n if view.pass_to is not None else 0
        out[s["pass_to"].start + offset] = 1.0
        base = s["scores"].start
        target = view.rules.target
        for seat, total in enumerate(view.scores):
            out[base + (seat - me) % n] = min(max(total / target, -1.0), 2.0)
        phase = {Phase.PASSING: 0, Phase.PLAYING: 1, Phase.MOON_CHOICE: 2}.get(view.phase)
        if phase is not None:
            out[s["phase"].start + phase] = 1.0
        out[s["hearts_broken"].start] = view.hearts_broken
        out[s["tricks_played"].start] = len(view.tricks) / view.rules.hand_size
        out[s["rules"]] = self._rule_values
        return out

    def table(self) -> str:
        """The slices as a markdown table (for docs/research.md)."""
        rows = ["| slice | offset | length |", "|---|---|---|"]
        rows += [f"| `{k}` | {v.start} | {v.stop - v.start} |" for k, v in self.slices.items()]
        return "\n".join(rows)


__all__ = ["ObservationEncoder"]
