"""The bots (DESIGN: ``hearts.bots``): protocol, what they may know, reproducibility, the
registry, the heuristic's documented strategy, the search bot's sampling and choice, and the
default moon decision.

Rule numbers refer to the rule book: R2.1 (a pass is ``pass_count`` held cards), R3 (legal plays),
R4.4 (shooting the moon, ``shooter_chooses``), R7 (a seat sees only its view).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from collections.abc import Callable, Sequence
from typing import Literal

import pytest
from helpers import hold_number
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearts import Card, CardSet, Game, Phase, Round, Rules
from hearts.actions import Moon, Pass, Play
from hearts.bots import BOT_NAMES, LEVELS, Bot, HeuristicBot, RandomBot, SearchBot, make_bot, run_bots
from hearts.bots.heuristic import pass_mask, threat_of_moon
from hearts.bots.search import Block, pass_candidates, race, sample_hands
from hearts.cards import QUEEN_OF_SPADES, SUIT_MASKS, cards_of
from hearts.errors import HeartsError
from hearts.mechanics import MoonChoice, score_round
from hearts.round import deal_hands
from hearts.view import View

# --- helpers -------------------------------------------------------------------------------

SEARCH_TINY = "search:iterations=24"
SPECS = (
    "random", "heuristic", SEARCH_TINY, f"{SEARCH_TINY},model=random", "easy", "medium",
)


def suit(letter: str) -> str:
    """All thirteen cards of one suit as text, e.g. ``suit("C")``."""
    return " ".join(rank + letter for rank in "23456789TJQKA")


def hold_round(
    hands: list[str], rules: Rules | None = None, scores_before: tuple[int, ...] | None = None
) -> Round:
    """A round from an explicit deal (R1.3) in a hold round: play starts with the 2♣."""
    rules = rules or Rules()
    r = Round(rules, hands, round_number=hold_number(rules), scores_before=scores_before)
    assert r.phase is Phase.PLAYING
    return r


def play(r: Round, moves: str) -> Round:
    """Play cards given as text, in turn order."""
    for text in moves.split():
        r.play(text)
    return r


def deal_around(rules: Rules, seat: int, text: str) -> list[int]:
    """A deal giving ``seat`` the cards ``text`` and the rest of the deck to the other seats."""
    mine = CardSet.parse(text).mask
    rest = cards_of(rules.deck_mask & ~mine)
    size = rules.hand_size
    hands: list[int] = []
    i = 0
    for s in range(rules.players):
        if s == seat:
            hands.append(mine)
        else:
            hands.append(sum(1 << c for c in rest[i : i + size]))
            i += size
    return hands


def pass_view(text: str, seat: int = 0, rules: Rules | None = None) -> View:
    """The view of ``seat`` holding ``text`` at the start of a passing round (R2)."""
    rules = rules or Rules()
    r = Round(rules, deal_around(rules, seat, text), round_number=0)
    assert r.phase is Phase.PASSING
    return View.of(r, seat)


class Checked(Bot):
    """Wraps a bot and checks each answer against the view it was given (R2.1, R3, R4.4)."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(0)
        self.inner = inner
        self.passes = self.plays = self.moons = 0

    def choose_pass(self, view: View) -> CardSet:
        assert view.must_pass and view.phase is Phase.PASSING
        cards = self.inner.choose_pass(view)
        assert isinstance(cards, CardSet)
        assert len(cards) == view.rules.pass_count, "R2.1: pass_count cards"
        assert cards <= view.hand, "R2.1: only held cards are passed"
        self.passes += 1
        return cards

    def choose_play(self, view: View) -> Card:
        assert view.to_move == view.seat and view.phase is Phase.PLAYING
        card = self.inner.choose_play(view)
        assert isinstance(card, Card)
        assert card in view.legal, f"R3: {card} is not among the legal plays {view.legal}"
        self.plays += 1
        return card

    def choose_moon(self, view: View) -> MoonChoice:
        assert view.moon_choice_pending and view.phase is Phase.MOON_CHOICE
        choice = self.inner.choose_moon(view)
        assert choice in ("add", "subtract")
        self.moons += 1
        return choice


def rule_variants(players: int) -> list[Rules]:
    """Assorted rule options (R2–R6) for protocol games."""
    return [
        Rules(players=players, target=40),
        Rules.preset("strict_queen", players=players, target=40),
        Rules(players=players, moon="shooter_chooses", jack_of_diamonds=-10, no_tricks_bonus=-5, target=40),
        Rules(
            players=players,
            first_lead="any_club",
            points_on_first_trick=True,
            queen_breaks_hearts=False,
            lead_hearts_instead_of_queen=True,
            ties="share",
            target=40,
        ),
        Rules(
            players=players,
            must_break_hearts=False,
            queen_lead="after_break",
            pass_count=1,
            pass_cycle=("right", "hold", 1),
            target=40,
        ),
    ]


