"""Property tests over random rule options and 3-6 players (the rule book R1-R5), and agreement of the
rollout kernel (:mod:`hearts.kernel`) with the engine (:class:`hearts.Round`)."""

from __future__ import annotations

import random
from collections.abc import Callable

from helpers import random_step
from helpers import round_state as snapshot
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Card, CardSet, Game, IllegalPlay, Phase, Round, Rules
from hearts.actions import Moon, Pass, Play
from hearts.bots.policies import defender_card, greedy_policy, shooter_card
from hearts.cards import HEARTS, JACK_OF_DIAMONDS, QUEEN_OF_SPADES, cards_of
from hearts.kernel import Rollout, play_out, playout, random_round
from hearts.mechanics import LegalConfig, MoonChoice, RoundResult
from hearts.round import deal_hands

# --- strategies ----------------------------------------------------------------------------


@st.composite
def any_rules(draw: st.DrawFn, *, target: int | None = None) -> Rules:
    """Random valid rule options of the rule book for 3-6 players (Black Maria's 2♣ out for
    three, R1.2, and its spades, R4.5, among them)."""
    players = draw(st.integers(3, 6))
    hand_size = Rules(players=players).hand_size
    steps: list[str | int] = ["left", "right", "hold", *range(players)]
    if players % 2 == 0:
        steps.append("across")
    cycle = draw(st.none() | st.lists(st.sampled_from(steps), min_size=1, max_size=5).map(tuple))
    return Rules(
        players=players,
        pass_count=draw(st.integers(0, min(4, hand_size - 1))),
        pass_cycle=cycle,
        first_lead=draw(st.sampled_from(["lowest_club", "any_club"])),
        points_on_first_trick=draw(st.booleans()),
        must_break_hearts=draw(st.booleans()),
        queen_breaks_hearts=draw(st.booleans()),
        queen_lead=draw(st.sampled_from(["anytime", "after_break"])),
        lead_hearts_instead_of_queen=draw(st.booleans()),
        jack_of_diamonds=draw(st.sampled_from([0, -10, 7])),
        no_tricks_bonus=draw(st.sampled_from([0, -5, 3])),
        moon=draw(
            st.sampled_from(["add_to_others", "subtract_from_self", "shooter_chooses", "add_unless_losing"])
        ),
        target=target if target is not None else draw(st.integers(1, 150)),
        ties=draw(st.sampled_from(["play_on", "share"])),
        removed_for_three=draw(st.sampled_from(["two_of_diamonds", "two_of_clubs"])) if players == 3 else "two_of_diamonds",
        spade_penalties=draw(st.booleans()),
    )


# --- helpers -------------------------------------------------------------------------------


SPADE_PENALTIES = {Card.parse("KS"): 10, Card.parse("AS"): 7}
"""R4.5: Black Maria's other two spades."""


def card_points(c: Card, spades: bool = False) -> int:
    """R4.1 (and R4.5 with ``spades``), written out here, not taken from the engine."""
    if spades and c in SPADE_PENALTIES:
        return SPADE_PENALTIES[c]
    return 13 if c == QUEEN_OF_SPADES else int(c.suit == HEARTS)


def expected_result(r: Round, choice: MoonChoice | None) -> tuple[tuple[int, ...], int | None, str | None]:
    """R4 scores computed here, independently of score_round, from the cards each seat won."""
    rules, n = r.rules, r.players
    won = [list(r.won_cards(s)) for s in range(n)]
    points = [sum(card_points(c, rules.spade_penalties) for c in w) for w in won]
    jd = [rules.jack_of_diamonds if JACK_OF_DIAMONDS in w else 0 for w in won]
    whole = 43 if rules.spade_penalties else 26  # R4.5: the round's points, and the moon's worth
    shooters = [s for s in range(n) if points[s] == whole]
    if not shooters:
        bonus = [rules.no_tricks_bonus if r.tricks_won[s] == 0 else 0 for s in range(n)]
        return tuple(points[s] + jd[s] + bonus[s] for s in range(n)), None, None
    (shooter,) = shooters
    add = [(0 if s == shooter else whole) + jd[s] for s in range(n)]
    sub = [(-whole if s == shooter else 0) + jd[s] for s in range(n)]
    if rules.moon == "add_to_others":
        choice = "add"
    elif rules.moon == "subtract_from_self":
        choice = "subtract"
    elif rules.moon == "add_unless_losing":
        totals = [b + a for b, a in zip(r.scores_before, add, strict=True)]
        low = min(totals)
        lowest = [s for s in range(n) if totals[s] == low]
        ends = max(totals) >= rules.target and (len(lowest) == 1 or rules.ties == "share")
        choice = "subtract" if ends and shooter not in lowest else "add"
    return tuple(add if choice == "add" else sub), shooter, choice


