"""Our engine as an OpenSpiel Python game, ``python_hearts``, with every option of docs/rules.md as a
game parameter, so that OpenSpiel's algorithms and bots run on every variant.

>>> import pyspiel
>>> import hearts.rl.openspiel_game  # registers python_hearts
>>> game = pyspiel.load_game("python_hearts", {"players": 3, "jack_of_diamonds": -10})
>>> game.num_players(), game.num_distinct_actions()
(3, 52)

The game is one round, shaped as OpenSpiel's ``hearts`` (so that its tools and our
differential test read both alike):

1. **pass direction** (chance; only when ``pass_count > 0`` and ``round_number = -1``, the
   default): outcome ``i`` plays step ``i`` of the pass rotation (R2.2, e.g. left, right,
   across, hold), each equally likely. With ``round_number >= 0`` that round's step is used.
2. **deal** (chance): one outcome per card of the deck, a card id; the k-th card dealt goes to
   seat ``k % players`` (R1.3). With 4 players this is OpenSpiel's deal.
3. **pass** (R2): seats 0, 1, …, n−1 in turn choose their ``pass_count`` cards one action
   (a card id) at a time; the cards change hands after the last one.
4. **play** (R3): card ids; the trick winner leads.
5. **moon choice** (R4.4, ``moon="shooter_chooses"`` only): action 0 adds 26 to the others,
   1 subtracts 26 from the shooter.

Returns are ``26 - score`` per seat (OpenSpiel's convention; R4 scores, bonuses and the moon
included). Parameters (:data:`PARAMETERS`): every rule option of :class:`~hearts.rules.Rules`
with its default (:meth:`Rules.options() <hearts.rules.Rules.options>`), plus ``round_number``.
``pass_cycle`` is text, its steps separated by ``/`` (``"left/right/hold"``; commas are read
too, but OpenSpiel's game strings separate parameters with them) or ``"default"``
(:func:`pass_cycle_text`), so that ``pyspiel.load_game(str(game))`` gives the same game:

>>> again = pyspiel.load_game(str(pyspiel.load_game("python_hearts", {"pass_cycle": "left,hold"})))
>>> again.get_parameters()["pass_cycle"], again.rules.pass_cycle
('left/hold', ('left', 'hold'))

Observations: the observation tensor is :mod:`hearts.rl.encoding`'s
encoding (what the seat may know, R7); the information state (string and tensor) is the seat's
whole history: its dealt hand, pass direction, passed and received cards, and every trick in
order with its leader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]

from hearts.cards import CardSet, cards_of
from hearts.mechanics import MOON_CHOICES
from hearts.rl.driver import Driver
from hearts.rl.encoding import ObservationEncoder
from hearts.round import Phase, Round
from hearts.rules import DEFAULT_PASS_CYCLES, OPTION_NAMES, PassStep, Rules
from hearts.view import View


def pass_cycle_text(cycle: Sequence[PassStep] | None) -> str:
    """A pass cycle (R2.2) as the ``pass_cycle`` game parameter: its steps joined by ``/``,
    ``"default"`` for ``None``; a lone offset ends with ``/`` (OpenSpiel would read ``"1"`` as
    an int).

    >>> pass_cycle_text(("left", "right", "hold")), pass_cycle_text(None), pass_cycle_text((1,))
    ('left/right/hold', 'default', '1/')
    """
    if cycle is None:
        return "default"
    text = "/".join(map(str, cycle))
    return text + "/" if text.lstrip("-").isdigit() else text


PARAMETERS: Final[dict[str, Any]] = {
    **{spec.name: pass_cycle_text(spec.default) if spec.kind == "pass_cycle" else spec.default
       for spec in Rules.options()},
    "round_number": -1,
}
"""The game's parameters and their defaults: every rule option, and ``round_number`` (-1: the
pass direction is a chance outcome)."""

_GAME_TYPE = pyspiel.GameType(
    short_name="python_hearts",
    long_name="Python Hearts (pyhearts engine, every docs/rules.md option)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


def rules_from_params(params: dict[str, Any]) -> Rules:
    """Our :class:`Rules` from the game's parameters (``pass_cycle`` as :func:`pass_cycle_text`
    writes it, or with commas).

    >>> rules_from_params({"players": 3, "pass_cycle": "left/2/", "round_number": 0}).pass_cycle
    ('left', 2)
    """
    options = {k: v for k, v in params.items() if k in OPTION_NAMES and k != "pass_cycle"}
    steps = [s for s in str(params.get("pass_cycle", "default")).replace("/", ",").split(",") if s.strip()]
    return Rules.from_dict(options).with_options([f"pass_cycle={','.join(steps) or 'default'}"])


class HeartsGame(pyspiel.Game):  # type: ignore[misc]
    """``python_hearts``: one round of Hearts with our engine."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        full = {**PARAMETERS, **(params or {})}
        self.rules = rules_from_params(full)
        full["pass_cycle"] = pass_cycle_text(self.rules.pass_cycle)  # the form str(game) keeps
        self.round_number = int(full["round_number"])
        rules = self.rules
        steps = rules.pass_cycle if rules.pass_cycle is not None else DEFAULT_PASS_CYCLES[rules.players]
        self.cycle_length = len(steps)
        high = 26 + max(rules.jack_of_diamonds, 0) + max(rules.no_tricks_bonus, 0)
        low = -26 + min(rules.jack_of_diamonds, 0) + min(rules.no_tricks_bonus, 0)
        n = rules.players
        info = pyspiel.GameInfo(
            num_distinct_actions=52,
            max_chance_outcomes=52,
            num_players=n,
            min_utility=float(26 - high),
            max_utility=float(26 - low),
            utility_sum=None,
            max_game_length=n * rules.pass_count + rules.deck_size + 1,
        )
        super().__init__(_GAME_TYPE, info, full)
        self.encoder = ObservationEncoder(rules)

    def new_initial_state(self) -> HeartsState:
        return HeartsState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return HistoryObserver(self) if perfect_recall else ViewObserver(self)