def run_checked(game: Game, specs: list[str], seed: int) -> list[Checked]:
    bots = [Checked(make_bot(spec, seed=seed * 10 + s)) for s, spec in enumerate(specs)]
    run_bots(game, dict(enumerate(bots)))
    assert game.is_over and game.winners
    return bots


# --- protocol (R2.1, R3, R4.4) -------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("spec", SPECS)
def test_every_bot_plays_whole_games_legally(spec: str, players: int) -> None:
    """Every registered bot passes R2.1-legal cards and plays only cards of ``view.legal``
    over whole games, with every player count and assorted rule options."""
    k = SPECS.index(spec) + players
    rules = rule_variants(players)[k % 5]
    game = Game(rules, seed=k)
    bots = run_checked(game, [spec] * players, seed=k)
    plays = sum(len(r.plays) for r in game.rounds)
    assert sum(b.plays for b in bots) == plays
    passing_rounds = sum(1 for r in game.rounds if r.pass_offset)
    assert sum(b.passes for b in bots) == passing_rounds * players
    moons = sum(
        1 for r in game.rounds if r.result and r.result.moon_choice and rules.moon == "shooter_chooses"
    )
    assert sum(b.moons for b in bots) == moons


@pytest.mark.parametrize("variant", range(5))
def test_mixed_tables_complete(variant: int) -> None:
    """All bot kinds at one table, four players, every rule variant."""
    game = Game(rule_variants(4)[variant], seed=100 + variant)
    specs = [SPECS[(variant + s) % len(SPECS)] for s in range(4)]
    run_checked(game, specs, seed=variant)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("spec", SPECS)
def test_choose_moon_is_asked_of_the_shooter(spec: str, players: int) -> None:
    """R4.4 ``shooter_chooses``: a forced moon (seat 0 holds every club and, with 3 players,
    the top diamonds, so it wins every trick) makes the engine ask seat 0's bot."""
    rules = Rules(players=players, moon="shooter_chooses", pass_cycle=("hold", "left"), target=60)
    if players == 4:
        deal = [suit("C"), suit("D"), suit("H"), suit("S")]
    else:  # 17 cards each, no 2♦ (R1.2)
        deal = [
            suit("C") + " AD KD QD JD",
            "3D 4D 5D 6D 7D 8D 9D TD 2H 3H 4H 5H 6H 7H 8H 9H TH",
            "JH QH KH AH " + suit("S"),
        ]
    game = Game(rules, seed=3, deals=[deal])
    bots = run_checked(game, [spec] * players, seed=1)
    first = game.rounds[0].result
    assert first is not None and first.shooter == 0 and first.moon_choice in ("add", "subtract")
    assert bots[0].moons >= 1


# --- a bot sees only its view (R7) ---------------------------------------------------------


def view_bots(seed: int) -> list[Bot]:
    """The bots whose decisions must depend on the view only (with randomness in play)."""
    return [
        HeuristicBot(seed=seed),
        HeuristicBot(seed=seed, blunder=0.5),
        SearchBot(seed=seed, iterations=16),
        SearchBot(seed=seed, iterations=16, model="random"),
        SearchBot(seed=seed, iterations=16, tree=True, follow=4),
    ]


def decisions(view: View, seed: int) -> list[object]:
    """Each bot's decision on ``view``, fresh bots seeded alike."""
    if view.must_pass:
        return [bot.choose_pass(view) for bot in view_bots(seed)]
    return [bot.choose_play(view) for bot in view_bots(seed)]


@pytest.mark.parametrize("phase", ["lead", "pass"])
def test_decisions_ignore_how_the_others_cards_lie(phase: str) -> None:
    """R7: two deals with the same hand for seat 0 and the other seats' hands exchanged give
    the same view and so the same decisions, leading (any club, R3.1 option) or passing."""
    mine = "2C 5C 9C KC 3D 8D QD 4H JH AH 6S QS KS"
    rules = Rules(first_lead="any_club")
    a = deal_around(rules, 0, mine)
    b = [a[0], a[3], a[1], a[2]]
    round_number = hold_number(rules) if phase == "lead" else 0
    ra, rb = Round(rules, a, round_number=round_number), Round(rules, b, round_number=round_number)
    va, vb = View.of(ra, 0), View.of(rb, 0)
    assert va == vb
    assert (phase == "lead") == (va.to_move == 0 and len(va.legal) == 4)
    for seed in range(3):
        assert decisions(va, seed) == decisions(vb, seed)