def playing_position(
    rules: Rules, seed: int, plays: int, rng: random.Random, scores_before: tuple[int, ...] | None = None
) -> Round | None:
    """A round dealt from ``seed``, passed at random, then up to ``plays`` random legal cards;
    ``None`` when it is no longer in its play phase."""
    r = Round.deal(rules, seed=seed, scores_before=scores_before)
    random_pass(r, rng)
    for _ in range(plays):
        if r.phase is not Phase.PLAYING:
            break
        r.apply(rng.choice(list(r.legal_actions(r.actors()[0]))))
    return r if r.phase is Phase.PLAYING else None


def random_pass(r: Round, rng: random.Random) -> None:
    while r.phase is Phase.PASSING:
        seat = rng.choice(r.actors())
        r.apply(Pass(seat, rng.sample(list(r.hand(seat)), r.rules.pass_count)))


# --- random play ---------------------------------------------------------------------------


@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1), round_number=st.integers(0, 7))
@settings(max_examples=150, deadline=None)
def test_r3_r4_random_legal_play_whole_round(rules: Rules, seed: int, round_number: int) -> None:
    """R1-R4 property: random legal play never raises; an illegal card is refused and changes
    nothing; every card of the deck is played exactly once; 26 points (43 with R4.5's
    spades); scores per R4."""
    rng = random.Random(seed)
    before = tuple(rng.randrange(-30, rules.target + 30) for _ in range(rules.players))
    r = Round.deal(rules, seed=seed, round_number=round_number, scores_before=before)
    assert r.pass_offset == rules.pass_offset(round_number)  # R2.2
    random_pass(r, rng)
    while r.phase is Phase.PLAYING:
        legal = r.legal_plays()
        mover = r.to_move
        assert mover is not None and legal and legal <= r.hand(mover)
        illegal = [c for c in r.hand(mover) if c not in legal]
        if illegal and rng.random() < 0.3:
            state = snapshot(r)
            try:
                r.play(rng.choice(illegal))
            except IllegalPlay:
                pass
            else:
                raise AssertionError("an illegal card was accepted")
            assert snapshot(r) == state
        r.play(rng.choice(list(legal)), mover)
    choice: MoonChoice | None = None
    if r.phase is Phase.MOON_CHOICE:
        assert rules.moon == "shooter_chooses"
        assert r.to_move is not None
        made: MoonChoice = "add" if rng.random() < 0.5 else "subtract"
        r.apply(Moon(r.to_move, made))
        choice = made
    assert r.phase is Phase.OVER and r.result is not None
    deck = cards_of(rules.deck_mask)
    assert sorted(r.plays) == deck  # R1.2: every card exactly once
    assert len(r.tricks) == rules.hand_size
    union = 0
    for s in range(rules.players):
        m = r.won_cards(s).mask
        assert not union & m
        union |= m
    assert union == rules.deck_mask
    res = r.result
    whole = 43 if rules.spade_penalties else 26
    assert sum(res.points) == whole  # R4.1, R4.5
    scores, shooter, moon = expected_result(r, choice)
    assert res.scores == scores
    assert res.shooter == shooter and res.moon_choice == moon
    # The sums of R4: the round's points plus bonuses, or the moon's per other seat / minus it.
    jd = rules.jack_of_diamonds
    if shooter is None:
        assert sum(res.scores) == whole + jd + rules.no_tricks_bonus * r.tricks_won.count(0)
    elif moon == "add":
        assert sum(res.scores) == whole * (rules.players - 1) + jd
    else:
        assert sum(res.scores) == -whole + jd


