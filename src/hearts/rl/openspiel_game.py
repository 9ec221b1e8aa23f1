"""Our engine as an OpenSpiel Python game, ``python_hearts``, with every option of docs/rules.md as a
game parameter, so that OpenSpiel's algorithms and bots run on every variant, 3 to 6 players:
those that search the game tree, and the determinizing ones (the Python ISMCTS,
``open_spiel.python.algorithms.ismcts``), which draw the hidden cards with
:meth:`HeartsState.resample_from_infostate`. (OpenSpiel's C++ ``ISMCTSBot`` cannot call back into
a Python game's resampling; :mod:`hearts.bots.openspiel` seats it at our tables on OpenSpiel's own
``hearts`` instead.)

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
included; ``43 - score`` with Black Maria's spades, R4.5, whose rounds hold 43 points). Parameters (:data:`PARAMETERS`): every rule option of :class:`~hearts.rules.Rules`
with its default (:meth:`Rules.options() <hearts.rules.Rules.options>`), plus ``round_number``.
``pass_cycle`` is text, its steps separated by ``/`` (``"left/right/hold"``, as everywhere
else: ``--option pass_cycle=left/hold``, ``Rules(pass_cycle="left/hold")``; commas are read too
in a parameter dict, but not in a game string, ``python_hearts(players=3,pass_cycle=left/hold)``,
whose parameters commas separate) or ``"default"``; the game keeps it in the one written form
(:func:`hearts.rules.option_text`), so that ``pyspiel.load_game(str(game))`` gives the same game:

>>> again = pyspiel.load_game(str(pyspiel.load_game("python_hearts", {"pass_cycle": "left,hold"})))
>>> again.get_parameters()["pass_cycle"], again.rules.pass_cycle
('left/hold', ('left', 'hold'))

Observations: the observation tensor is :mod:`hearts.rl.encoding`'s
encoding (what the seat may know, R7); the information state (string and tensor) is the seat's
whole history: its dealt hand, pass direction, passed and received cards, and every trick in
order with its leader.

Determinization: ``state.resample_from_infostate(player, sampler)`` is a state that ``player``
cannot tell from this one (the same information state), the hidden cards drawn afresh: the
other hands of the sizes shown, honouring every void and every fact a past play reveals
(:func:`hearts.bots.openspiel.possible_cards`), with this seat's passed cards at its receiver,
and the passes it did not see drawn from their receivers' hands. So OpenSpiel's Python ISMCTS
plays every variant:

>>> from open_spiel.python.algorithms import ismcts, mcts
>>> import numpy as np
>>> game = pyspiel.load_game("python_hearts", {"players": 3, "pass_cycle": "right/hold"})
>>> rng = np.random.RandomState(0)
>>> bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=3,
...                        random_state=rng)
>>> state = game.new_initial_state()
>>> while not state.is_terminal():
...     if state.is_chance_node():
...         state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
...     else:
...         state.apply_action(bot.step(state))
>>> sum(26 - r for r in state.returns()) in (26.0, 52.0)  # the 26 points, or a moon's 52 (R4)
True
"""

from __future__ import annotations

import random
from typing import Any, Final

from hearts.rl import MissingExtra

try:
    import numpy as np
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None
try:
    import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "openspiel", __name__) from None

from hearts.bots.openspiel import FLAGS, possible_cards, sample_constrained
from hearts.bots.search import sample_hands
from hearts.cards import CardSet, cards_of
from hearts.errors import HeartsError, RulesError
from hearts.mechanics import MOON_CHOICES
from hearts.rl.driver import Driver
from hearts.rl.encoding import ObservationEncoder
from hearts.round import Phase, Round
from hearts.rules import DEFAULT_PASS_CYCLES, OPTION_NAMES, Rules, option_text
from hearts.view import View

