"""What a seat may know (the rule book R7): :class:`hearts.view.View` at many moments of random games.

Two kinds of checks: every field of a view against the game (its own hand, passes, legal plays,
tricks, points, voids, hand sizes, scores, pass direction), and that the view reveals no other
seat's unplayed card: (a) no card outside what the seat has seen appears anywhere in the view,
and (b) swapping two unseen cards between two other seats' deals (and replaying the same
actions) gives exactly the same view.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Card, CardSet, Game, Phase, Round, Rules
from hearts.actions import Moon, Pass, Play
from hearts.cards import HEARTS, QUEEN_OF_SPADES, cards_of
from hearts.round import Trick, deal_hands
from hearts.view import View, cards_text

Action = tuple[Any, ...]

# --- helpers -------------------------------------------------------------------------------


def random_action(game: Game, rng: random.Random) -> Action:
    """Pick one random action: a pass (one seat at a time), a play or a moon choice."""
    r = game.round
    if r.phase is Phase.PASSING:
        seat = rng.choice(r.seats_to_pass())
        return ("pass", seat, tuple(rng.sample(list(r.hand(seat)), game.rules.pass_count)))
    if r.phase is Phase.MOON_CHOICE:
        return ("moon", r.to_move, rng.choice(["add", "subtract"]))
    return ("play", rng.choice(list(r.legal_plays())))


def apply(game: Game, action: Action) -> None:
    if action[0] == "pass":
        game.apply(Pass(action[1], action[2]))
    elif action[0] == "moon":
        game.apply(Moon(action[1], action[2]))
    else:
        game.apply(Play(game.to_move, action[1]))


def moments(game: Game, rng: random.Random, limit: int) -> Iterator[list[Action]]:
    """Play up to ``limit`` random actions, yielding the log before each action and at the end."""
    log: list[Action] = []
    yield log
    while not game.is_over and len(log) < limit:
        action = random_action(game, rng)
        apply(game, action)
        log.append(action)
        yield log


def play_random(game: Game, rng: random.Random, limit: int) -> list[Action]:
    """Play up to ``limit`` random actions; the log of what was played."""
    log: list[Action] = []
    for log in moments(game, rng, limit):  # noqa: B007 - the last log is the whole log
        pass
    return list(log)


def cards_in(value: object) -> Iterator[Card]:
    """Every Card object reachable from a view's field (the rules excluded: they name no hand)."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, CardSet):
        yield from value
    elif isinstance(value, (Rules, str, bytes)):
        return
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from cards_in(getattr(value, f.name))
    elif isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from cards_in(item)
    elif isinstance(value, dict):
        for k, item in value.items():
            yield from cards_in(k)
            yield from cards_in(item)


def expected_voids(tricks: tuple[Trick, ...], players: int) -> tuple[frozenset[int], ...]:
    """Suits a seat has shown it lacks: it played another suit to a trick of that suit."""
    voids: list[set[int]] = [set() for _ in range(players)]
    for t in tricks:
        if not t.cards:
            continue
        led = t.cards[0].suit
        for seat, card in t.plays:
            if card.suit != led:
                voids[seat].add(led)
    return tuple(frozenset(v) for v in voids)


def card_points(card: Card) -> int:
    return 13 if card == QUEEN_OF_SPADES else int(card.suit == HEARTS)


