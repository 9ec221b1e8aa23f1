"""Seat an OpenSpiel bot at our table: a :class:`~hearts.view.View` becomes a ``pyspiel`` state.

:class:`OpenSpielBot` wraps any OpenSpiel bot, built by a factory ``(game, player, seed) ->
pyspiel.Bot``; :meth:`OpenSpielBot.ismcts` builds OpenSpiel's C++ ``ISMCTSBot`` with a random
rollout evaluator. ``pyspiel`` (pip ``open-spiel``) is imported only when a bot is built, so this
module imports without it.

How a decision is asked (nothing hidden is used: the adapter only ever gets a ``View``):

1. **A history consistent with the view** (:func:`reconstruct_state`). OpenSpiel's ``hearts`` is
   one round from its chance nodes: the pass direction (our ``Rules.pass_offset``: 0 hold,
   1 left, 2 across, 3 right), 52 deal actions (the k-th card to player ``k % 4``), the passes
   (players 0, 1, 2, 3 in turn, three single-card actions each) and the plays (card ids, the same
   ids as ours). This seat's dealt hand is exact (hand and played cards, minus received, plus
   passed); the other seats' current hands are sampled with
   :func:`~hearts.bots.search.sample_hands` (hand sizes, revealed voids, the holder of our passed
   cards), their dealt hands follow from their plays, and the passes we did not see are drawn
   from the receivers' hands — except that our receiver gets exactly our passed cards and our
   giver passed exactly what we received. A sample must also make every past play legal in
   OpenSpiel: a heart led before hearts were broken means the leader held only hearts (R3.4), a
   point card thrown on the first trick means the thrower held only points (R3.3), and so on.
   :func:`possible_cards` derives these facts from the view; a sample that breaks one is drawn
   again with a sampler that honours them (:func:`sample_constrained`), and every action of the
   history is checked against ``state.legal_actions()`` before it is applied (bounded retries).
2. **The OpenSpiel bot's step**: ``bot.step(state)`` for a play; for a pass it is stepped three
   times (OpenSpiel passes one card per action), applying its own choices in between.

**Seat rotation** (``rotate=True``, the default). The reconstructed state is rotated so that
the deciding seat is OpenSpiel's player 0 (our seat ``s`` is OpenSpiel's player ``(s - seat) %
4``). Hearts is symmetric under rotation, so nothing changes for the bot, but it sidesteps a
crash of OpenSpiel 2.0.2's ``ISMCTSBot`` in the pass phase (its ``ResampleFromInfostate``
replays passes the player cannot know yet; ``docs/bots.md`` has the analysis). With
``rotate=False`` OpenSpiel's player is our seat, and the adapter refuses (with a
:class:`~hearts.errors.HeartsError`) to ask a ``pyspiel.ISMCTSBot`` for a pass that would crash.

**Reproducibility.** The reconstruction is a function of the view and this bot's ``rng``, but
OpenSpiel 2.0.2's ``ISMCTSBot`` is not reproducible even with a fixed seed and the same state
(hash-map order breaks its ties), so its decisions are not either.

**Rules.** OpenSpiel's ``hearts`` plays four players and eight flags (:data:`FLAGS`, each set
from one of our options); the options in :data:`FIXED` have one value there, and the others
raise a :class:`~hearts.errors.HeartsError` (:func:`openspiel_parameters`). The options in
:data:`FREE` (``pass_cycle``, ``target``, ``ties``) do not reach OpenSpiel: a state is one
round, its pass direction set from the round number.

Example (with ``open-spiel`` installed); from spec strings (the arena, the command line) it is
``openspiel_ismcts:simulations=N``, and :func:`~hearts.bots.base.run_bots` seats it like any bot:

>>> from hearts import Game, Rules
>>> from hearts.view import View
>>> game = Game(Rules(), seed=1)
>>> bot = OpenSpielBot.ismcts(seed=1, simulations=50)
>>> bot.act(View.of(game, 2)) in game.legal_actions(2)  # its pass: three of seat 2's cards
True
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from types import ModuleType
from typing import Any, Final

from hearts.bots.base import Bot
from hearts.bots.search import sample_hands
from hearts.cards import CARDS, FULL_MASK, HEARTS_MASK, QS_MASK, SUIT_MASKS, Card, CardSet, cards_of
from hearts.errors import HeartsError
from hearts.mechanics import LegalConfig, legal_mask
from hearts.round import Phase
from hearts.rules import Rules
from hearts.view import View

OpenSpielBotFactory = Callable[[Any, int, int], Any]
"""``(game, player, seed) -> pyspiel.Bot``: builds the OpenSpiel bot that plays ``player``."""

PLAYERS: Final = 4
FLAGS: Final[dict[str, tuple[str, Any, Any]]] = {
    "pass_cards": ("pass_count", 3, 0),
    "no_pts_on_first_trick": ("points_on_first_trick", False, True),
    "can_lead_any_club": ("first_lead", "any_club", "lowest_club"),
    "jd_bonus": ("jack_of_diamonds", -10, 0),
    "avoid_all_tricks_bonus": ("no_tricks_bonus", -5, 0),
    "qs_breaks_hearts": ("queen_breaks_hearts", True, False),
    "must_break_hearts": ("must_break_hearts", True, False),
    "can_lead_hearts_instead_of_qs": ("lead_hearts_instead_of_queen", True, False),
}
"""OpenSpiel's ``hearts`` parameters (its eight flags, in its order) and the option of ours
each sets: ``flag: (option, its value with the flag on, with the flag off)``."""
FIXED: Final[dict[str, Any]] = {
    "players": PLAYERS, "removed_for_three": "two_of_diamonds", "queen_lead": "anytime", "spade_penalties": False,
    "moon": "add_to_others",
}
"""Our options that OpenSpiel's ``hearts`` plays one way only (it has no Black Maria: no card
out for three, R1.2, and no spade penalties, R4.5)."""
FREE: Final = ("pass_cycle", "target", "ties")
"""Our options that do not reach OpenSpiel: a state is one round, its direction set from the
round number. Every option of :meth:`Rules.options() <hearts.rules.Rules.options>` is in
exactly one of :data:`FLAGS`, :data:`FIXED` and :data:`FREE`."""
FINAL_POLICIES: Final = ("max_visit_count", "normalized_visit_count", "max_value")
DEFAULT_TRIES: Final = 50
"""Samples tried before a reconstruction is given up (each a full history)."""


class OpenSpielUnavailable(HeartsError, ImportError):
    """``pyspiel`` (pip ``open-spiel``) is not installed."""


def load_pyspiel() -> ModuleType:
    """The ``pyspiel`` module, or :class:`OpenSpielUnavailable` with how to get it."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError as e:
        raise OpenSpielUnavailable(
            f"the OpenSpiel bots need OpenSpiel's Python package: pip install open-spiel ({e})"
        ) from e