OPENSPIEL_NAMES: Final = {flag: option for flag, option in FLAGS.items() if flag not in OPTION_NAMES}
"""OpenSpiel's ``hearts`` parameters under their own names, so that ``python_hearts`` is a
drop-in for it (``must_break_hearts`` is a name of both): each sets one option of ours, as
:data:`hearts.bots.openspiel.FLAGS` says (``flag: (option, its value with the flag on, off)``)."""
OPENSPIEL_DEFAULTS: Final = {flag: getattr(Rules(), name) == on for flag, (name, on, _) in OPENSPIEL_NAMES.items()}
"""Their defaults: OpenSpiel's, which are our options' defaults (``pass_cards=True``, …)."""
PARAMETERS: Final[dict[str, Any]] = {
    **{spec.name: option_text(spec.default) if spec.kind == "pass_cycle" else spec.default
       for spec in Rules.options()},
    "round_number": -1,
    **OPENSPIEL_DEFAULTS,
}
"""The game's parameters and their defaults: every rule option, ``round_number`` (-1: the pass
direction is a chance outcome), and OpenSpiel's own names (:data:`OPENSPIEL_NAMES`)."""
RESAMPLE_TRIES: Final = 50
"""Deals drawn by :meth:`HeartsState.resample_from_infostate` before it gives up."""

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
    """Our :class:`Rules` from the game's parameters (``pass_cycle`` as text, read as
    :class:`Rules` reads it). An OpenSpiel name (:data:`OPENSPIEL_NAMES`) away from its default
    sets its option; one that contradicts an option of ours given too (away from its default)
    is a :class:`~hearts.errors.RulesError` naming both.

    >>> rules_from_params({"players": 3, "pass_cycle": "left/2/", "round_number": 0}).pass_cycle
    ('left', 2)
    >>> rules = rules_from_params({"jd_bonus": True, "pass_cards": False})
    >>> rules.jack_of_diamonds, rules.pass_count
    (-10, 0)
    >>> rules_from_params({"jd_bonus": True, "jack_of_diamonds": 7})
    Traceback (most recent call last):
    ...
    hearts.errors.RulesError: R4.2: OpenSpiel's jd_bonus=True is jack_of_diamonds=-10, but jack_of_diamonds=7 is given
    """
    options = {k: v for k, v in params.items() if k in OPTION_NAMES}
    for flag, (name, on, off) in OPENSPIEL_NAMES.items():
        value = params.get(flag, OPENSPIEL_DEFAULTS[flag])
        spec = Rules.option(name)
        if not isinstance(value, bool):
            raise RulesError(f"{spec.rule}: OpenSpiel's parameter {flag!r} is {value!r:.40}; allowed: True, False")
        if value == OPENSPIEL_DEFAULTS[flag]:
            continue
        implied, given = on if value else off, options.get(name, spec.default)
        if given not in (spec.default, implied):
            raise RulesError(f"{spec.rule}: OpenSpiel's {flag}={value} is {name}={option_text(implied)}, "
                             f"but {name}={option_text(given)} is given")
        options[name] = implied
    return Rules.from_dict(options)


def game_parameters(rules: Rules, round_number: int) -> dict[str, Any]:
    """The parameters a game of ``rules`` keeps (``str(game)``, ``get_parameters()``): every
    option of ours, and each OpenSpiel name away from its default only where the rules are
    exactly what it means, so that they load the same rules again."""
    out: dict[str, Any] = {name: getattr(rules, name) for name in OPTION_NAMES}
    out["pass_cycle"] = option_text(rules.pass_cycle)
    out["round_number"] = round_number
    for flag, (name, on, off) in OPENSPIEL_NAMES.items():
        default = OPENSPIEL_DEFAULTS[flag]
        out[flag] = (not default) if getattr(rules, name) == (off if default else on) else default
    return out