def check_view(game: Game, seat: int) -> View:
    """Check every field of the view of ``seat`` against the game (R7)."""
    r = game.round
    n = r.players
    v = View.of(game, seat)
    assert v.seat == seat and v.players == n
    assert v.rules == game.rules
    assert v.round_number == r.round_number == len(game.rounds) - 1
    assert v.phase is r.phase
    assert v.to_move == r.to_move
    # Own hand; while passing, without the cards already chosen to pass.
    passed = r.passed(seat)
    if r.phase is Phase.PASSING and passed is not None:
        assert v.hand == r.hand(seat) - passed
    else:
        assert v.hand == r.hand(seat)
    # Passing (R2): direction, own pass, received only once every seat has passed (R2.1).
    if r.pass_offset:
        assert v.pass_to == (seat + r.pass_offset) % n
        assert v.pass_from == (seat - r.pass_offset) % n
    else:
        assert v.pass_to is None and v.pass_from is None
    assert v.passed == passed
    assert v.must_pass == (r.phase is Phase.PASSING and passed is None)
    if r.phase is Phase.PASSING or not r.pass_offset:
        assert v.received is None
    else:
        assert v.pass_from is not None
        assert v.received == r.passed(v.pass_from)
        assert v.received is not None and len(v.received) == game.rules.pass_count
    # Legal plays only on its own turn to play.
    if r.phase is Phase.PLAYING and r.to_move == seat:
        assert v.legal == r.legal_plays()
        assert len(v.legal) > 0 and v.legal <= v.hand
        assert v.my_turn
    else:
        assert len(v.legal) == 0
    # Tricks, points, tricks won, voids, hand sizes: computed here from the tricks.
    assert v.trick == r.current_trick
    assert v.tricks == r.tricks
    assert all(t.winner is not None for t in v.tricks)
    points = [0] * n
    won = [0] * n
    for t in v.tricks:
        assert t.winner is not None
        points[t.winner] += sum(card_points(c) for c in t.cards)
        won[t.winner] += 1
    assert v.points_taken == tuple(points)
    assert v.tricks_won == tuple(won)
    voids = expected_voids((*v.tricks, v.trick), n)
    assert v.voids == voids
    for s in range(n):  # a revealed void is true
        assert all(len(r.hand(s).of_suit(suit)) == 0 for suit in voids[s])
    assert v.hand_sizes == tuple(len(r.hand(s)) for s in range(n))
    played = [c for t in (*v.tricks, v.trick) for c in t.cards]
    assert v.played == CardSet(played)
    assert len(played) == len(set(played))
    # Scores and game state.
    assert v.scores == r.scores_before
    if not game.is_over:
        assert v.scores == tuple(game.totals)
    assert v.moon_choice_pending == (r.phase is Phase.MOON_CHOICE and r.to_move == seat)
    assert v.result == r.result
    assert v.game_over == game.is_over
    assert v.winners == game.winners
    # Nothing of another seat's unplayed cards: every card in the view was seen by this seat.
    seen = r.dealt[seat] | (r.received(seat) or CardSet()) | v.played
    leaked = CardSet(set(cards_in(v))) - seen
    assert not leaked, f"seat {seat} sees {leaked}"
    # Derived knowledge: unseen = the others' cards minus what it passed (known to be there).
    others = CardSet.from_mask(0)
    for s in range(n):
        if s != seat:
            others = others | r.hand(s)
    if r.phase is not Phase.PASSING:
        assert v.unseen | v.known_elsewhere == others
    return v


def swap_hidden(game: Game, seat: int, rng: random.Random) -> tuple[int, int, int, int] | None:
    """Two cards of one suit, dealt to two seats other than ``seat``, still held and never
    passed, not the Q♠ nor the lowest club: swapping them in the deal changes nothing ``seat``
    may know (and no legal play made so far). Returns (seat_a, card_a, seat_b, card_b)."""
    r = game.round
    passed = 0
    for s in range(r.players):
        p = r.passed(s)
        if p is not None:
            passed |= p.mask
    excluded = passed | (1 << QUEEN_OF_SPADES) | (1 << r.rules.lowest_club)
    held = [
        [c for c in r.hand(s) if not excluded >> c & 1 and c in r.dealt[s]] if s != seat else []
        for s in range(r.players)
    ]
    options = [
        (a, x, b, y)
        for a in range(r.players)
        for b in range(a + 1, r.players)
        for x in held[a]
        for y in held[b]
        if x.suit == y.suit
    ]
    return rng.choice(options) if options else None