Action = tuple[Literal["pass"], int, int] | tuple[Literal["play"], int]


def advance(r: Round, rng: random.Random, moves: int) -> list[Action]:
    """Up to ``moves`` random legal actions (one pass or one play at a time), stopping before
    the round's last card so that a seat still has to act."""
    actions: list[Action] = []
    for _ in range(moves):
        if r.phase is Phase.PASSING:
            seat = rng.choice(r.seats_to_pass())
            cards = CardSet(rng.sample(list(r.hand(seat)), r.rules.pass_count))
            r.pass_cards(seat, cards)
            actions.append(("pass", seat, cards.mask))
        elif r.phase is Phase.PLAYING and r.cards_left > 1:
            card = rng.choice(list(r.legal_plays()))
            r.play(card)
            actions.append(("play", int(card)))
    return actions


def replay(rules: Rules, deal: list[int], round_number: int, actions: list[Action]) -> Round:
    r = Round(rules, deal, round_number=round_number)
    for action in actions:
        if action[0] == "pass":
            r.pass_cards(action[1], CardSet.from_mask(action[2]))
        else:
            r.play(action[1])
    return r


def actor(r: Round, rng: random.Random) -> int:
    """A seat with a decision to make now."""
    if r.phase is Phase.PASSING:
        return rng.choice(r.seats_to_pass())
    assert r.to_move is not None
    return r.to_move


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([3, 4, 5, 6]),
    round_number=st.integers(0, 3),
    moves=st.integers(0, 60),
)
def test_decisions_ignore_same_suit_swaps_between_other_seats(
    seed: int, players: int, round_number: int, moves: int
) -> None:
    """R7 mid-round: swap two unplayed, unpassed cards of one suit between two other seats'
    deals and replay the same actions: nothing public changes, so neither does the view or any
    bot's decision (the Q♠ is not swapped: it would change who may discard points, R3.3)."""
    rules = Rules(players=players)
    rng = random.Random(seed)
    deal = deal_hands(rules, rng)
    r = Round(rules, deal, round_number=round_number)
    actions = advance(r, rng, moves)
    me = actor(r, rng)
    swaps = []
    for a in range(players):
        for b in range(a + 1, players):
            if me in (a, b):
                continue
            free = [
                deal[s] & r.hand(s).mask & ~(r.passed(s) or CardSet()).mask & ~(1 << QUEEN_OF_SPADES)
                for s in (a, b)
            ]
            for mask in SUIT_MASKS:
                for ca in cards_of(free[0] & mask):
                    for cb in cards_of(free[1] & mask):
                        swaps.append((a, b, ca, cb))
    if not swaps:
        return
    a, b, ca, cb = rng.choice(swaps)
    other = deal[:]
    other[a] ^= (1 << ca) | (1 << cb)
    other[b] ^= (1 << ca) | (1 << cb)
    r2 = replay(rules, other, round_number, actions)
    assert r2.hand(a) != r.hand(a)
    view, view2 = View.of(r, me), View.of(r2, me)
    assert view == view2
    assert decisions(view, seed) == decisions(view2, seed)


# --- reproducibility and the registry ------------------------------------------------------


def game_record(spec: str, seed: int, rules: Rules) -> tuple[object, ...]:
    game = Game(rules, seed=seed)
    run_bots(game, {s: make_bot(spec, seed=seed + s) for s in range(rules.players)})
    passes = [tuple(r.passed(s) for s in range(rules.players)) for r in game.rounds]
    return tuple(game.history), [r.plays for r in game.rounds], passes, [r.result for r in game.rounds]


@pytest.mark.parametrize(
    ("spec", "rules"),
    [
        ("heuristic:blunder=0.4", Rules(target=60)),
        ("easy", Rules(players=5, target=40)),
        (SEARCH_TINY, Rules(target=26)),
        ("search:iterations=12,model=random", Rules(players=3, target=26)),
        ("search:iterations=12,tree=1,follow=4", Rules(target=26)),
    ],
)
def test_same_seed_same_game(spec: str, rules: Rules) -> None:
    """A bot draws every random choice from its seed: the same seeds give the same game."""
    assert game_record(spec, 7, rules) == game_record(spec, 7, rules)


