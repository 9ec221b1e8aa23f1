"""The rollout policies (``hearts.bots.policies``) and the rollout setup they are given to the
kernel in (``hearts.kernel.Rollout``): every policy plays one of the legal cards it is given
(R3), the moon shooter and defenders play as documented (R4.4), and a uniformly random card is
the k-th lowest of the mask, as in the kernel's loop."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearts import Card, CardSet
from hearts.bots.policies import defender_card, greedy_policy, random_card, shooter_card, short_suit_top
from hearts.cards import SUIT_MASKS, cards_of
from hearts.kernel import UNIFORM, Rollout, nth_card

masks = st.integers(1, (1 << 52) - 1)
tricks = st.lists(st.integers(0, 51), max_size=5, unique=True)


@given(legal=masks, trick=tricks, players=st.integers(3, 6), gone=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_greedy_policy_plays_a_legal_card(legal: int, trick: list[int], players: int, gone: bool, seed: int) -> None:
    """R3: whatever the trick and its random draws, the greedy policy plays a card of ``legal``."""
    trick = trick[: players - 1]
    assert legal >> greedy_policy(legal, trick, players, random.Random(seed).random, gone) & 1


@given(legal=masks, trick=tricks, winning=st.booleans())
def test_moon_policies_choose_from_the_legal_cards(legal: int, trick: list[int], winning: bool) -> None:
    """R3, R4.4: the moon shooter and defender play one of the legal cards given."""
    assert legal >> shooter_card(legal, trick) & 1
    assert legal >> defender_card(legal, trick, winning) & 1


def test_moon_policies() -> None:
    """R4.4: a shooter follows high, discards a card without points and leads its highest rank;
    a defender follows and leads high, keeps points off the shooter's trick and dumps them on
    anyone else's."""
    hand = CardSet.parse("2C KC 3H QS 5D").mask
    clubs = CardSet.parse("2C KC").mask
    nine = [int(Card.parse("9C"))]
    assert shooter_card(clubs, nine) == Card.parse("KC")
    assert shooter_card(hand & ~clubs, nine) == Card.parse("5D")
    assert shooter_card(hand, []) == Card.parse("KC")  # its highest rank
    assert defender_card(clubs, nine, True) == Card.parse("KC")
    assert defender_card(hand & ~clubs, nine, True) == Card.parse("5D")
    assert defender_card(hand & ~clubs, nine, False) == Card.parse("QS")
    assert defender_card(hand, [], False) == Card.parse("KC")


def test_greedy_policy_ducks_and_dumps() -> None:
    """The greedy policy's documented play without exploration (draws of 0.5): it ducks under
    the winning card, and void in the suit led it dumps the Q♠ (R3.2)."""
    ten_of_clubs = [int(Card.parse("TC"))]
    for hand, card in (("3C 9C KC", "9C"), ("QS AH 4D", "QS")):
        assert greedy_policy(CardSet.parse(hand).mask, ten_of_clubs, 4, lambda: 0.5, False) == Card.parse(card)


@pytest.mark.parametrize(
    ("legal", "trick", "card"),
    [
        ("3C 9C KC", "2C", "KC"),  # every card wins a clean trick: its highest
        ("3C 9C KC", "2C 2H", "3C"),  # ... one with a point: its lowest
        ("4S 9S KS AS", "2S", "9S"),  # the A♠/K♠ kept off a spade trick the Q♠ may fall on
        ("6S 9S KS AS", "2S 3S 5S", "AS"),  # ... unless it is the last card of a clean trick
        ("2D 9D 5S 8S JS", "4C", "9D"),  # void: the highest card of its shortest suit
        ("2D 5S 8S JS 7H", "4C", "7H"),  # ... after its highest heart
    ],
)
def test_greedy_policy_plays_like_the_heuristic_bot(legal: str, trick: str, card: str) -> None:
    """The search's model of a careful player (R3.2, no exploration: draws of 0.5) follows and
    discards as :mod:`hearts.bots.heuristic` does when it cannot duck: high on a trick without
    points (not the A♠/K♠ while the Q♠ is out), low on one with; void, after the Q♠, the A♠/K♠
    and hearts, the highest card of its shortest suit."""
    played = [int(c) for c in CardSet.parse(trick)]
    assert greedy_policy(CardSet.parse(legal).mask, played, 4, lambda: 0.5, False) == Card.parse(card)


@given(hand=masks, data=st.data())
def test_short_suit_top_is_the_top_of_the_shortest_suit(hand: int, data: st.DataObject) -> None:
    """The discard that makes a void (the heuristic bot's and the rollouts'): the highest card of
    ``legal`` in its suit with the fewest cards in ``hand``, ties to the higher card, then to the
    lower suit (clubs first)."""
    legal = hand & data.draw(st.integers(1, (1 << 52) - 1).filter(lambda m: m & hand))
    keys = {s: ((hand & SUIT_MASKS[s]).bit_count(), -((legal & SUIT_MASKS[s]).bit_length() - 1 >> 2), s)
            for s in range(4) if legal & SUIT_MASKS[s]}
    suit = min(keys, key=keys.__getitem__)
    assert short_suit_top(legal, hand) == (legal & SUIT_MASKS[suit]).bit_length() - 1


@given(mask=masks, data=st.data())
def test_nth_card_and_random_card(mask: int, data: st.DataObject) -> None:
    """The k-th lowest card of a mask, and a uniformly random card drawn as the kernel's loop
    draws one (k = int(u * count))."""
    cards = cards_of(mask)
    k = data.draw(st.integers(0, len(cards) - 1))
    assert nth_card(mask, k) == cards[k]
    seed = data.draw(st.integers(0, 2**32 - 1))
    u = random.Random(seed).random()
    assert random_card(mask, random.Random(seed)) == cards[int(u * len(cards))]


def test_rollout_setup_is_checked() -> None:
    """A rollout that goes for moons needs both moon policies; ``shoot_from`` is points >= 0."""
    assert Rollout() == UNIFORM and UNIFORM.policies == () and UNIFORM.shoot_from == 0
    Rollout((greedy_policy, None, None), 10, shooter_card, defender_card)
    with pytest.raises(ValueError, match="needs a shooter and a defender"):
        Rollout((greedy_policy,) * 4, shoot_from=10, shooter=shooter_card)
    with pytest.raises(ValueError, match="shoot_from is a whole number"):
        Rollout(shoot_from=-1)
