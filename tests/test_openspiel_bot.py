"""The OpenSpiel adapter (``hearts.bots.openspiel``): the state it rebuilds from a seat's view
agrees with the view (R7), uses nothing hidden, and OpenSpiel's ISMCTS plays legal rounds."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from helpers import ROUND_OF_DIRECTION

from hearts import CardSet, Game, Round, Rules
from hearts.bots import Bot, RandomBot, make_bot, run_bots
from hearts.bots.openspiel import (
    FIXED,
    FLAGS,
    FREE,
    OpenSpielBot,
    OpenSpielUnavailable,
    load_game,
    openspiel_parameters,
    openspiel_player,
    possible_cards,
    reconstruct_state,
    sample_constrained,
)
from hearts.bots.search import sample_hands
from hearts.cards import HEARTS_MASK, JACK_OF_DIAMONDS, POINTS_MASK, QS_MASK, SUIT_MASKS, cards_of
from hearts.errors import HeartsError
from hearts.round import Phase
from hearts.view import View

pyspiel = pytest.importorskip("pyspiel")

# Stacked hands (as in test_openspiel_differential.py) that force the R3.3/R3.4/R3.7 corners.
ALL_POINTS_HAND = (43, *[r * 4 + 2 for r in range(1, 13)])  # Q♠ + 12 hearts: void in clubs
HEARTS_HAND = (48, *[r * 4 + 2 for r in range(1, 13)])  # A♣ + 12 hearts: wins trick 1, leads hearts
POINTS_HAND = (48, 43, *[r * 4 + 2 for r in range(2, 13)])  # A♣, Q♠ + 11 hearts: R3.7


def stacked_round(stack: tuple[int, ...], seat: int, rng: random.Random, rules: Rules | None = None) -> Round:
    """A hold round (round number 3) with ``stack`` dealt to ``seat``."""
    rest = [c for c in range(52) if c not in stack]
    rng.shuffle(rest)
    hands = [list(stack) if s == seat else [rest.pop() for _ in range(13)] for s in range(4)]
    return Round(rules or Rules(), hands, round_number=3)


def cautious(r: Round, rng: random.Random) -> int:
    """A legal card, avoiding points while it can (keeps hearts unbroken: the corners need it)."""
    legal = cards_of(r.legal_plays().mask)
    safe = [c for c in legal if not POINTS_MASK >> c & 1]
    return rng.choice(safe or legal)


def check_reconstruction(r: Round, seat: int, rng: random.Random) -> Any:
    """Rebuild the state for ``seat`` (to pass or play) and check it against the true round."""
    view = View.of(r, seat)
    state, player = reconstruct_state(view, rng)
    assert player == openspiel_player(seat, seat) == 0
    assert state.current_player() == player
    struct = state.to_struct()
    if view.must_pass:
        assert state.legal_actions() == cards_of(view.hand.mask)
    else:
        assert state.legal_actions() == cards_of(view.legal.mask)
        if view.passed is not None:
            assert CardSet(struct.passed_cards[player]) == view.passed
            assert CardSet(struct.received_cards[player]) == view.received
    assert CardSet(struct.hands[player]) == view.hand
    for s in range(4):  # hand sizes and points, rotated
        p = openspiel_player(s, seat)
        assert len(struct.hands[p]) == view.hand_sizes[s]
        jack = view.rules.jack_of_diamonds if JACK_OF_DIAMONDS in view.won(s) else 0  # R4.2, in OpenSpiel's points
        assert struct.points[p] == view.points_taken[s] + jack
    if not view.must_pass:
        allowed = possible_cards(view)
        for s in range(4):  # what the view implies holds for the true hands
            assert r.hand(s).mask & ~allowed[s] == 0, (s, r.hand(s), CardSet.from_mask(allowed[s]))
    return state


def test_parameters_map_our_options() -> None:
    """R6: our standard rules are OpenSpiel's defaults; each flag follows its option."""
    game = load_game(Rules())
    defaults = {k: v for k, v in game.get_parameters().items() if k != "name"}
    assert openspiel_parameters(Rules()) == defaults
    assert openspiel_parameters(Rules.preset("omnibus"))["jd_bonus"] is True
    assert openspiel_parameters(Rules(pass_count=0))["pass_cards"] is False
    assert openspiel_parameters(Rules(no_tricks_bonus=-5))["avoid_all_tricks_bonus"] is True
    assert openspiel_parameters(Rules(lead_hearts_instead_of_queen=True))["can_lead_hearts_instead_of_qs"]
    # Options that do not touch a single round are free (target, ties, pass_cycle).
    openspiel_parameters(Rules(target=50, ties="share", pass_cycle=("right", "hold")))