class HeartsState(pyspiel.State):  # type: ignore[misc]
    """A state: chance (direction, deal), then the round in our engine."""

    def __init__(self, game: HeartsGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.n = game.rules.players
        self.cycle_length = game.cycle_length
        chance_direction = game.rules.pass_count > 0 and game.round_number < 0
        self.round_number: int | None = None if chance_direction else max(game.round_number, 0)
        self.dealt: list[int] = []
        self.driver: Driver | None = None
        """The round, once dealt, with the adapters' int actions (:mod:`hearts.rl.driver`)."""

    @property
    def round(self) -> Round | None:
        """The round in our engine (``None`` while chance deals)."""
        return self.driver.round if self.driver is not None else None

    def pending(self, player: int) -> int:
        """The cards ``player`` has chosen so far in its pass, one action at a time (a mask)."""
        return self.driver.pending[player] if self.driver is not None else 0

    # --- OpenSpiel API -------------------------------------------------------------------

    def current_player(self) -> int:
        if self.driver is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = self.driver.current_seat()
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.driver is not None
        return [int(c) for c in cards_of(self.driver.legal_mask(player))]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.round_number is None:
            p = 1.0 / self.cycle_length
            return [(i, p) for i in range(self.cycle_length)]
        left = [c for c in range(52) if self.rules.deck_mask >> c & 1 and c not in self.dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.driver is not None:
            self.driver.apply(action)
        elif self.round_number is None:
            self.round_number = action
        else:
            self.dealt.append(action)
            if len(self.dealt) == self.rules.deck_size:
                n = self.n
                hands = [sum(1 << c for c in self.dealt[s::n]) for s in range(n)]
                self.driver = Driver(Round(self.rules, hands, round_number=self.round_number))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.round_number is None:
                return f"Pass step {action}"
            return f"Deal {CardSet.from_mask(1 << action)}"
        if self.round is not None and self.round.phase is Phase.MOON_CHOICE:
            return f"Moon: {MOON_CHOICES[action]}"
        return str(CardSet.from_mask(1 << action))

    def is_terminal(self) -> bool:
        return self.driver is not None and self.driver.is_over

    def returns(self) -> list[float]:
        r = self.round
        if r is None or r.result is None:
            return [0.0] * self.n
        return [26.0 - s for s in r.result.scores]

    def __str__(self) -> str:
        r = self.round
        if r is None:
            return f"dealing: {len(self.dealt)} cards dealt, pass step {self.round_number}"
        hands = " | ".join(str(r.hand(s)) for s in range(self.n))
        return f"{r!r} hands: {hands} trick: {r.current_trick}"

    def view(self, player: int) -> View | None:
        return View.of(self.round, player) if self.round is not None else None


class ViewObserver:
    """The observation: what the seat may know now (R7), as :mod:`hearts.rl.encoding`."""

    def __init__(self, game: HeartsGame) -> None:
        self.encoder = game.encoder
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: HeartsState, player: int) -> None:
        view = state.view(player)
        if view is None:
            self.tensor.fill(0)
            return
        pending = state.pending(player)
        self.tensor[:] = self.encoder.encode(view, pending)

    def string_from(self, state: HeartsState, player: int) -> str:
        view = state.view(player)
        if view is None:
            return f"p{player} dealing"
        return (
            f"p{player} {view.phase.value} hand:{view.hand} trick:{view.trick} "
            f"played:{view.played} points:{list(view.points_taken)} broken:{int(view.hearts_broken)}"
        )


class HistoryObserver:
    """The information state: the seat's whole history (perfect recall)."""

    def __init__(self, game: HeartsGame) -> None:
        rules = game.rules
        n, tricks = rules.players, rules.hand_size
        self.n, self.tricks = n, tricks
        shapes = {
            "dealt": (52,),
            "pass_offset": (n,),
            "passed": (52,),
            "received": (52,),
            "trick_leaders": (tricks, n),
            "tricks": (tricks, n, 52),
        }
        size = sum(int(np.prod(s)) for s in shapes.values())
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        start = 0
        for name, shape in shapes.items():
            k = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + k].reshape(shape)
            start += k

    def set_from(self, state: HeartsState, player: int) -> None:
        self.tensor.fill(0)
        r = state.round
        if r is None:
            return
        d = self.dict
        for c in r.dealt[player]:
            d["dealt"][c] = 1
        d["pass_offset"][r.pass_offset] = 1
        passed = r.passed(player)
        pending = state.pending(player)
        for c in CardSet.from_mask((passed.mask if passed is not None else 0) | pending):
            d["passed"][c] = 1
        received = r.received(player)
        if received is not None:
            for c in received:
                d["received"][c] = 1
        n = self.n
        for t, trick in enumerate((*r.tricks, r.current_trick)):
            if t >= self.tricks or not trick.cards:
                break
            d["trick_leaders"][t, (trick.leader - player) % n] = 1
            for i, c in enumerate(trick.cards):
                d["tricks"][t, i, c] = 1

    def string_from(self, state: HeartsState, player: int) -> str:
        r = state.round
        if r is None:
            return f"p{player} dealing"
        pending = state.pending(player)
        passed = r.passed(player)
        parts = [
            f"p{player}",
            f"dealt:{r.dealt[player]}",
            f"pass:{r.pass_offset}",
            f"passed:{CardSet.from_mask((passed.mask if passed is not None else 0) | pending)}",
            f"received:{r.received(player) or ''}",
        ]
        parts += [
            f"t{t}:{trick.leader}:{' '.join(map(str, trick.cards))}" for t, trick in enumerate(r.tricks)
        ]
        if r.current_trick.cards:
            parts.append(f"now:{r.current_trick.leader}:{' '.join(map(str, r.current_trick.cards))}")
        if r.phase is Phase.MOON_CHOICE:
            parts.append("moon?")
        return " ".join(parts)


pyspiel.register_game(_GAME_TYPE, HeartsGame)

__all__ = ["HeartsGame", "HeartsState", "rules_from_params"]