# --- rules -----------------------------------------------------------------------------------


def openspiel_parameters(rules: Rules) -> dict[str, bool]:
    """OpenSpiel's ``hearts`` parameters for ``rules``; a :class:`HeartsError` naming every
    option OpenSpiel cannot play (:data:`FIXED`, and the values of :data:`FLAGS`: 4 players, 3
    or 0 cards passed, the Q♠ led any time, the moon added to the others, a J♦ bonus of 0 or
    -10 and a no-trick bonus of 0 or -5).

    >>> openspiel_parameters(Rules())["must_break_hearts"]
    True
    >>> openspiel_parameters(Rules(players=5))
    Traceback (most recent call last):
    ...
    hearts.errors.HeartsError: OpenSpiel's hearts cannot play these rules: players=5 (OpenSpiel: 4)
    """
    problems = unplayable(rules)
    if problems is not None:
        raise HeartsError(f"OpenSpiel's hearts cannot play these rules: {problems}")
    return {flag: getattr(rules, name) == on for flag, (name, on, _) in FLAGS.items()}


def unplayable(rules: Rules) -> str | None:
    """What of ``rules`` OpenSpiel's ``hearts`` cannot play (``None``: it plays them), each
    option with the values OpenSpiel has.

    >>> unplayable(Rules()) is None
    True
    >>> unplayable(Rules(players=3, moon="shooter_chooses"))
    "players=3 (OpenSpiel: 4); moon='shooter_chooses' (OpenSpiel: 'add_to_others')"
    >>> unplayable(Rules(spade_penalties=True))  # Black Maria's spades (R4.5)
    'spade_penalties=True (OpenSpiel: False)'
    """
    allowed: dict[str, tuple[Any, ...]] = {name: (value,) for name, value in FIXED.items()}
    allowed |= {name: (off, on) for name, on, off in FLAGS.values()}
    problems = [
        f"{spec.name}={value!r} (OpenSpiel: {' or '.join(map(repr, allowed[spec.name]))})"
        for spec in Rules.options()
        if spec.name in allowed and (value := getattr(rules, spec.name)) not in allowed[spec.name]
    ]
    return "; ".join(problems) if problems else None