def test_every_option_is_mapped_once() -> None:
    """R6: each option of ``Rules.options()`` is either set from one of OpenSpiel's flags,
    fixed at OpenSpiel's one value, or free (it does not reach a one-round state): exactly one,
    and the defaults of the flags' options are values OpenSpiel plays."""
    flagged = [option for option, _, _ in FLAGS.values()]
    groups = [set(flagged), set(FIXED), set(FREE)]
    assert len(flagged) == len(set(flagged)) == 8
    for spec in Rules.options():
        assert sum(spec.name in g for g in groups) == 1, spec.name
        if spec.name in FIXED:
            assert FIXED[spec.name] == spec.default
    assert {spec.name for spec in Rules.options()} == set().union(*groups)
    for option, on, off in FLAGS.values():
        assert Rules.option(option).default in (on, off)


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        (Rules(players=5), "players=5"),
        (Rules(players=3), "players=3"),
        (Rules(pass_count=2), "pass_count=2"),
        (Rules(queen_lead="after_break"), "queen_lead"),
        (Rules(moon="shooter_chooses"), "moon"),
        (Rules.preset("strict_queen"), "queen_lead='after_break' (OpenSpiel: 'anytime'); moon="),
        (Rules(jack_of_diamonds=-5), "jack_of_diamonds=-5"),
        (Rules(no_tricks_bonus=-3), "no_tricks_bonus=-3"),
    ],
)
def test_unsupported_rules_are_a_clear_error(rules: Rules, words: str) -> None:
    """R1.1, R2.2, R3.6, R4.2–R4.4: options OpenSpiel's hearts lacks are refused, by name."""
    with pytest.raises(HeartsError, match="OpenSpiel's hearts cannot play these rules") as info:
        openspiel_parameters(rules)
    assert words in str(info.value)
    game = Game(rules, seed=1)
    bot = OpenSpielBot.ismcts(seed=1, simulations=10)
    seat = next(s for s in range(rules.players) if View.of(game, s).my_turn)
    view = View.of(game, seat)
    with pytest.raises(HeartsError, match="cannot play these rules"):
        bot.act(view)


def test_reconstruction_agrees_with_the_view() -> None:
    """R7: at every decision of every seat, in every pass direction, the rebuilt state has the same
    player to move, the same legal actions, this seat's hand, pass and points, and every seat's
    hand size; the true hidden hands are among those the view allows."""
    rng = random.Random(11)
    decisions = 0
    for k in range(24):
        r = Round.deal(Rules(), seed=1000 + k, round_number=k)  # directions left, right, across, hold
        if r.phase is Phase.PASSING:
            for seat in range(4):
                check_reconstruction(r, seat, rng)
                r.pass_cards(seat, rng.sample(cards_of(r.hand(seat).mask), 3))
                decisions += 1
        while not r.is_over:
            mover = r.to_move
            assert mover is not None
            check_reconstruction(r, mover, rng)
            r.play(cautious(r, rng) if k % 2 else rng.choice(cards_of(r.legal_plays().mask)))
            decisions += 1
    assert decisions == 24 * 52 + 18 * 4


@pytest.mark.parametrize("rules", [Rules(), Rules(lead_hearts_instead_of_queen=True), Rules.preset("omnibus")])
@pytest.mark.parametrize("stack", ["all_points", "hearts", "points"])
def test_plays_legal_only_for_special_hands_are_inferred(rules: Rules, stack: str) -> None:
    """R3.3's exception (points thrown on the first trick: only points held), R3.4's (a heart led
    unbroken: only hearts held) and R3.7 (hearts and the Q♠ only): the adapter infers what the
    player held, and a history that replays legally in OpenSpiel is found where the view's voids
    alone (sample_hands) almost never give one."""
    hand = {"all_points": ALL_POINTS_HAND, "hearts": HEARTS_HAND, "points": POINTS_HAND}[stack]
    rng = random.Random(sum(map(ord, stack)) + rules.lead_hearts_instead_of_queen + rules.jack_of_diamonds)
    # With POINTS_HAND and the defaults the seat must lead the Q♠ (R3.7): legal anyway, no inference.
    expected = stack != "points" or rules.lead_hearts_instead_of_queen
    hits = 0
    for k in range(12):
        r = stacked_round(hand, 1, rng, rules)
        special = False
        while not r.is_over:
            seat = r.to_move
            assert seat is not None
            if seat != 1:
                view = View.of(r, seat)
                allowed = possible_cards(view)
                if special:
                    hits += 1
                    assert allowed[1] & ~POINTS_MASK == 0
                    # sample_hands knows only the voids; the constrained sampler honours all.
                    hands = sample_constrained(view, allowed, rng)
                    assert hands is not None and hands[1] & ~allowed[1] == 0
                    assert [h.bit_count() for h in hands] == list(view.hand_sizes)
                check_reconstruction(r, seat, rng)
            card = cautious(r, rng) if seat != 1 else cards_of(r.legal_plays().mask)[0]
            first, lead, broken = r.tricks_played == 0, not r.current_trick.cards, r.hearts_broken
            r.play(card)
            if seat == 1 and card & 3 == 2 and ((lead and not broken) or (first and not lead)):
                special = True  # a heart led unbroken, or thrown on the first trick
        if k == 0 and expected:
            assert special, "the stacked hand did not reach its corner"
    assert (hits > 0) == expected