def build(rules: Rules, deals: list[list[int]], log: list[Action]) -> Game:
    game = Game(rules, seed=0, deals=deals)
    for action in log:
        apply(game, action)
    return game


def rules_for(players: int, variant: int) -> Rules:
    moon = ("add_to_others", "shooter_chooses", "subtract_from_self", "add_unless_losing")[variant % 4]
    return Rules(players=players, target=40, moon=moon)  # type: ignore[arg-type]


# --- tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r7_view_fields_at_every_moment(players: int) -> None:
    """R7: at every moment of a random game, every seat's view holds what it may know."""
    rules = rules_for(players, players)
    game = Game(rules, seed=players)
    phases = set()
    for _ in moments(game, random.Random(players), 10_000):
        phases.add(game.phase)
        for seat in range(players):
            check_view(game, seat)
    assert game.is_over
    assert {Phase.PASSING, Phase.PLAYING} <= phases


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(3, 6),
    moves=st.integers(0, 220),
    variant=st.integers(0, 3),
)
@settings(max_examples=60, deadline=None)
def test_r7_view_never_shows_hidden_cards(seed: int, players: int, moves: int, variant: int) -> None:
    """R7 property: after any number of random actions, each seat's view is exactly what it may
    know, and swapping two hidden cards between two other seats' deals leaves it unchanged; the
    private part a server sends the seat (``View.private_of``) is the view's."""
    rules = rules_for(players, variant)
    deals = [deal_hands(rules, random.Random(seed * 31 + k)) for k in range(40)]
    game = Game(rules, seed=0, deals=deals)
    log = play_random(game, random.Random(seed), moves)
    rng = random.Random(seed)
    for seat in range(players):
        v = check_view(game, seat)
        assert View.private_of(game, seat) == v.private_dict()
        swap = swap_hidden(game, seat, rng)
        if swap is None:
            continue
        a, x, b, y = swap
        k = game.round.round_number
        alt = [list(d) for d in deals]
        alt[k][a] ^= (1 << x) | (1 << y)
        alt[k][b] ^= (1 << x) | (1 << y)
        other = build(rules, alt, log)
        assert other.round.hand(a) != game.round.hand(a)  # the hidden layout did change
        assert View.of(other, seat) == v
        assert View.private_of(other, seat) == v.private_dict()


def test_r7_swap_property_is_exercised() -> None:
    """R7: the swap check of the property above really runs (fixed seeds, mid-round)."""
    swaps = 0
    for seed in range(6):
        rules = rules_for(4, seed)
        deals = [deal_hands(rules, random.Random(seed * 31 + k)) for k in range(40)]
        game = Game(rules, seed=0, deals=deals)
        log = play_random(game, random.Random(seed), 8 + seed * 6)
        for seat in range(4):
            swap = swap_hidden(game, seat, random.Random(seed))
            assert swap is not None
            a, x, b, y = swap
            alt = [list(d) for d in deals]
            alt[0][a] ^= (1 << x) | (1 << y)
            alt[0][b] ^= (1 << x) | (1 << y)
            other = build(rules, alt, log)
            assert View.of(other, seat) == View.of(game, seat)
            # ...while the seats that hold the swapped cards do see the difference.
            assert View.of(other, a) != View.of(game, a)
            swaps += 1
    assert swaps == 24