def test_blunder_draws_from_the_seed() -> None:
    """Different seeds make ``blunder`` differ somewhere (the choice is random, not fixed)."""
    view = View.of(play(hold_round(QUEEN_DEAL), "2C AC 3C 4C TD 5S QS"), 0)
    picks = {HeuristicBot(seed=s, blunder=1.0).choose_play(view) for s in range(40)}
    assert len(picks) > 1 and picks <= set(view.legal)
    assert {HeuristicBot(seed=s).choose_play(view) for s in range(5)} == {Card.parse("8D")}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nobody", "unknown bot 'nobody'; known bots: random, heuristic, search, openspiel_ismcts, neural, easy"),
        ("", "is not a bot spec"),
        ("search:iterations", "bot option 'iterations' in 'search:iterations' is not key=value"),
        ("heuristic:speed=3", "bot 'heuristic' does not take options ['speed']"),
        ("random:iterations=5", "bot 'random' does not take options ['iterations']"),
        ("search:iterations=0", "search: iterations must be a whole number >= 1, not 0"),
        ("search:iterations=2.5", "search: iterations must be a whole number >= 1, not 2.5"),
        ("search:time=-1", "search: time must be a number of seconds > 0, not -1"),
        ("search:time=0", "search: time must be a number of seconds > 0, not 0"),
        ("search:time=fast", "search: time must be a number of seconds > 0, not 'fast'"),
        ("search:shoot_from=-1", "search: shoot_from must be a whole number of points >= 0, not -1"),
        ("search:pass_budget=0", "search: pass_budget must be a number > 0, not 0"),
        ("search:pass_race=-1", "search: pass_race must be a number of standard errors >= 0, not -1"),
        ("search:model=psychic", "search: model must be one of careful, random, not 'psychic'"),
        ("search:model=adaptive", "search: model must be one of careful, random, not 'adaptive'"),
        ("search:fast=2", "search: fast must be 1 (use hearts.fast when installed) or 0, not 2"),
        ("search:tree=2,iterations=10", "search: tree must be 1 (information-set tree search) or 0, not 2"),
        ("search:tree=1,time=0.5", "search: tree=1 takes a budget in iterations (not in time)"),
        ("search:explore=-1", "search: explore must be a number >= 0, not -1"),
        ("search:tree=1,iterations=10,follow=-1", "search: follow must be a whole number of visits >= 0, not -1"),
        ("search:tree=1,iterations=10,follow=1.5", "search: follow must be a whole number of visits >= 0, not 1.5"),
        ("search:iterations=10,follow=8", "search: follow is an option of the tree search (tree=1)"),
        ("search:fast=yes", "search: fast must be 1 (use hearts.fast when installed) or 0, not 'yes'"),
        ("search:infer=4", "search: unknown option 'infer' (removed: measured, it did not make the search stronger"),
        ("search:iterations=9,infer_noise=0.3", "search: unknown option 'infer_noise' (removed: measured"),
        ("search:margin=1", "search: unknown option 'margin' (removed: measured, it did not make the search"),
        ("search:psychic=1", "search: unknown option 'psychic'"),
        ("heuristic:blunder=2", "heuristic: blunder must be a probability 0..1, not 2"),
        ("heuristic:blunder=-0.1", "heuristic: blunder must be a probability 0..1, not -0.1"),
    ],
)
def test_make_bot_refuses_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(HeartsError) as info:
        make_bot(spec, seed=1)
    assert isinstance(info.value, ValueError)
    assert message in str(info.value)


def test_levels_resolve() -> None:
    assert set(LEVELS) == {"easy", "medium", "hard", "expert"}
    easy, medium, hard, expert = (make_bot(level, seed=1) for level in ("easy", "medium", "hard", "expert"))
    assert isinstance(easy, HeuristicBot) and easy.blunder > 0
    assert isinstance(medium, HeuristicBot) and medium.blunder == 0
    assert isinstance(hard, SearchBot) and isinstance(expert, SearchBot)
    assert hard.iterations is not None and expert.iterations is not None
    assert expert.iterations > hard.iterations  # budgets in rollouts: reproducible from a seed
    assert isinstance(make_bot("random"), RandomBot)
    bot = make_bot(" search:iterations=40, explore=0.5 ", seed=3)
    assert isinstance(bot, SearchBot) and bot.iterations == 40 and bot.explore == 0.5 and bot.time is None


# --- the heuristic's documented strategy ---------------------------------------------------

# Seat 0 holds the 2♣ and leads it; seat 1 wins the first trick with the A♣ (R3.1, R3.8).
# Seats 2 and 3 are void in diamonds; seat 3 holds the Q♠ with no low spades.
QUEEN_DEAL = [
    "2C 5C 6C 7C 8C 2D 3D 4D 5D 6D 7D 8D AD",
    "AC 9D TD JD QD KD 5H 6H 7H 8H 2S 3S 4S",
    "3C 2H 3H 9H TH JH 5S 6S 7S 8S 9S TS JS",
    "4C 9C TC JC QC KC QS KS AS 4H QH KH AH",
]


def heuristic_play(r: Round) -> Card:
    assert r.to_move is not None
    return HeuristicBot(seed=0).choose_play(View.of(r, r.to_move))