def test_sample_hands_alone_misses_the_inference() -> None:
    """Why the adapter needs :func:`possible_cards`: after a heart led unbroken by a seat that
    held only hearts, the view's voids do not say so and sample_hands gives it other suits."""
    rng = random.Random(5)
    r = stacked_round(HEARTS_HAND, 1, rng)
    while True:
        seat = r.to_move
        assert seat is not None
        if r.tricks_played == 1 and not r.current_trick.cards:
            break
        r.play(cards_of(r.legal_plays().mask)[0] if seat == 1 else cautious(r, rng))
    assert r.to_move == 1  # won the first trick with the A♣
    r.play(cards_of(r.legal_plays().mask)[0])  # a heart, unbroken (R3.4's exception)
    view = View.of(r, 2)
    assert possible_cards(view)[1] & ~HEARTS_MASK == 0
    misses = sum(sample_hands(view, rng)[1] & ~HEARTS_MASK != 0 for _ in range(20))
    assert misses == 20
    check_reconstruction(r, 2, rng)


def swap_hidden(r: Round, me: int, rng: random.Random) -> Round | None:
    """The same round with two unplayed cards of the same suit (not the Q♠ nor the 2♣) swapped
    between two other seats: ``me`` cannot tell the difference (R7)."""
    others = [s for s in range(4) if s != me]
    known = (r.passed(me) or CardSet()).mask | (r.received(me) or CardSet()).mask | 1 | QS_MASK
    pairs: list[tuple[int, int]] = []
    for a in others:
        for b in others:
            if a < b:
                for c in cards_of(r.hand(a).mask & ~known):
                    pairs.extend((c, d) for d in cards_of(r.hand(b).mask & ~known & SUIT_MASKS[c & 3]))
    if not pairs:
        return None
    x, y = rng.choice(pairs)

    def swap(mask: int) -> int:
        bx, by = mask >> x & 1, mask >> y & 1
        return (mask & ~(1 << x) & ~(1 << y)) | (by << x) | (bx << y)

    other = Round(r.rules, [swap(h.mask) for h in r.dealt], round_number=r.round_number)
    if r.pass_offset:
        for s in range(4):
            passed = r.passed(s)
            assert passed is not None
            other.pass_cards(s, CardSet.from_mask(swap(passed.mask)))
    for card in r.plays:
        other.play(card)
    return other


def test_no_hidden_information_is_used() -> None:
    """R7: two rounds that differ only in other seats' unplayed cards give the seat the same
    view, hence the same reconstruction; and whatever hidden cards a reconstruction samples, the
    seat's information state (string and tensor) is the same. (OpenSpiel's ISMCTS cannot be
    compared choice by choice: with a fixed seed it is not reproducible, see the module doc.)"""
    rng = random.Random(3)
    checked = 0
    for k in range(6):
        r = Round.deal(Rules(), seed=77 + k, round_number=k)
        for seat in range(4):
            if r.phase is Phase.PASSING:
                r.pass_cards(seat, rng.sample(cards_of(r.hand(seat).mask), 3))
        stop = rng.randrange(4, 40)
        while len(r.plays) < stop:
            r.play(rng.choice(cards_of(r.legal_plays().mask)))
        me = r.to_move
        assert me is not None
        other = swap_hidden(r, me, rng)
        assert other is not None
        assert other.hand(me) == r.hand(me) and [other.hand(s) for s in range(4)] != [r.hand(s) for s in range(4)]
        view = View.of(r, me)
        assert View.of(other, me) == view
        states = [reconstruct_state(view, random.Random(seed))[0] for seed in (1, 2, 3)]
        assert len({tuple(s.history()) for s in states}) > 1  # different hidden samples ...
        assert len({s.information_state_string(0) for s in states}) == 1  # ... the same information
        assert len({tuple(s.information_state_tensor(0)) for s in states}) == 1
        # The adapter's input is the view alone: equal views, equal reconstructions (same rng).
        twins = [reconstruct_state(View.of(x, me), random.Random(5))[0] for x in (r, other)]
        assert twins[0].history() == twins[1].history()
        card = OpenSpielBot.ismcts(seed=4, simulations=40).choose_play(view)
        assert card in view.legal
        checked += 1
    assert checked == 6


