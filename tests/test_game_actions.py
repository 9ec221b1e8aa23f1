"""Whole games driven only through ``Game.actors()``, ``legal_actions()`` and ``apply()`` (the
one driver loop of every front end, docs/architecture.md), checked step by step against the round's own
API, and taken back to the start with ``undo()``.

R1.1 (3–6 players), R2.1 (passing is simultaneous: every seat yet to pass may act), R3 (the
legal plays), R4.4 (the moon choice), R5 (the game to the target), R6 (every preset).
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearts import Game, GameOver, IllegalAction, Phase, Rules
from hearts.actions import Action, Moon, Pass, Play, from_dict, from_json, to_dict, to_json
from hearts.mechanics import MOON_CHOICES
from hearts.rules import PRESETS
from hearts.view import View


def fingerprint(game: Game) -> tuple[Any, ...]:
    """What a game is at one moment: its rounds, every seat's hand and pass, the plays, the
    totals and whose turn it is."""
    r = game.round
    n = r.players
    return (
        len(game.rounds),
        r.phase,
        game.actors(),
        tuple(game.totals),
        tuple(game.score_history),
        game.winners,
        tuple(r.hand(s).mask for s in range(n)),
        tuple(r.passed(s) for s in range(n)),
        r.plays,
        r.tricks_won,
        game.history,
    )


def views(game: Game) -> list[dict[str, Any]]:
    """Every seat's view (R7) as JSON-ready data."""
    return [View.of(game, s).to_dict() for s in range(game.rules.players)]


def check_actions(game: Game) -> None:
    """The game's actors and legal actions agree with the round's own API."""
    r = game.round
    actors = game.actors()
    if game.is_over:
        assert actors == ()
        return
    if r.phase is Phase.PASSING:  # R2.1: every seat yet to pass may act, in any order
        assert actors == r.seats_to_pass() and actors
        for seat in actors:
            legal = game.legal_actions(seat)
            assert len(legal) > 0
            mine = Pass(seat, list(r.hand(seat))[: r.rules.pass_count])
            assert mine in legal
            assert Pass(seat, list(r.hand((seat + 1) % r.players))[: r.rules.pass_count]) not in legal
    elif r.phase is Phase.PLAYING:  # R3
        assert actors == (r.to_move,)
        (seat,) = actors
        legal = game.legal_actions(seat)
        assert set(legal) == {Play(seat, c) for c in r.legal_plays()}
        assert len(legal) == len(r.legal_plays())
        assert all(Play(seat, c) not in legal for c in r.hand(seat) if c not in r.legal_plays())
    else:  # R4.4
        assert r.phase is Phase.MOON_CHOICE and actors == (r.to_move,)
        (seat,) = actors
        assert set(game.legal_actions(seat)) == {Moon(seat, c) for c in MOON_CHOICES}
    for seat in set(range(r.players)) - set(actors):  # nobody else may do anything
        others = game.legal_actions(seat)
        assert len(others) == 0 and not list(others)


def refused_unchanged(game: Game, rng: random.Random) -> None:
    """An action of a seat that may not act, or a card it may not play, is refused with an
    ``IllegalAction`` and changes nothing."""
    r = game.round
    actors = game.actors()
    before = fingerprint(game)
    bad: list[Action] = [Play(s, c) for s in range(r.players) if s not in actors for c in r.hand(s)]
    if r.phase is Phase.PLAYING:
        (seat,) = actors
        bad += [Play(seat, c) for c in r.hand(seat) if c not in r.legal_plays()]
    if not bad:
        return
    with pytest.raises(IllegalAction):
        game.apply(rng.choice(bad))
    assert fingerprint(game) == before


def play_game(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    start = views(game)
    trail = [fingerprint(game)]
    while not game.is_over:
        check_actions(game)
        if rng.random() < 0.05:
            refused_unchanged(game, rng)
        seat = rng.choice(game.actors())
        game.apply(rng.choice(list(game.legal_actions(seat))))
        trail.append(fingerprint(game))
    check_actions(game)
    with pytest.raises(GameOver):
        game.apply(Play(0, "2C"))
    assert max(game.totals) >= rules.target and game.winners  # R5.1
    assert game.score_history[-1] == tuple(game.totals)
    trail.pop()
    while game.history:  # undo back to the start, through every step taken
        game.undo()
        assert fingerprint(game) == trail.pop()
    assert not trail and views(game) == start


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [3, 4, 5, 6])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_whole_games_through_actions_and_undo(players: int, preset: str, seed: int) -> None:
    """R1.1, R2.1, R3, R5, R6: a random game of every table size and preset, driven only by
    ``actors()``, ``legal_actions()`` and ``apply()``, agrees with the round at every step;
    ``undo()`` walks it back through every state to exactly where it started. (A preset that
    fixes its table size, ``black_maria``'s three, R1.2, is played at that size only.)"""
    if PRESETS[preset].get("players", players) != players:
        return
    play_game(Rules.preset(preset, players=players), seed)


def test_moon_choice_through_actions() -> None:
    """R4.4 ``shooter_chooses``: the shooter is the only actor, with exactly two legal actions;
    undoing the choice asks it again."""
    suits = [" ".join(rank + s for rank in "23456789TJQKA") for s in "CDHS"]
    game = Game(Rules(moon="shooter_chooses", pass_cycle=("hold",), target=50), seed=1, deals=[suits])
    while game.round.phase is Phase.PLAYING:  # seat 0 holds every club and takes every trick
        check_actions(game)
        (seat,) = game.actors()
        game.apply(max(game.legal_actions(seat), key=lambda a: a.card) if seat == 0 else
                   next(iter(game.legal_actions(seat))))
    check_actions(game)
    asked = fingerprint(game)
    game.apply(Moon(0, "subtract"))
    assert game.score_history[0] == (-26, 0, 0, 0)
    assert game.undo() == Moon(0, "subtract") and fingerprint(game) == asked


ACTIONS = st.one_of(
    st.builds(Play, st.integers(0, 5), st.integers(0, 51)),
    st.builds(Pass, st.integers(0, 5), st.lists(st.integers(0, 51), max_size=16, unique=True)),
    st.builds(Moon, st.integers(0, 5), st.sampled_from(MOON_CHOICES)),
)


@settings(max_examples=300, deadline=None)
@given(action=ACTIONS, order=st.randoms(use_true_random=False))
def test_actions_are_frozen_hashable_values_with_one_json_text(action: Action, order: random.Random) -> None:
    """R2.1, R3, R4.4: an action is a frozen, hashable value, equal to any action of the same
    seat and cards (a pass's cards in any order); the codec gives it one text, read back equal."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        action.seat = 1  # type: ignore[misc]
    if isinstance(action, Pass):
        shuffled = list(action.cards)
        order.shuffle(shuffled)
        same: Action = Pass(action.seat, shuffled)
    else:
        same = from_dict(dict(to_dict(action)))
    assert same == action and hash(same) == hash(action) and len({same, action}) == 1
    text = to_json(action)
    assert to_json(same) == text and from_json(text) == action and from_dict(json.loads(text)) == action