class HeartsGame(pyspiel.Game):  # type: ignore[misc]
    """``python_hearts``: one round of Hearts with our engine."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**PARAMETERS, **(params or {})}
        self.rules = rules_from_params(given)
        self.round_number = int(given["round_number"])
        full = game_parameters(self.rules, self.round_number)  # what str(game) keeps
        rules = self.rules
        steps = rules.pass_cycle if rules.pass_cycle is not None else DEFAULT_PASS_CYCLES[rules.players]
        self.cycle_length = len(steps)
        worth = rules.round_points  # 26, or 43 with Black Maria's spades (R4.5)
        high = worth + max(rules.jack_of_diamonds, 0) + max(rules.no_tricks_bonus, 0)
        low = -worth + min(rules.jack_of_diamonds, 0) + min(rules.no_tricks_bonus, 0)
        n = rules.players
        info = pyspiel.GameInfo(
            num_distinct_actions=52,
            max_chance_outcomes=52,
            num_players=n,
            min_utility=float(worth - high),
            max_utility=float(worth - low),
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
        self.chance_direction = game.rules.pass_count > 0 and game.round_number < 0
        """True when the pass direction is a chance outcome (the first action)."""
        self.round_number: int | None = None if self.chance_direction else max(game.round_number, 0)
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
        return [float(self.rules.round_points - s) for s in r.result.scores]

    def __str__(self) -> str:
        r = self.round
        if r is None:
            return f"dealing: {len(self.dealt)} cards dealt, pass step {self.round_number}"
        hands = " | ".join(str(r.hand(s)) for s in range(self.n))
        return f"{r!r} hands: {hands} trick: {r.current_trick}"

    def view(self, player: int) -> View | None:
        """What ``player`` may know (R7); ``None`` while chance deals."""
        return View.of(self.round, player) if self.round is not None else None

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> HeartsState:
        """A state with the same information state for ``player``, the cards it cannot see
        drawn afresh (see the module docstring); ``probability_sampler()`` (a float in [0, 1))
        seeds the draw. Each drawn history is replayed through the engine, which refuses a past
        play the deal makes illegal; a :class:`~hearts.errors.HeartsError` if none of
        :data:`RESAMPLE_TRIES` deals fits."""
        rng = random.Random(int(probability_sampler() * 2**53))
        want = self.information_state_string(player)
        game = self.get_game()
        for _ in range(RESAMPLE_TRIES):
            history = self._history_for(player, rng)
            if history is None:
                continue
            state = game.new_initial_state()
            try:
                for action in history:
                    state.apply_action(action)
            except HeartsError:
                continue
            if state.information_state_string(player) == want:
                return state  # type: ignore[no-any-return]
        raise HeartsError(f"no deal consistent with player {player}'s information was found in "
                          f"{RESAMPLE_TRIES} draws: {want}")

    def _history_for(self, player: int, rng: random.Random) -> list[int] | None:
        """An action history ``player`` cannot tell from this state's (``None``: the draw failed)."""
        history = [self.round_number] if self.chance_direction and self.round_number is not None else []
        r = self.round
        if r is None:  # dealing: nobody has seen a card yet
            return history + rng.sample(cards_of(self.rules.deck_mask), len(self.dealt))
        drawn = self._draw_passing(player, rng) if r.phase is Phase.PASSING else self._draw_played(player, rng)
        if drawn is None:
            return None
        dealt, chosen = drawn
        hands = [cards_of(h) for h in dealt]
        n = self.n
        history += [hands[k % n][k // n] for k in range(self.rules.deck_size)]
        for s in range(n):
            history += cards_of(chosen[s])
        return history + [int(card) for trick in (*r.tricks, r.current_trick) for card in trick.cards]

    def _draw_passing(self, player: int, rng: random.Random) -> tuple[list[int], list[int]]:
        """While passing: the dealt hands (``player``'s own, the others shuffled) and the cards
        each seat has chosen so far (how many is public, which is not)."""
        r, n, size = self.round, self.n, self.rules.hand_size
        assert r is not None and self.driver is not None
        dealt = [0] * n
        dealt[player] = r.dealt[player].mask
        others = [c for c in cards_of(self.rules.deck_mask) if not dealt[player] >> c & 1]
        rng.shuffle(others)
        for i, s in enumerate(s for s in range(n) if s != player):
            dealt[s] = sum(1 << c for c in others[i * size : (i + 1) * size])
        chosen = []
        for s in range(n):
            passed = r.passed(s)
            mine = self.driver.pending[s] | (passed.mask if passed is not None else 0)
            if s != player:
                mine = sum(1 << c for c in rng.sample(cards_of(dealt[s]), mine.bit_count()))
            chosen.append(mine)
        return dealt, chosen

    def _draw_played(self, player: int, rng: random.Random) -> tuple[list[int], list[int]] | None:
        """After the pass: the dealt hands and the passes, the hidden cards drawn consistently
        with ``player``'s view (``None``: no deal found this time)."""
        r, n = self.round, self.n
        assert r is not None
        view = View.of(r, player)
        allowed = possible_cards(view)
        leader = (*r.tricks, r.current_trick)[0].leader
        lowest = 1 << self.rules.lowest_club
        if not view.played.mask & lowest:  # R3.1: the first leader (public) holds it still
            allowed = [a if s == leader else a & ~lowest for s, a in enumerate(allowed)]
        hands = sample_hands(view, rng)  # it knows the voids only
        if any(hands[s] & ~allowed[s] for s in range(n) if s != player):
            constrained = sample_constrained(view, allowed, rng)
            if constrained is None:
                return None
            hands = constrained
        after = hands[:]  # each seat's hand after the pass: now, and what it has played
        for trick in (*r.tricks, r.current_trick):
            for s, card in trick.plays:
                after[s] |= 1 << card
        d = r.pass_offset
        chosen = [0] * n
        if d:
            giver = (player - d) % n
            chosen[player] = view.passed.mask if view.passed is not None else 0
            chosen[giver] = view.received.mask if view.received is not None else 0
            for s in range(n):
                if s not in (player, giver):  # a pass it did not see: any cards its receiver holds
                    cards = rng.sample(cards_of(after[(s + d) % n]), self.rules.pass_count)
                    chosen[s] = sum(1 << c for c in cards)
        return [(after[s] & ~chosen[(s - d) % n]) | chosen[s] for s in range(n)], chosen


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