def test_r7_received_only_after_all_passed() -> None:
    """R7/R2.1: a seat sees what it passed at once, what it receives only when all have passed."""
    game = Game(Rules(), seed=21)
    r = game.round
    assert r.pass_offset == 1
    chosen = {s: list(r.hand(s))[-3:] for s in range(4)}
    done: set[int] = set()
    for s in (2, 0, 3):
        game.apply(Pass(s, chosen[s]))
        done.add(s)
        for seat in range(4):
            v = check_view(game, seat)
            assert v.received is None
            assert v.must_pass == (seat not in done)
            assert v.passed == (CardSet(chosen[seat]) if seat in done else None)
            if v.passed is not None:
                assert not v.passed & v.hand  # the chosen cards left the hand shown
    game.apply(Pass(1, chosen[1]))
    for seat in range(4):
        v = check_view(game, seat)
        assert v.received == CardSet(chosen[(seat - 1) % 4])
        assert v.passed == CardSet(chosen[seat])
        assert v.received <= v.hand
        assert v.known_elsewhere == CardSet(chosen[seat])  # R7: it knows where those went
        assert not v.unseen & v.known_elsewhere


def test_r7_voids_revealed() -> None:
    """R7: a seat that fails to follow suit shows a void in the suit led, to every seat."""
    for seed in range(30):
        game = Game(Rules(pass_count=0), seed=seed)
        rng = random.Random(seed)
        while not game.is_over and game.round.round_number == 0:
            r = game.round
            trick = r.current_trick
            mover = r.to_move
            legal = list(r.legal_plays())
            off = [c for c in legal if trick.cards and c.suit != trick.cards[0].suit]
            card = off[0] if off else rng.choice(legal)
            game.apply(Play(game.to_move, card))
            if off:
                assert mover is not None and trick.led_suit is not None
                for seat in range(4):
                    assert trick.led_suit in View.of(game, seat).voids[mover]
                return
    raise AssertionError("no seat failed to follow suit in 30 seeds")


def test_r7_view_is_immutable_snapshot() -> None:
    """R7: a View is frozen, its fields are immutable values, and it does not follow the game."""
    game = Game(Rules(players=4), seed=5)
    rng = random.Random(5)
    for _ in range(20):
        apply(game, random_action(game, rng))
    v = View.of(game, 0)
    text = repr(v)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.hand = CardSet()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.scores = (1, 2, 3, 4)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        v.hand.mask = 0
    for name in ("points_taken", "tricks_won", "hand_sizes", "voids", "scores", "tricks"):
        assert isinstance(getattr(v, name), tuple)
    assert all(isinstance(s, frozenset) for s in v.voids)
    hash(v)  # frozen and made of hashable values
    for _ in range(30):
        if game.is_over:
            break
        apply(game, random_action(game, rng))
    assert repr(v) == text  # unchanged by later play


def test_r7_view_of_bad_seat() -> None:
    """R1.4/R7: there is no view for a seat that does not exist."""
    game = Game(Rules(players=3), seed=1)
    for seat in (-1, 3, True):
        with pytest.raises(ValueError):
            View.of(game, seat)
        with pytest.raises(ValueError):
            View.private_of(game, seat)