def test_heuristic_passes_an_unguarded_queen() -> None:
    """Pass the Q♠ (and the A♠, K♠) without four low spades to guard it."""
    view = pass_view(QUEEN_DEAL[3])
    assert HeuristicBot(seed=0).choose_pass(view) == CardSet.parse("QS KS AS")


def test_heuristic_keeps_a_guarded_queen() -> None:
    """With four spades below the queen it keeps the Q♠ and its guards; the high hearts go."""
    view = pass_view("QS 2S 3S 4S 5S AH KH QH JH AC KC AD KD")
    passed = HeuristicBot(seed=0).choose_pass(view)
    assert QUEEN_OF_SPADES not in passed
    assert not passed & CardSet.parse("2S 3S 4S 5S")
    assert passed == CardSet.parse("AH KH QH")


def test_heuristic_passes_high_hearts() -> None:
    view = pass_view("AH KH TH 2H 3C 4C 5C 6C 3D 4D 5D 6D 3S")
    assert HeuristicBot(seed=0).choose_pass(view) == CardSet.parse("AH KH TH")


def test_heuristic_passes_low_cards_with_a_moon_hand() -> None:
    """A hand that can take every point keeps its winners (unless ``moon`` is off)."""
    hand = "AH KH QH JH TH 9H AS KS AC KC AD KD 2C"
    view = pass_view(hand)
    passed = HeuristicBot(seed=0).choose_pass(view)
    assert not passed & CardSet.parse("AH KH QH JH TH 9H AS KS")
    assert Card.parse("2C") in passed
    assert HeuristicBot(seed=0, moon=False).choose_pass(view) == CardSet.parse("AS KS AH")
    assert pass_mask(CardSet.parse(hand).mask, 3) == passed.mask


def test_heuristic_dumps_the_queen_when_void() -> None:
    """Void in the suit led, it discards the Q♠ on another seat's winning card."""
    r = play(hold_round(QUEEN_DEAL), "2C AC 3C 4C TD 5S")
    assert r.to_move == 3 and not r.hand(3).of_suit(1)
    assert heuristic_play(r) == QUEEN_OF_SPADES


def test_heuristic_ducks_under_the_winning_card() -> None:
    """Following, it plays the highest card that still loses (8♦ under the T♦), not the A♦."""
    r = play(hold_round(QUEEN_DEAL), "2C AC 3C 4C TD 5S QS")
    assert r.to_move == 0
    assert heuristic_play(r) == Card.parse("8D")


def test_heuristic_ducks_on_the_first_trick() -> None:
    deal = [
        "2C 5C 6C 7C 2D 3D 4D 5D 6D 2H 3H 3S 5S",
        "JC 8C 9C 7D 8D 9D TD 4H 5H 6H 4S 6S 7S",
        "4C 3C QC AC JD QD KD 7H 8H 9H TH 9S QS",
        "TC KC AD JH QH KH AH 2S 8S TS JS KS AS",
    ]
    r = play(hold_round(deal), "2C JC")
    assert heuristic_play(r) == Card.parse("4C")  # highest club under the J♣ (3♣ is lower)


# Seat 3 wins the first trick with the A♣ and leads a spade; seat 2, last, holds only spades
# that win it.
LAST_DEAL = [
    "2C 5C 6C 7C 2D 3D 4D 5D 6D 2H 3H 3S 5S",
    "3C 8C 9C 7D 8D 9D TD 4H 5H 6H 4S 6S 7S",
    "4C TC JC JD QD KD 7H 8H 9H TH 9S QS KS",
    "AC KC QC AD JH QH KH AH 2S 8S TS JS AS",
]


def test_heuristic_wins_a_clean_trick_when_last_with_the_highest_card_but_the_queen() -> None:
    r = play(hold_round(LAST_DEAL), "2C 3C 4C AC 2S 3S 4S")
    assert r.to_move == 2 and r.legal_plays() == CardSet.parse("9S QS KS")
    assert heuristic_play(r) == Card.parse("KS")


# Seat 3 wins the first trick and leads; it holds low spades only, the Q♠ is with seat 2.
FLUSH_DEAL = [
    "2C 5C 6C 7C 3D 4D 5D 6D 2H 3H 3S 5S AS",
    "3C 8C 9C 7D 8D 9D TD 4H 5H 6H 4S 6S 7S",
    "4C TC JC JD QD KD 7H 8H 9H TH 9S QS KS",
    "AC KC QC 2D AD JH QH KH AH 2S 8S TS JS",
]