_GAMES: dict[tuple[bool, ...], Any] = {}


def load_game(rules: Rules) -> Any:
    """The ``pyspiel`` hearts game for ``rules`` (cached)."""
    params = openspiel_parameters(rules)
    key = tuple(params[f] for f in FLAGS)
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_pyspiel().load_game("hearts", params)
    return game


def openspiel_player(seat: int, me: int, rotate: bool = True) -> int:
    """OpenSpiel's player for our ``seat`` when ``me`` decides (``me`` is player 0 if ``rotate``)."""
    return (seat - me) % PLAYERS if rotate else seat


# --- what the view implies about the hidden hands -----------------------------------------------


def _plays(view: View) -> list[tuple[int, int, int, bool, bool]]:
    """Every play so far as ``(seat, card, led suit or -1, first trick, hearts broken before)``."""
    out = []
    breakers = HEARTS_MASK | (QS_MASK if view.rules.queen_breaks_hearts else 0)
    seen = 0
    for i, trick in enumerate((*view.tricks, view.trick)):
        led = -1
        for seat, card in trick.plays:
            out.append((seat, int(card), led, i == 0, bool(seen & breakers)))
            if led < 0:
                led = card & 3
        for card in trick.cards:
            seen |= 1 << card
    return out


def _known_held(view: View) -> list[int]:
    """Cards this seat knows another seat holds now: its passed cards, unplayed, at the receiver."""
    held = [0] * view.players
    known = view.known_elsewhere.mask
    if known and view.pass_to is not None:
        held[view.pass_to] = known
    return held


def possible_cards(view: View) -> list[int]:
    """For each seat, the mask of the cards it may still hold, by what ``view`` shows: besides
    the suits it has failed to follow (R3.2), a play that was legal only because the player held
    nothing else — a point card on the first trick (R3.3's exception), a heart led before hearts
    were broken (R3.4), a heart led instead of the Q♠ (R3.7) — rules out every card that would
    have made it illegal. This seat's own entry is its hand.

    Each play was legal for the hand held then: the played card, the seat's later plays, the
    cards it is known to hold, and unknown cards. Legality (:func:`~hearts.mechanics.legal_mask`) only
    ever shrinks as a hand grows, by one card at a time, so testing each unseen card alone with
    the known part is exact.
    """
    n, me = view.players, view.seat
    cfg = LegalConfig(view.rules)
    allowed = [view.rules.deck_mask] * n  # narrowed to the unseen and known-held cards at the end
    for s in range(n):
        for suit in view.voids[s]:
            allowed[s] &= ~SUIT_MASKS[suit]
    allowed[me] = view.hand.mask
    known = _known_held(view)
    unseen = view.unseen.mask
    later = [0] * n  # cards each seat plays after the play being looked at
    for seat, card, led, first, broken in reversed(_plays(view)):
        if seat != me and not (led >= 0 and led == card & 3):  # following suit tells nothing
            base = (1 << card) | later[seat] | known[seat]
            if legal_mask(base, led, first, broken, cfg) >> card & 1:
                for x in cards_of(unseen & allowed[seat]):
                    if not legal_mask(base | 1 << x, led, first, broken, cfg) >> card & 1:
                        allowed[seat] &= ~(1 << x)
        later[seat] |= 1 << card
    return [allowed[s] & (unseen | known[s]) if s != me else allowed[s] for s in range(n)]


def _fits(view: View, hands: list[int], allowed: list[int], known: list[int]) -> bool:
    return all(
        (hands[s] & ~known[s] & ~allowed[s]) == 0 and hands[s].bit_count() == view.hand_sizes[s]
        for s in range(view.players)
        if s != view.seat
    )