def test_r7_view_of_a_round() -> None:
    """R7: View.of also works on a bare Round (not in a game): same knowledge, no winners."""
    r = Round.deal(Rules(players=5), seed=4)
    rng = random.Random(4)
    for s in r.seats_to_pass():
        r.pass_cards(s, rng.sample(list(r.hand(s)), 3))
    for _ in range(17):
        r.play(rng.choice(list(r.legal_plays())))
    for seat in range(5):
        v = View.of(r, seat)
        assert v.hand == r.hand(seat)
        assert v.winners is None and not v.game_over
        assert v.played == CardSet(r.plays)
        seen = r.dealt[seat] | (r.received(seat) or CardSet()) | v.played
        assert CardSet(set(cards_in(v))) <= seen
        assert cards_of(v.unseen.mask) == sorted(
            c for s in range(5) if s != seat for c in r.hand(s) if c not in (r.passed(seat) or CardSet())
        )


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), variant=st.integers(0, 3))
@settings(max_examples=25, deadline=None)
def test_r7_the_public_part_a_server_sends_is_every_seats_public_view(seed: int, players: int, variant: int) -> None:
    """R7 property: at every action of a random game, ``View.public_of`` (what a server sends
    every seat and spectator, the completed tricks' dicts kept from one action to the next and
    begun again each round) equals each seat's :meth:`View.public_dict`; and so does
    ``View.public_after_play`` of the last one whenever the action changed no phase (R2, R3) —
    made again only in what a play changes, and in the tricks taken when it ended one."""
    rules = rules_for(players, variant)
    game = Game(rules, seed=seed % 1000)
    rng, round_of_made = random.Random(seed), None
    made: list[dict[str, Any]] = []
    last: tuple[Any, ...] | None = None
    updated = 0
    while True:
        if game.round is not round_of_made:
            made, round_of_made = [], game.round
        r = game.round
        public = View.public_of(game, made)
        assert all(public == View.of(game, seat).public_dict() for seat in range(players))
        at = (r, r.phase, r.tricks_played, game.is_over)
        if last is not None and last[0] is r and last[1] == at[1] and last[3] == at[3]:
            if last[2] == at[2]:
                assert View.public_after_play(game, last[-1]) == public
            assert View.public_after_play(game, last[-1], made) == public
            updated += last[2] != at[2]
        last = (*at, public)
        if game.is_over or not play_random(game, rng, 1):
            break
    assert game.is_over and updated > 0


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), variant=st.integers(0, 3))
@settings(max_examples=25, deadline=None)
def test_r7_a_seats_private_part_made_again_in_the_play_phase_is_its_private_view(seed: int, players: int, variant: int) -> None:
    """R7 property: at every action of a random game, each seat's ``View.private_after_play``
    of its private dict made at an earlier moment of the same round's play phase (R3: its
    hand and legal plays made again, the rest kept) equals its :meth:`View.private_dict`."""
    game = Game(rules_for(players, variant), seed=seed % 1000)
    rng = random.Random(seed)
    kept: dict[int, tuple[Round, dict[str, Any]]] = {}
    updated = 0
    while True:
        r = game.round
        for seat in range(players):
            private = View.of(game, seat).private_dict()
            assert View.private_of(game, seat) == private
            if r.phase is Phase.PLAYING:
                if seat in kept and kept[seat][0] is r:
                    assert View.private_after_play(game, seat, kept[seat][1]) == private
                    updated += 1
                if seat not in kept or kept[seat][0] is not r or rng.random() < 0.5:
                    kept[seat] = (r, private)  # (else kept from further back)
        if game.is_over or not play_random(game, rng, 1):
            break
    assert updated > 0


@given(st.integers(0, (1 << 52) - 1))
def test_a_views_cards_are_their_text_grouped_by_suit(mask: int) -> None:
    """The cards of a view (a hand, legal plays, a pass) are their text in
    :meth:`CardSet.sorted_by_suit`'s order, for any set of cards."""
    cards = CardSet.from_mask(mask)
    assert cards_text(cards) == [str(c) for c in cards.sorted_by_suit()]


@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), variant=st.integers(0, 3))
@settings(max_examples=25, deadline=None)
def test_r7_a_view_read_back_from_its_dict_is_the_same_view(seed: int, players: int, variant: int) -> None:
    """R7 property: at every action of a random game (every moon rule: a pending choice too),
    each seat's :meth:`View.from_dict` of its :meth:`View.to_dict` (what a client of the
    service plays from) is that seat's view, field for field — nothing more, nothing less."""
    game = Game(rules_for(players, variant), seed=seed % 1000)
    rng = random.Random(seed)
    while True:
        for seat in range(players):
            view = View.of(game, seat)
            assert View.from_dict(view.to_dict()) == view
        if game.is_over or not play_random(game, rng, 1):
            break


def test_r7_a_view_dict_missing_a_field_is_refused_not_guessed() -> None:
    """A dict without one of the view's fields is an error (a ``KeyError`` naming it)."""
    data = View.of(Game(Rules(), seed=1), 0).to_dict()
    del data["hand"]
    with pytest.raises(KeyError, match="hand"):
        View.from_dict(data)