@given(rules=any_rules(target=60), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15, deadline=None)
def test_r5_random_games_complete(rules: Rules, seed: int) -> None:
    """R5 property: random games under random options end; totals are the sum of round scores;
    the winners are the lowest totals, at the target."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(50_000):
        if game.is_over:
            break
        r = game.round
        seat = rng.choice(game.actors())
        if r.phase is Phase.PASSING:
            game.apply(Pass(seat, rng.sample(list(r.hand(seat)), rules.pass_count)))
        elif r.phase is Phase.MOON_CHOICE:
            game.apply(Moon(seat, rng.choice(["add", "subtract"])))
        else:
            game.apply(Play(seat, rng.choice(list(r.legal_plays()))))
    assert game.is_over and game.winners
    totals = [sum(res.scores[s] for res in game.results) for s in range(rules.players)]
    assert game.totals == totals
    assert max(totals) >= rules.target
    assert set(game.winners) == {s for s in range(rules.players) if totals[s] == min(totals)}
    assert [r.pass_offset for r in game.rounds] == [rules.pass_offset(k) for k in range(len(game.rounds))]


# --- clone ---------------------------------------------------------------------------------


@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 80))
@settings(max_examples=60, deadline=None)
def test_round_clone_is_independent(rules: Rules, seed: int, steps: int) -> None:
    """R3 property: playing a clone to the end does not change the original; replaying the same
    actions on the original then gives the same final state."""
    rng = random.Random(seed)
    r = Round.deal(rules, seed=seed)
    for _ in range(steps):
        if r.is_over:
            break
        random_step(r, rng)
    state = snapshot(r)
    c = r.clone()
    assert snapshot(c) == state
    rng_clone = random.Random(seed + 1)
    while not c.is_over:
        random_step(c, rng_clone)
    assert snapshot(r) == state  # the original did not move
    rng_orig = random.Random(seed + 1)
    while not r.is_over:
        random_step(r, rng_orig)
    assert snapshot(r) == snapshot(c)


# --- the kernel against the engine ---------------------------------------------------------


def engine_finish(r: Round, rng: random.Random, choice: MoonChoice) -> None:
    """Finish ``r`` choosing as the kernel does: the k-th lowest legal card, k = int(u * count)."""
    while r.phase is Phase.PLAYING:
        legal = list(r.legal_actions(r.actors()[0]))  # in card order
        r.apply(legal[int(rng.random() * len(legal))])
    if r.phase is Phase.MOON_CHOICE:
        r.apply(Moon(r.actors()[0], choice))


@given(
    rules=any_rules(),
    seed=st.integers(0, 2**32 - 1),
    plays=st.integers(0, 60),
    choice=st.sampled_from(["add", "subtract"]),
)
@settings(max_examples=80, deadline=None)
def test_kernel_playout_agrees_with_engine(rules: Rules, seed: int, plays: int, choice: MoonChoice) -> None:
    """R3/R4: from random positions, kernel.playout and kernel.play_out finish the round exactly
    as the engine does with the same random choices (same won cards, tricks and scores)."""
    rng = random.Random(seed)
    before = tuple(rng.randrange(0, rules.target + 30) for _ in range(rules.players))
    r = playing_position(rules, seed, plays, rng, before)
    if r is None:
        return
    state = snapshot(r)
    kernel_result = playout(r, random.Random(seed), choice)
    assert snapshot(r) == state  # playout works on a copy
    # The bare-mask kernel from the public state.
    n = r.players
    hands = [r.hand(s).mask for s in range(n)]
    won = [r.won_cards(s).mask for s in range(n)]
    tricks_won = list(r.tricks_won)
    trick = r.current_trick
    # Seat-by-seat policies that are all uniformly random play the very same cards.
    by_seat = (hands[:], won[:], tricks_won[:])
    play_out(by_seat[0], trick.leader, [int(c) for c in trick.cards], r.hearts_broken, r.tricks_played == 0,
             by_seat[1], by_seat[2], r.hand_size - r.tricks_played, LegalConfig(rules), random.Random(seed),
             Rollout((None,) * n))
    play_out(
        hands,
        trick.leader,
        [int(c) for c in trick.cards],
        r.hearts_broken,
        r.tricks_played == 0,
        won,
        tricks_won,
        r.hand_size - r.tricks_played,
        LegalConfig(rules),
        random.Random(seed),
    )
    engine = r.clone()
    engine_finish(engine, random.Random(seed), choice)
    assert engine.result is not None
    assert hands == [0] * n
    assert won == [engine.won_cards(s).mask for s in range(n)]
    assert (by_seat[1], by_seat[2]) == (won, tricks_won)
    assert tuple(tricks_won) == engine.tricks_won
    assert kernel_result == engine.result


@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1), round_number=st.integers(0, 7))
@settings(max_examples=80, deadline=None)
def test_kernel_random_round_agrees_with_engine(rules: Rules, seed: int, round_number: int) -> None:
    """R1-R4: kernel.random_round equals the engine driven by the same random numbers: the same
    deal (R1.3), passes of the k-th lowest remaining card, plays of the k-th lowest legal card,
    the moon choice 'add', and scores from 0-0."""
    rng = random.Random(seed)
    result = random_round(rules, rng, round_number)
    rng2 = random.Random(seed)
    r = Round(rules, deal_hands(rules, rng2), round_number=round_number)
    if r.phase is Phase.PASSING:
        for s in range(rules.players):
            remaining = list(r.hand(s))
            chosen = [remaining.pop(int(rng2.random() * len(remaining))) for _ in range(rules.pass_count)]
            r.apply(Pass(s, chosen))
    engine_finish(r, rng2, "add")
    assert r.result is not None
    assert result == r.result
    assert isinstance(result, RoundResult)
    assert sum(result.points) == rules.round_points  # R4.1, R4.5
    assert rng.random() == rng2.random()  # the same random numbers were used, no more


def test_kernel_random_round_fixed_seeds() -> None:
    """R4: fixed kernel rounds for each table size score as R4.1 and R4.4 (default rules)."""
    for players in (3, 4, 5, 6):
        rules = Rules(players=players)
        for seed in range(20):
            result = random_round(rules, random.Random(seed))
            assert sum(result.points) == 26
            assert len(result.scores) == players
            assert sum(result.tricks_won) == rules.hand_size
            if result.shooter is None:
                assert result.scores == result.points
            else:
                assert result.scores == tuple(0 if s == result.shooter else 26 for s in range(players))


def test_cardset_roundtrip_of_deck() -> None:
    """R1.2: the deck of each table size: 52, 51, 50, 48 cards, all hearts and the Q♠ in it."""
    for players, size in ((3, 51), (4, 52), (5, 50), (6, 48)):
        deck = CardSet.from_mask(Rules(players=players).deck_mask)
        assert len(deck) == size
        assert sum(card_points(c) for c in deck) == 26
        assert len(deck) % players == 0


@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1), plays=st.integers(0, 40))
@settings(max_examples=80, deadline=None)
def test_kernel_moon_rollouts_play_legal_cards_to_the_end(rules: Rules, seed: int, plays: int) -> None:
    """R3/R4: rollouts where a moon shooter and its defenders play (``shoot_from`` points) choose
    only legal cards and finish the round: every card taken once, tricks and points complete."""
    rng = random.Random(seed)
    r = playing_position(rules, seed, plays, rng)
    if r is None:
        return
    n = r.players
    hands = [r.hand(s).mask for s in range(n)]
    won = [r.won_cards(s).mask for s in range(n)]
    tricks_won = list(r.tricks_won)
    trick = r.current_trick
    cfg = LegalConfig(rules)
    chosen: list[tuple[int, int]] = []

    def checked(legal: int, cards: list[int], players: int, rand: Callable[[], float], gone: bool) -> int:
        card = greedy_policy(legal, cards, players, rand, gone)
        chosen.append((legal, card))
        return card

    deck = rules.deck_mask
    rollout = Rollout((checked,) * n, rng.choice([1, 10, 16]), shooter_card, defender_card)
    play_out(hands, trick.leader, [int(c) for c in trick.cards], r.hearts_broken, r.tricks_played == 0,
             won, tricks_won, r.hand_size - r.tricks_played, cfg, random.Random(seed), rollout)
    assert all(legal >> card & 1 for legal, card in chosen)
    assert hands == [0] * n
    assert sum(tricks_won) == r.hand_size
    total = 0
    for w in won:
        assert not total & w, "a card was taken twice"
        total |= w
    assert total == deck


@given(rules=any_rules(), seed=st.integers(0, 2**32 - 1), plays=st.integers(0, 40))
@settings(max_examples=40, deadline=None)
def test_kernel_random_seats_neither_shoot_nor_defend(rules: Rules, seed: int, plays: int) -> None:
    """R4.4 in rollouts: seats that play at random (policy ``None``) go on playing at random
    when another seat could shoot the moon, so a rollout of random seats with ``shoot_from``
    is the very rollout without it."""
    r = playing_position(rules, seed, plays, random.Random(seed))
    if r is None:
        return
    n = r.players
    outcomes = []
    for shoot_from in (0, 1):
        hands = [r.hand(s).mask for s in range(n)]
        won = [r.won_cards(s).mask for s in range(n)]
        tricks_won = list(r.tricks_won)
        trick = r.current_trick
        rollout = Rollout((None,) * n, shoot_from, shooter_card, defender_card)
        play_out(hands, trick.leader, [int(c) for c in trick.cards], r.hearts_broken, r.tricks_played == 0,
                 won, tricks_won, r.hand_size - r.tricks_played, LegalConfig(rules), random.Random(seed), rollout)
        outcomes.append((won, tricks_won))
    assert outcomes[0] == outcomes[1]