def test_heuristic_flushes_the_queen_with_low_spades() -> None:
    """Leading with no spade above the jack while the Q♠ is out: lead a (high) low spade."""
    r = play(hold_round(FLUSH_DEAL), "2C 3C 4C AC")
    assert r.to_move == 3
    card = heuristic_play(r)
    assert card.suit == 3 and card.rank < QUEEN_OF_SPADES.rank
    assert card == Card.parse("JS")


def test_heuristic_does_not_flush_while_holding_a_high_spade() -> None:
    """The same lead holding the A♠ instead of the J♠: no flush, a safe low diamond instead."""
    deal = FLUSH_DEAL[:]
    deal[0] = deal[0].replace("AS", "JS")
    deal[3] = deal[3].replace("JS", "AS")
    r = play(hold_round(deal), "2C 3C 4C AC")
    assert heuristic_play(r) == Card.parse("2D")


def test_heuristic_defends_against_the_moon() -> None:
    """Seat 1 took the Q♠ (13 points, all so far) and leads the 5♥: seat 2 beats it (the J♥)
    instead of ducking."""
    r = play(hold_round(QUEEN_DEAL), "2C AC 3C 4C TD 5S QS 2D 5H")
    view = View.of(r, 2)
    assert view.points_taken == (0, 13, 0, 0) and threat_of_moon(view) == 1
    card = heuristic_play(r)
    assert card.suit == 2 and card > Card.parse("5H")
    assert card == Card.parse("JH")


def test_heuristic_ducks_when_no_moon_threat() -> None:
    """Control for the moon defence: with only one point taken it ducks (the 3♥)."""
    r = play(hold_round(QUEEN_DEAL), "2C AC 3C 4C TD 2H 9C 2D 5H")
    assert threat_of_moon(View.of(r, 2)) is None
    assert heuristic_play(r) == Card.parse("3H")


# --- the search bot ------------------------------------------------------------------------


def check_sample(view: View, hands: list[int]) -> None:
    """``hands`` is a deal consistent with everything ``view`` knows (R7)."""
    n, me = view.players, view.seat
    assert len(hands) == n
    assert hands[me] == view.hand.mask
    passing = view.phase is Phase.PASSING
    for s in range(n):
        size = view.rules.hand_size if passing and s != me else view.hand_sizes[s]
        assert hands[s].bit_count() == size, f"seat {s} gets {size} cards"
        for v in view.voids[s]:
            assert not hands[s] & SUIT_MASKS[v], f"seat {s} has shown a void in suit {v}"
    union = 0
    for h in hands:
        assert not union & h, "a card is dealt twice"
        union |= h
    assert not union & view.played.mask
    assert union == view.rules.deck_mask & ~view.played.mask
    known = view.known_elsewhere.mask
    if known:
        assert view.pass_to is not None and hands[view.pass_to] & known == known


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([3, 4, 5, 6]),
    round_number=st.integers(0, 3),
    moves=st.integers(0, 56),
)
def test_sample_hands_is_consistent_with_the_view(
    seed: int, players: int, round_number: int, moves: int
) -> None:
    rng = random.Random(seed)
    rules = Rules(players=players)
    r = Round(rules, deal_hands(rules, rng), round_number=round_number)
    advance(r, rng, moves)
    me = actor(r, rng)
    view = View.of(r, me)
    for k in range(8):
        check_sample(view, sample_hands(view, random.Random(seed + k)))


def test_sample_hands_with_many_voids() -> None:
    """A late, tightly constrained position: every sample honours every void."""
    for players in (5, 6):
        rules = Rules(players=players)
        for seed in range(40):
            rng = random.Random(seed)
            r = Round(rules, deal_hands(rules, rng), round_number=hold_number(rules))
            advance(r, rng, rules.hand_size * players - rng.randrange(1, 2 * players))  # last 2 tricks
            assert r.phase is Phase.PLAYING
            view = View.of(r, actor(r, rng))
            for k in range(5):
                check_sample(view, sample_hands(view, random.Random(k)))


def test_the_lowest_mean_among_those_alive_is_chosen() -> None:
    bot = SearchBot(seed=0, iterations=10)
    assert bot._choose([[4, 4], [1, 1], [1, 1]], [0, 1, 2]) == 1  # ties: the first
    assert bot._choose([[0, 0], [5, 6], [4, 4]], [1, 2]) == 2  # only the candidates alive


