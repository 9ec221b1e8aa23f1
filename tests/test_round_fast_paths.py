"""The engine's fast paths change no rule (issue 26, item 3): ``Round.apply`` of an action
handed out by ``legal_actions`` and of an equal one built by hand, and ``Round.play`` of its
card, make the same round; the mover's legal plays, kept up to date by every play, are what
``legal_mask`` says; ``legal_actions`` is what the seat may do when asked (its plays as a list,
its passes as a lazy live view); and a refused action (wrong seat, wrong phase, a card that may
not be played, a forged ``Play`` that was never handed out) raises an ``IllegalAction`` and
leaves the round identical, pickled."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts import Phase, Round, Rules
from hearts.actions import PLAYS, Action, Moon, Pass, Play
from hearts.cards import Card, CardSet
from hearts.errors import IllegalAction
from hearts.mechanics import legal_mask
from hearts.round import LegalPasses

RULES = st.builds(
    Rules,
    players=st.sampled_from([3, 4, 5, 6]),
    moon=st.sampled_from(["add_to_others", "shooter_chooses"]),
    first_lead=st.sampled_from(["lowest_club", "any_club"]),
    points_on_first_trick=st.booleans(),
    must_break_hearts=st.booleans(),
    queen_breaks_hearts=st.booleans(),
    queen_lead=st.sampled_from(["anytime", "after_break"]),
    lead_hearts_instead_of_queen=st.booleans(),
)


def step(r: Round, rng: random.Random) -> Action:
    """One random legal action of the first actor, from ``legal_actions``."""
    seat = r.actors()[0]
    if r.phase is Phase.PASSING:
        return Pass(seat, rng.sample(list(r.hand(seat)), r.rules.pass_count))
    return rng.choice(list(r.legal_actions(seat)))


def cards(actions: Iterable[Action]) -> list[Card]:
    """The cards of plays (and nothing else may be there)."""
    plays = list(actions)
    assert all(isinstance(a, Play) for a in plays), plays
    return [a.card for a in plays if isinstance(a, Play)]


def check_legal_plays(r: Round) -> None:
    """In the play phase, the kept mask is the rule function's answer for the mover (R3)."""
    if r.phase is not Phase.PLAYING:
        return
    mover = r.to_move
    assert mover is not None
    led = r.current_trick.led_suit
    want = legal_mask(r.hand(mover).mask, -1 if led is None else led, r.tricks_played == 0, r.hearts_broken, r._cfg)
    assert r.legal_plays().mask == want
    assert cards(r.legal_actions(mover)) == list(CardSet.from_mask(want))


@settings(max_examples=60, deadline=None)
@given(rules=RULES, seed=st.integers(0, 10_000))
def test_handed_out_built_and_played_cards_make_the_same_round(rules: Rules, seed: int) -> None:
    """R2-R4: three rounds from one deal, one applying the actions ``legal_actions`` hands out,
    one equal actions built anew (``Play(seat, card)``), one ``play(card)`` / ``pass_cards``:
    after every step they are the same round (pickled), and the mover's legal plays are
    ``legal_mask``'s."""
    rng = random.Random(seed)
    a = Round.deal(rules, seed, round_number=seed % 4)
    b = Round.deal(rules, seed, round_number=seed % 4)
    c = Round.deal(rules, seed, round_number=seed % 4)
    while not a.is_over:
        check_legal_plays(a)
        action = step(a, rng)
        a.apply(action)
        if isinstance(action, Play):
            built = Play(action.seat, str(action.card))
            assert built == action and built is not PLAYS[action.seat][action.card]
            b.apply(built)
            c.play(action.card)
        elif isinstance(action, Pass):
            b.apply(Pass(action.seat, list(action.cards)))
            c.pass_cards(action.seat, list(action.cards))
        else:
            b.apply(Moon(action.seat, action.choice))
            c.choose_moon(action.seat, action.choice)
        for other in (b, c):
            assert pickle.dumps(other) == pickle.dumps(a)
    assert a.result == b.result == c.result


