"""Values round-trip as they print (issue 39): the repr of every value type of the engine —
``Card``, ``CardSet``, the actions, ``Trick``, ``RoundResult``, ``Rules``, ``Seat`` — is Python
that evaluates back to an equal value, with the names ``from hearts import *`` and
``hearts.actions`` give. (Objects with a state, ``Game``, ``Round``, a bot, print as
``<Game …>``.)"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import any_rules

import hearts
import hearts.actions
from hearts import CARDS, Card, CardSet, Game, Rules
from hearts.actions import Moon, Pass, Play
from hearts.bots import RandomBot, run_bots
from hearts.errors import CardParseError
from hearts.record import Seat

NAMES: dict[str, Any] = {**{n: getattr(hearts, n) for n in hearts.__all__},
                         **{n: getattr(hearts.actions, n) for n in ("Pass", "Play", "Moon")}, "Seat": Seat}
"""What a session that did ``from hearts import *`` (and imported the actions) can name."""


def round_trips(value: object) -> None:
    again = eval(repr(value), dict(NAMES))
    assert again == value and type(again) is type(value), (repr(value), again)


cards = st.sampled_from(CARDS)
card_sets = st.integers(0, (1 << 52) - 1).map(CardSet.from_mask)


@given(cards)
def test_r1_2_every_card_round_trips_through_its_repr(card: Card) -> None:
    """R1.2: ``Card('QS')`` is what a card prints, and it is that card."""
    assert repr(card) == f"Card({str(card)!r})"
    round_trips(card)
    assert Card(str(card)) is card and Card(int(card)) == card


@given(card_sets)
def test_r1_2_every_card_set_round_trips_through_its_repr(cards: CardSet) -> None:
    round_trips(cards)


@given(st.integers(0, 5), cards, st.lists(cards, min_size=0, max_size=4, unique=True), st.sampled_from(["add", "subtract"]))
def test_every_action_round_trips_through_its_repr(seat: int, card: Card, passed: list[Card], choice: str) -> None:
    for action in (Play(seat, card), Pass(seat, passed), Moon(seat, choice)):  # type: ignore[arg-type]
        round_trips(action)


@given(any_rules())
def test_r1_r5_every_rules_value_round_trips_through_its_repr(rules: Rules) -> None:
    round_trips(rules)


@given(st.integers(0, 2**31))
def test_tricks_and_round_results_round_trip_through_their_reprs(seed: int) -> None:
    game = Game(Rules(target=1), seed=seed)
    run_bots(game, {s: RandomBot(seed=s) for s in range(4)})
    r = game.rounds[0]
    for trick in r.tricks:
        round_trips(trick)
    round_trips(r.result)
    round_trips(Seat("Ann", bot="hard"))


@pytest.mark.parametrize("text", ["QS", " 10h ", "T♦", "q♠"])
def test_a_card_is_made_from_its_text_as_parse_reads_it(text: str) -> None:
    assert Card(text) == Card.parse(text)


@pytest.mark.parametrize(("value", "words"), [
    ("ZZ", "'ZZ' is not a card"), (52, "52 is not a card id"), (True, "True is not a card id"), (2.0, "2.0 is not a card"),
])
def test_r1_2_what_is_no_card_is_refused(value: object, words: str) -> None:
    with pytest.raises(CardParseError, match=words):
        Card(value)  # type: ignore[arg-type]