def test_race_drops_only_clear_losers() -> None:
    # Ties and noisy small differences stay; a loser on every sample goes.
    assert race([[2, 4, 2, 4], [2, 4, 2, 4]], [0, 1], z=2.0) == [0, 1]
    assert race([[1, 1, 1], [2, 2, 2]], [0, 1], z=2.0) == [0]
    # Paired differences 0 and 2: mean 1, standard error 1, so z = 1 is the boundary.
    assert race([[0, 0], [0, 2]], [0, 1], z=1.0) == [0, 1]
    assert race([[0, 0], [0, 2]], [0, 1], z=0.99) == [0]
    # Only the candidates still alive are compared; the best is the lowest mean among them.
    assert race([[0, 0], [5, 6], [4, 4]], [1, 2], z=2.0) == [2]


def test_raced_comparison_gives_the_budget_to_the_contenders() -> None:
    """With ``z > 0`` a clearly worse candidate stops being sampled at the first check (16
    samples) and the others share the rest of the budget; a draw costs ``draw_cost``."""
    bot = SearchBot(seed=0, iterations=400)
    rng = random.Random(1)

    def draw() -> tuple[list[int], float]:
        return [], rng.random()

    def score(sample: tuple[list[int], float], i: int) -> int:
        return [0, 10, 0][i] + int(sample[1] * 4)

    def block_of(draw: Callable[[], tuple[list[int], float]], score: Callable[[tuple[list[int], float], int], int]
                 ) -> Block:
        """A block drawing a sample and scoring each candidate alive on it, as often as asked."""

        def block(samples: int, alive: Sequence[int]) -> list[list[int]]:
            rows: list[list[int]] = [[] for _ in alive]
            for _ in range(samples):
                sample = draw()
                for row, i in zip(rows, alive, strict=True):
                    row.append(score(sample, i))
            return rows

        return block

    scores, alive = bot._compare(3, block_of(draw, score), z=2.0, draw_cost=1)
    assert alive == [0, 2] and len(scores[1]) == 16
    assert len(scores[0]) == len(scores[2]) == 16 + (400 - 16 * 4) // 3  # 4 then 3 per draw
    flat, everyone = bot._compare(3, block_of(draw, score), scale=0.5)
    assert everyone == [0, 1, 2] and [len(s) for s in flat] == [67, 67, 67]  # ceil(200 / 3)


def test_pass_candidates_hold_the_heuristic_pass() -> None:
    hand = CardSet.parse(QUEEN_DEAL[3]).mask
    candidates = pass_candidates(hand, 3, 5)
    assert pass_mask(hand, 3) in candidates
    assert len(candidates) == len(set(candidates)) >= 10  # C(5, 3) subsets
    assert all(c.bit_count() == 3 and c & ~hand == 0 for c in candidates)
    assert pass_candidates(hand, 0, 5) == [0]


@pytest.mark.parametrize("tree", [False, True])
def test_search_ducks_the_queen(tree: bool) -> None:
    """The Q♠ is on a diamond trick that the T♦ is winning: seat 0 may take it with the A♦ or
    duck with any lower diamond. The search (PIMC and the tree) ducks, and the same seed gives
    the same card."""
    r = play(hold_round(QUEEN_DEAL), "2C AC 3C 4C TD 5S QS")
    view = View.of(r, 0)
    assert Card.parse("AD") in view.legal and len(view.legal) == 8
    first = SearchBot(seed=5, iterations=300, tree=tree).choose_play(view)
    again = SearchBot(seed=5, iterations=300, tree=tree).choose_play(view)
    assert first == again
    assert first != Card.parse("AD") and first in view.legal


# --- the default moon decision (R4.4 shooter_chooses) --------------------------------------


def moon_view(scores: tuple[int, ...], **options: int) -> View:
    """Seat 0's view after shooting the moon (it holds every club, so it wins every trick)."""
    rules = Rules(moon="shooter_chooses", **options)  # type: ignore[arg-type]
    r = hold_round([suit("C"), suit("D"), suit("H"), suit("S")], rules, scores_before=scores)
    while r.phase is Phase.PLAYING:
        r.play(next(iter(r.legal_plays())))
    view = View.of(r, 0)
    assert view.moon_choice_pending
    return view


def margins(view: View) -> dict[str, int]:
    """Seat's lead over the best other total after each choice (as the round will score it)."""
    me = view.seat
    out: dict[str, int] = {}
    won = [view.won(s).mask for s in range(view.players)]
    choices: tuple[MoonChoice, ...] = ("add", "subtract")
    for choice in choices:
        result = score_round(won, view.tricks_won, view.rules, view.scores, choice)
        totals = [t + d for t, d in zip(view.scores, result.scores, strict=True)]
        out[choice] = min(t for s, t in enumerate(totals) if s != me) - totals[me]
    return out


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ((0, 0, 0, 0), "add"),  # nobody reaches the target either way
        ((80, 60, 90, 70), "add"),  # adding ends the game and seat 0 wins it
        ((80, 50, 90, 70), "subtract"),  # adding ends it with seat 1 winning
        ((60, 40, 74, 10), "subtract"),  # seat 2 reaches exactly 100 (R5.1), seat 3 wins
        ((40, 30, 20, 10), "subtract"),  # no end; still behind seat 3: subtracting plays longer
        ((40, 70, 80, 60), "add"),  # no end; in the lead after adding: bring the end nearer
    ],
)
def test_default_moon_choice(scores: tuple[int, ...], expected: str) -> None:
    view = moon_view(scores)
    assert RandomBot(seed=0).choose_moon(view) == expected