def native_round(history: list[int]) -> Round | None:
    """Our round for a history of OpenSpiel's own ``hearts`` (default options; the mapping is
    in ``test_openspiel_differential.py``), or ``None`` in the middle of the passes."""
    direction, deal, rest = history[0], history[1:53], history[53:]
    hands = [0] * 4
    for k, card in enumerate(deal):
        hands[k % 4] |= 1 << card
    r = Round(Rules(), hands, round_number=ROUND_OF_DIRECTION[direction])
    if direction:
        passes, rest = rest[:12], rest[12:]
        if 0 < len(passes) < 12:
            return None
        for s in range(4 if passes else 0):
            r.pass_cards(s, CardSet.from_mask(sum(1 << c for c in passes[3 * s : 3 * s + 3])))
    for card in rest:
        r.play(card)
    return r


def test_openspiel_bots_get_the_information_state_of_openspiel_own_game() -> None:
    """R7: at a decision of player 0 (seat 0) in OpenSpiel's own ``hearts``, the state the adapter
    rebuilds from our view has exactly the information state (string and tensor) of the real
    game: an OpenSpiel bot at our table knows what it would know in OpenSpiel, no more, no less."""
    game = pyspiel.load_game("hearts")
    rng = random.Random(8)
    checked = 0
    for k in range(24):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            if state.current_player() == 0:
                r = native_round(state.history())
                if r is not None:
                    ours, player = reconstruct_state(View.of(r, 0), random.Random(k))
                    assert player == 0
                    assert ours.information_state_string(0) == state.information_state_string(0)
                    assert ours.information_state_tensor(0) == state.information_state_tensor(0)
                    checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 150  # 13 plays a round, and the passes


def test_pass_information_is_the_seat_hand_only() -> None:
    """R2.1, R7: for a pass, the other hands are sampled; the information state does not depend
    on them."""
    r = Round.deal(Rules(), seed=4, round_number=2)  # across
    view = View.of(r, 2)
    states = [reconstruct_state(view, random.Random(seed))[0] for seed in (1, 2)]
    assert states[0].history() != states[1].history()
    assert states[0].information_state_string(0) == states[1].information_state_string(0)
    assert states[0].information_state_tensor(0) == states[1].information_state_tensor(0)
    mine = OpenSpielBot.ismcts(seed=6, simulations=30).choose_pass(view)
    assert len(mine) == 3 and mine <= view.hand


def test_whole_round_ismcts_at_seat_0_against_random_bots() -> None:
    """R2, R3: OpenSpiel's ISMCTS (50 simulations) passes and plays a whole round at seat 0;
    the engine accepts every move (it refuses illegal ones)."""
    for round_number in (0, 3):  # a left pass, then a hold round
        r = Round.deal(Rules(), seed=21 + round_number, round_number=round_number)
        bots = [OpenSpielBot.ismcts(seed=1, simulations=50), *(RandomBot(seed=s) for s in (1, 2, 3))]
        while actors := r.actors():
            for s in actors:
                r.apply(bots[s].act(View.of(r, s)))
        assert r.result is not None and sum(r.result.points) == 26