def sample_constrained(view: View, allowed: list[int], rng: random.Random) -> list[int] | None:
    """Every seat's current hand (masks), each hand inside ``allowed`` (see
    :func:`possible_cards`), of the sizes the view shows, our passed cards at their receiver;
    ``None`` if no such deal exists. Cards are placed in random order at random seats, moving
    earlier cards along (an augmenting path) when a card's seats are full; the deals are varied
    but not exactly uniform."""
    n, me = view.players, view.seat
    known = _known_held(view)
    hands = known[:]
    hands[me] = view.hand.mask
    left = [view.hand_sizes[s] - known[s].bit_count() if s != me else 0 for s in range(n)]
    free = [0] * n  # the sampled (movable) cards at each seat
    pool = cards_of(view.unseen.mask)
    rng.shuffle(pool)
    others = [s for s in range(n) if s != me]
    for card in pool:
        bit = 1 << card
        seats = [s for s in others if allowed[s] & bit]
        open_seats = [s for s in seats if left[s] > 0]
        if open_seats:
            x = rng.random() * sum(left[s] for s in open_seats)
            pick = open_seats[-1]
            for s in open_seats:
                x -= left[s]
                if x < 0:
                    pick = s
                    break
            free[pick] |= bit
            left[pick] -= 1
            continue
        # An augmenting path: card -> full seat t0, a card of t0 -> seat t1, ... -> a seat with room.
        parent: dict[int, tuple[int, int]] = {}  # seat -> (previous seat or -1, card moved in)
        queue = []
        for s in seats:
            parent[s] = (-1, card)
            queue.append(s)
        end = -1
        while queue and end < 0:
            t = queue.pop(0)
            for d in cards_of(free[t]):
                for u in rng.sample(others, len(others)):
                    if u not in parent and allowed[u] >> d & 1:
                        parent[u] = (t, d)
                        if left[u] > 0:
                            end = u
                            break
                        queue.append(u)
                if end >= 0:
                    break
        if end < 0:
            return None
        left[end] -= 1
        u = end
        while u >= 0:
            prev, moved = parent[u]
            free[u] |= 1 << moved
            if prev >= 0:
                free[prev] &= ~(1 << moved)
            u = prev
    if any(left[s] for s in others):
        return None
    return [hands[s] | free[s] for s in range(n)]


# --- the reconstruction -----------------------------------------------------------------------