def test_default_moon_choice_counts_the_jack_of_diamonds() -> None:
    """R4.2 with R4.4: the shooter also took the J♦ (−10). Adding gives 70, 76, 125, 86: the
    game ends and seat 0 wins, so it must not subtract (which plays on)."""
    view = moon_view((80, 50, 99, 60), jack_of_diamonds=-10)
    assert RandomBot(seed=0).choose_moon(view) == "add"


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.integers(-30, 130), min_size=4, max_size=4),
    jack=st.sampled_from([0, -10, 5]),
    ties=st.sampled_from(["play_on", "share"]),
)
def test_default_moon_choice_property(scores: list[int], jack: int, ties: str) -> None:
    """Never add when that ends the game with the shooter not winning (the engine's own
    ``add_unless_losing`` rule, R4.4); when adding does not end the game, add exactly when the
    shooter then leads (the margins are equal either way, so only the game's length differs)."""
    base = moon_view((0, 0, 0, 0), jack_of_diamonds=jack)
    view = dataclasses.replace(base, scores=tuple(scores), rules=base.rules.replace(ties=ties))
    choice = RandomBot(seed=0).choose_moon(view)
    won = [view.won(s).mask for s in range(4)]
    engine = score_round(won, view.tricks_won, view.rules.replace(moon="add_unless_losing"), view.scores)
    if engine.moon_choice == "subtract":
        assert choice == "subtract"
        return
    m = margins(view)
    assert m["add"] == m["subtract"]
    add_totals = [t + d for t, d in zip(view.scores, engine.scores, strict=True)]
    if view.rules.game_winners(add_totals) is not None:
        assert choice == "add"  # adding ends the game and the shooter wins it
    else:
        assert choice == ("add" if m["add"] > 0 else "subtract")


# --- Bot.act: the one entry point of every driver --------------------------------------------

ACTING = ["random", "heuristic", "easy", SEARCH_TINY, f"{SEARCH_TINY},tree=1,follow=4", f"{SEARCH_TINY},read=1",
          "neural"]
if importlib.util.find_spec("pyspiel") is not None:
    ACTING.append("openspiel_ismcts:simulations=20")


def test_every_registered_bot_is_exercised_by_act() -> None:
    """``ACTING`` holds a spec of every bot of the registry (levels are registry bots too)."""
    assert {spec.partition(":")[0] for spec in ACTING} | {"openspiel_ismcts"} >= set(BOT_NAMES)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 130))
def test_act_returns_a_legal_pass_or_play(seed: int, steps: int) -> None:
    """R2.1, R3: at a random point of a game (found through ``actors()``, ``legal_actions()``
    and ``apply()`` only), ``Bot.act`` of every registered bot, for every seat that may act,
    is a ``Pass`` or ``Play`` of that seat among its legal actions."""
    game = Game(Rules(target=60), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        seat = rng.choice(game.actors())
        game.apply(rng.choice(list(game.legal_actions(seat))))
    for spec in ACTING:
        for seat in game.actors():
            action = make_bot(spec, seed=seed).act(View.of(game, seat))
            assert isinstance(action, (Pass, Play)) and action.seat == seat
            assert action in game.legal_actions(seat), (spec, action)


@pytest.mark.parametrize("spec", ACTING)
def test_act_returns_the_shooters_moon_choice(spec: str) -> None:
    """R4.4 ``shooter_chooses``: once seat 0 has taken every point, ``Bot.act`` answers the
    moon decision with a legal ``Moon`` of seat 0."""
    rules = Rules(moon="shooter_chooses", pass_cycle=("hold",))  # seat 0 keeps every club
    game = Game(rules, seed=2, deals=[[suit("C"), suit("D"), suit("H"), suit("S")]])
    while game.round.phase is Phase.PLAYING:
        (seat,) = game.actors()
        legal = list(game.legal_actions(seat))  # in card order
        game.apply(legal[-1] if seat == 0 else legal[0])
    assert game.round.phase is Phase.MOON_CHOICE and game.actors() == (0,)
    action = make_bot(spec, seed=1).act(View.of(game, 0))
    assert isinstance(action, Moon) and action in game.legal_actions(0)