def refusals(r: Round, rng: random.Random) -> list[object]:
    """Actions the round must refuse now: other seats' plays, the mover's illegal cards, plays
    and passes out of their phase, passes of cards not held or of the wrong count, moon
    choices out of turn, forged plays (a Play's fields set past its checks), non-actions."""
    n, mover, hands = r.players, r.to_move, [r.hand(s) for s in range(r.players)]
    bad: list[object] = [Play(s, c) for s in range(n) if s != mover for c in list(hands[s])[:3]]
    if r.phase is Phase.PLAYING:
        assert mover is not None
        bad += [Play(mover, c) for c in hands[mover] if c not in r.legal_plays()]
        bad += [Play(mover, c) for s in range(n) if s != mover for c in list(hands[s])[:2]]
        bad += [Pass(mover, list(hands[mover])[: r.rules.pass_count])]
        legal = next(iter(r.legal_plays()))
        illegal = [str(c) for c in hands[mover] if c not in r.legal_plays()][:1]
        forged_fields = [(mover, 60), (mover, "1X"), *((mover, text) for text in illegal)]
        if mover in (0, 1):
            forged_fields.append((bool(mover), legal))  # a seat that is a bool (R1.4)
        for forged_seat, forged_card in forged_fields:
            forged = Play(mover, legal)
            object.__setattr__(forged, "seat", forged_seat)
            object.__setattr__(forged, "card", forged_card)
            bad.append(forged)
    if r.phase is Phase.PASSING:
        seat = rng.choice(r.seats_to_pass())
        k = r.rules.pass_count
        bad += [Pass(seat, list(hands[seat])[: k - 1]), Pass(seat, list(hands[(seat + 1) % n])[:k])]
        bad += [Play(seat, next(iter(hands[seat])))]
        done = [s for s in range(n) if r.passed(s) is not None]
        bad += [Pass(s, list(hands[s])[:k]) for s in done]
    if r.phase is not Phase.MOON_CHOICE:
        bad += [Moon(s, "add") for s in range(n)]
    return [*bad, "QS", None, ("play", 0, "QS")]


@settings(max_examples=80, deadline=None)
@given(rules=RULES, seed=st.integers(0, 10_000), steps=st.integers(0, 70))
def test_a_refused_action_leaves_the_round_identical(rules: Rules, seed: int, steps: int) -> None:
    """R1.4, R2.1, R3, R4.4: at a random position, every refused action raises an
    IllegalAction naming a rule, and the round is the same, pickled, as before it."""
    rng = random.Random(seed)
    r = Round.deal(rules, seed, round_number=seed % 4)
    for _ in range(steps):
        if r.is_over:
            break
        r.apply(step(r, rng))
    if r.is_over:
        return
    before = pickle.dumps(r)
    for action in refusals(r, rng):
        with pytest.raises(IllegalAction, match=r"R\d"):
            r.apply(action)  # type: ignore[arg-type]
        assert pickle.dumps(r) == before, action


def test_legal_actions_are_what_the_seat_may_do_when_asked() -> None:
    """R2.1, R3: the mover's legal plays are a plain list of the shared PLAYS values, taken
    when asked (a later play leaves it as it was); ``in`` is the legality test, for built plays too;
    the other seats get an empty list; a seat that has to pass gets a live lazy view."""
    r = Round.deal(Rules(), seed=3, round_number=3)  # no pass: the 2C leads
    mover = r.to_move
    assert mover is not None
    legal = r.legal_actions(mover)
    assert type(legal) is list and legal == [PLAYS[mover][0]] and legal[0] is PLAYS[mover][0]
    assert Play(mover, "2C") in legal and Play(mover, "3C") not in legal and Play((mover + 1) % 4, "2C") not in legal
    assert "2C" not in legal and Pass(mover, "2C 3C 4C") not in legal  # type: ignore[comparison-overlap]
    other = r.legal_actions((mover + 1) % 4)
    assert other == [] and not other and len(other) == 0 and Play((mover + 1) % 4, "3C") not in other
    r.apply(legal[0])
    assert legal == [PLAYS[mover][0]]  # taken when asked
    nxt = r.legal_actions(r.to_move)  # type: ignore[arg-type]
    assert cards(nxt) == list(r.legal_plays())
    with pytest.raises(IllegalAction, match=r"R1\.4"):
        r.legal_actions(None)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match=r"R1\.4"):
        r.legal_actions(True)
    passing = Round.deal(Rules(), seed=3)
    view = passing.legal_actions(0)
    assert isinstance(view, LegalPasses) and len(view) == 286
    first = next(iter(view))
    assert first in view
    passing.apply(first)
    assert len(view) == 0 and first not in view  # live: seat 0 has passed