def _history(view: View, rng: random.Random, allowed: list[int] | None, rotate: bool) -> list[int] | None:
    """One OpenSpiel action history consistent with ``view`` (``None``: no consistent sample)."""
    n, me = view.players, view.seat
    shift = me if rotate else 0
    d = view.rules.pass_offset(view.round_number)
    passes = [0] * n
    if view.phase is Phase.PASSING:
        dealt = sample_hands(view, rng)
        plays: list[int] = []
        for p in range(openspiel_player(me, me, rotate)):  # unrotated: OpenSpiel's players before us pass first
            seat = (p + shift) % n
            passes[seat] = sum(1 << c for c in rng.sample(cards_of(dealt[seat]), view.rules.pass_count))
    else:
        assert allowed is not None
        known = _known_held(view)
        hands = None
        for _ in range(3):  # the view's own sampler first; it knows only the suit voids
            sample = sample_hands(view, rng)
            if _fits(view, sample, allowed, known):
                hands = sample
                break
        if hands is None:
            hands = sample_constrained(view, allowed, rng)
            if hands is None:
                return None
        by_seat = [0] * n
        plays = []
        for seat, card, *_ in _plays(view):
            by_seat[seat] |= 1 << card
            plays.append(card)
        after_pass = [hands[s] | by_seat[s] for s in range(n)]
        if d:
            giver = (me - d) % n
            assert view.passed is not None and view.received is not None
            passes[me] = view.passed.mask
            passes[giver] = view.received.mask
            for s in range(n):
                if s not in (me, giver):  # a pass we did not see: any cards its receiver holds
                    cards = rng.sample(cards_of(after_pass[(s + d) % n]), view.rules.pass_count)
                    passes[s] = sum(1 << c for c in cards)
        dealt = [(after_pass[s] & ~passes[(s - d) % n]) | passes[s] for s in range(n)]
    by_player = [cards_of(dealt[(p + shift) % n]) for p in range(n)]
    union = 0
    for hand in dealt:
        union |= hand
    if union != FULL_MASK or any(len(h) != 13 for h in by_player):  # 4 x 13 cards: a partition
        return None
    history = [d]
    history += [by_player[k % n][k // n] for k in range(52)]
    for p in range(n):
        history += cards_of(passes[(p + shift) % n])
    return history + plays


def reconstruct_state(
    view: View, rng: random.Random, *, rotate: bool = True, tries: int = DEFAULT_TRIES
) -> tuple[Any, int]:
    """A ``pyspiel`` hearts state consistent with ``view`` (see the module docstring) and the
    OpenSpiel player deciding for ``view.seat``. Only for a decision of this seat: its pass (none
    chosen yet) or its play. Each action is checked against ``state.legal_actions()`` before it
    is applied; a sample that fails is drawn again, up to ``tries`` times."""
    if view.must_pass:
        if view.pass_to is None:
            raise HeartsError(f"seat {view.seat} has nothing to pass in a hold round")
    elif view.phase is not Phase.PLAYING or view.to_move != view.seat:
        raise HeartsError(f"it is not seat {view.seat}'s turn to pass or play ({view.phase.value})")
    game = load_game(view.rules)
    me = view.seat
    player = openspiel_player(me, me, rotate)
    allowed = possible_cards(view) if view.phase is Phase.PLAYING else None
    for _ in range(tries):
        history = _history(view, rng, allowed, rotate)
        if history is None:
            continue
        state = game.new_initial_state()
        for action in history:
            if action not in state.legal_actions():
                break
            state.apply_action(action)
        else:
            _check(view, state, player)
            return state, player
    raise HeartsError(
        f"no history consistent with seat {me}'s view was found in {tries} samples "
        f"(round {view.round_number}, {len(view.tricks)} tricks played)"
    )


def _check(view: View, state: Any, player: int) -> None:
    """The reconstruction agrees with the view on the player to move and its actions."""
    want = cards_of((view.hand if view.must_pass else view.legal).mask)
    if state.current_player() != player or sorted(state.legal_actions()) != want:
        raise HeartsError(
            f"internal error: the OpenSpiel state for seat {view.seat} has player "
            f"{state.current_player()} to move with {state.legal_actions()}, expected {player} with {want}"
        )


# --- the bot ----------------------------------------------------------------------------------


class OpenSpielBot(Bot):
    """An OpenSpiel bot at our table (see the module docstring).

    ``factory(game, player, seed)`` builds the ``pyspiel.Bot`` once per rules (``seed`` is drawn
    from this bot's seed); it is asked for each decision with ``step`` on a freshly reconstructed
    state, so it should not depend on ``inform_action`` calls (ISMCTS and MCTS bots do not).
    """

    name = "openspiel"

    def __init__(
        self,
        factory: OpenSpielBotFactory,
        seed: int | None = None,
        *,
        rotate: bool = True,
        tries: int = DEFAULT_TRIES,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        self.factory = factory
        self.rotate = rotate
        self.tries = tries
        if name is not None:
            self.name = name
        self._bots: dict[tuple[Rules, int], Any] = {}

    @classmethod
    def supports(cls, rules: Rules) -> str | None:
        """What of ``rules`` OpenSpiel's ``hearts`` cannot play (:func:`unplayable`): 4 players,
        the moon added to the others (R4.4), the Q♠ led any time, …

        >>> OpenSpielBot.supports(Rules(players=5))
        'players=5 (OpenSpiel: 4)'
        """
        return unplayable(rules)

    @classmethod
    def ismcts(
        cls,
        seed: int | None = None,
        simulations: int = 1000,
        uct_c: float = 2.0,
        rollouts: int = 1,
        time: float | None = None,
        final_policy: str = "max_visit_count",
        max_world_samples: int = -1,
    ) -> OpenSpielBot:
        """OpenSpiel's C++ ISMCTS: ``pyspiel.ISMCTSBot(seed, RandomRolloutEvaluator(rollouts,
        seed), uct_c, simulations, max_world_samples, final_policy, use_observation_string=False,
        allow_inconsistent_action_sets=False, max_wall_clock_time=time or -1)``.

        ``simulations`` per decision (each pass card is a decision in OpenSpiel, so a pass costs
        three searches), or ``time`` seconds per search instead. ``final_policy``:
        ``max_visit_count`` (the most visited action; OpenSpiel's default samples from
        ``normalized_visit_count``) or ``max_value``. ``max_world_samples=-1`` resamples the
        hidden cards (OpenSpiel's ``ResampleFromInfostate``) at every simulation.
        """
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise HeartsError(f"ismcts: simulations must be a whole number >= 1, not {simulations!r}")
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or rollouts < 1:
            raise HeartsError(f"ismcts: rollouts must be a whole number >= 1, not {rollouts!r}")
        if not isinstance(uct_c, (int, float)) or uct_c < 0:
            raise HeartsError(f"ismcts: uct_c must be a number >= 0, not {uct_c!r}")
        if time is not None and (not isinstance(time, (int, float)) or time <= 0):
            raise HeartsError(f"ismcts: time must be a number of seconds > 0, not {time!r}")
        if final_policy not in FINAL_POLICIES:
            raise HeartsError(
                f"ismcts: final_policy is {final_policy!r}; allowed: {', '.join(FINAL_POLICIES)}"
            )
        if not isinstance(max_world_samples, int) or not (max_world_samples == -1 or max_world_samples >= 1):
            raise HeartsError(f"ismcts: max_world_samples must be -1 or >= 1, not {max_world_samples!r}")
        load_pyspiel()  # fail now (e.g. when the arena checks its specs), not at the first decision

        def factory(game: Any, player: int, bot_seed: int) -> Any:
            pyspiel = load_pyspiel()
            policy = getattr(pyspiel.ISMCTSFinalPolicyType, final_policy.upper())
            evaluator = pyspiel.RandomRolloutEvaluator(rollouts, bot_seed ^ 0x5EED)
            return pyspiel.ISMCTSBot(
                bot_seed, evaluator, float(uct_c), simulations, max_world_samples, policy,
                False, False, float(time) if time is not None else -1.0,
            )

        return cls(factory, seed, rotate=True, name="openspiel_ismcts")

    def _bot(self, view: View) -> Any:
        player = openspiel_player(view.seat, view.seat, self.rotate)
        key = (view.rules, player)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = self.factory(load_game(view.rules), player, self.rng.getrandbits(31))
        return bot

    def _state(self, view: View) -> tuple[Any, Any]:
        bot = self._bot(view)
        if view.must_pass and not self.rotate and type(bot).__name__ == "ISMCTSBot":
            player = view.seat
            giver = (player - view.rules.pass_offset(view.round_number)) % PLAYERS
            if giver < player:
                raise HeartsError(
                    f"OpenSpiel 2.0.2's ISMCTSBot crashes the process when player {player} passes after "
                    f"its giver (player {giver}) has passed (hearts' ResampleFromInfostate replays the "
                    "giver's real passes); use rotate=True"
                )
        state, _ = reconstruct_state(view, self.rng, rotate=self.rotate, tries=self.tries)
        return bot, state

    def choose_play(self, view: View) -> Card:
        bot, state = self._state(view)
        action = bot.step(state)
        if not (isinstance(action, int) and 0 <= action < 52 and view.legal.mask >> action & 1):
            raise HeartsError(f"{self.name}: OpenSpiel bot chose {action!r}, not one of {view.legal}")
        return CARDS[action]

    def choose_pass(self, view: View) -> CardSet:
        bot, state = self._state(view)
        chosen = 0
        for _ in range(view.rules.pass_count):
            action = bot.step(state)
            if action not in state.legal_actions() or not view.hand.mask >> action & 1:
                raise HeartsError(f"{self.name}: OpenSpiel bot passes {action!r}, not a card of {view.hand}")
            state.apply_action(action)
            chosen |= 1 << action
        return CardSet.from_mask(chosen)


def make_ismcts(seed: int | None = None, **options: Any) -> Bot:
    """A registry factory: ``make_ismcts(seed=..., simulations=..., uct_c=..., ...)``."""
    return OpenSpielBot.ismcts(seed=seed, **options)


__all__ = [
    "OpenSpielBot",
    "OpenSpielBotFactory",
    "OpenSpielUnavailable",
    "load_game",
    "load_pyspiel",
    "make_ismcts",
    "openspiel_parameters",
    "openspiel_player",
    "possible_cards",
    "reconstruct_state",
    "sample_constrained",
    "unplayable",
]