def test_ismcts_plays_every_seat_in_a_subprocess() -> None:
    """The seat rotation keeps OpenSpiel's ISMCTSBot out of its crash (a segmentation fault
    when a player passes after its giver): run in a child process, so a crash fails this test
    instead of killing the run. Seats 1, 2, 3 in all three pass directions and a hold round."""
    code = textwrap.dedent(
        """
        from hearts import Round, Rules
        from hearts.view import View
        from hearts.bots import RandomBot
        from hearts.bots.openspiel import OpenSpielBot
        for seat in (1, 2, 3):
            for number in range(4):
                r = Round.deal(Rules(), seed=seat * 10 + number, round_number=number)
                bots = [RandomBot(seed=s) for s in range(4)]
                bots[seat] = OpenSpielBot.ismcts(seed=seat, simulations=25)
                while actors := r.actors():
                    for s in actors:
                        r.apply(bots[s].act(View.of(r, s)))
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stderr[-2000:])


@pytest.mark.skipif(pyspiel.__version__ != "2.0.2", reason="documents OpenSpiel 2.0.2's behaviour")
def test_openspiel_2_0_2_resample_replays_the_givers_real_pass() -> None:
    """Why the adapter rotates seats: in OpenSpiel 2.0.2, hearts' ResampleFromInfostate for
    player 1 passing left, after player 0 passed, replays player 0's *real* passed cards (which
    player 1 cannot know yet) though its resampled deal gave them elsewhere; the world is
    inconsistent and ISMCTS, simulating in it, crashes the process."""
    state = load_game(Rules()).new_initial_state()
    state.apply_action(1)  # pass left
    for card in range(52):
        state.apply_action(card)  # player 0 holds 0, 4, 8, ...
    for card in (0, 4, 8):
        state.apply_action(card)
    sample = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0, 0.0, 1.0))
    history = sample.history()
    assert history[53:56] == [0, 4, 8]  # the real pass ...
    dealt_to_0 = {history[1 + k] for k in range(0, 52, 4)}
    assert not {0, 4, 8} <= dealt_to_0  # ... of cards the resampled deal did not give player 0


def test_unrotated_ismcts_refuses_a_crashing_pass() -> None:
    """With ``rotate=False`` the adapter refuses, with a clear error, the pass decisions where
    OpenSpiel 2.0.2's ISMCTSBot would crash (its giver has passed before it)."""

    def factory(game: Any, player: int, seed: int) -> Any:
        return pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, 10)

    r = Round.deal(Rules(), seed=8, round_number=0)  # left: seat 1's giver is seat 0
    bot = OpenSpielBot(factory, seed=1, rotate=False)
    with pytest.raises(HeartsError, match="crashes the process"):
        bot.choose_pass(View.of(r, 1))
    assert len(bot.choose_pass(View.of(r, 0))) == 3  # seat 0: nobody passed before it
    state, player = reconstruct_state(View.of(r, 3), random.Random(1), rotate=False)
    assert player == 3 and state.current_player() == 3  # OpenSpiel's players 0..2 passed first:
    assert len(state.history()) == 1 + 52 + 9  # their passes are sampled from their sampled hands
    assert state.legal_actions() == cards_of(r.hand(3).mask)


def test_generic_factory_and_registry() -> None:
    """Any OpenSpiel bot can be seated (here its uniform random bot); the registry knows the
    ISMCTS bot as a spec of make_bot."""
    calls: list[tuple[int, int]] = []

    def factory(game: Any, player: int, seed: int) -> Any:
        calls.append((player, seed))
        return pyspiel.make_uniform_random_bot(player, seed)

    game = Game(Rules(target=40), seed=2)
    bots: dict[int, Bot] = {s: RandomBot(seed=s) for s in range(4)}
    bots[2] = OpenSpielBot(factory, seed=3, name="os-random")
    run_bots(game, bots)
    assert game.is_over and len(calls) == 1 and calls[0][0] == 0

    bot = make_bot("openspiel_ismcts:simulations=20,uct_c=1.5", seed=4)
    assert isinstance(bot, OpenSpielBot) and bot.name == "openspiel_ismcts"
    with pytest.raises(HeartsError, match="does not take options"):
        make_bot("openspiel_ismcts:depth=3")


@pytest.mark.parametrize(
    "options",
    [{"simulations": 0}, {"simulations": 2.5}, {"rollouts": 0}, {"uct_c": -1}, {"time": 0},
     {"final_policy": "best"}, {"max_world_samples": 0}],
)
def test_ismcts_options_are_checked(options: dict[str, Any]) -> None:
    with pytest.raises(HeartsError, match="ismcts:"):
        OpenSpielBot.ismcts(seed=1, **options)


def test_without_pyspiel_the_error_comes_on_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module imports without OpenSpiel (``pyspiel`` is imported when a bot is built or
    used); then the error says what to install."""
    import hearts.bots.openspiel as module

    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> Any:
        if name == "pyspiel":
            raise ImportError("No module named 'pyspiel'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)
    monkeypatch.setattr(module, "_GAMES", {})
    with pytest.raises(OpenSpielUnavailable, match="pip install open-spiel"):
        OpenSpielBot.ismcts(seed=1)  # building it checks, so that a bad arena spec fails at once
    bot = OpenSpielBot(lambda game, player, seed: None, seed=1)
    with pytest.raises(OpenSpielUnavailable, match="pip install open-spiel") as info:
        bot.choose_pass(View.of(Round.deal(Rules(), seed=1), 0))
    assert isinstance(info.value, ImportError) and isinstance(info.value, HeartsError)
