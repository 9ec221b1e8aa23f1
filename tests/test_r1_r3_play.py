"""Deal (R1), passing (R2) and leading/following (R3) for 3, 4, 5 and 6 players.

Positions are built from explicit hands (a few cards fixed per seat, the rest filled from the
deck) and scripted plays; every precondition the test relies on is asserted on the way.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hearts.cards import CARDS, CLUBS, HEARTS, QUEEN_OF_SPADES, RANK_LETTERS, SUIT_LETTERS, Card, CardSet
from hearts.errors import CardParseError, IllegalPass, IllegalPlay
from hearts.round import Phase, Round
from hearts.rules import Rules

NS = [3, 4, 5, 6]
QS = QUEEN_OF_SPADES
DEFAULT_CYCLES = {
    3: ["left", "right", "hold"],
    4: ["left", "right", "across", "hold"],
    5: ["left", "right", "hold"],
    6: ["left", "right", "across", "hold"],
}


# --- helpers -----------------------------------------------------------------------------------


def hand_size(n: int) -> int:
    """Cards per player (R1.2)."""
    return Rules(players=n).hand_size


def lowest_club(n: int) -> str:
    """R3.1: 2C with 3 or 4 players, 3C with 5, 4C with 6."""
    return {3: "2C", 4: "2C", 5: "3C", 6: "4C"}[n]


def run(suit: str, count: int, *, top: bool = False) -> str:
    """``count`` cards of a suit from the two upwards (or from the ace down)."""
    ranks = list(RANK_LETTERS[::-1] if top else RANK_LETTERS)[:count]
    return " ".join(r + suit for r in ranks)


def build_hands(
    n: int, fixed: Mapping[int, str], voids: Mapping[int, str] | None = None, seed: int = 0
) -> list[CardSet]:
    """A full deal for ``n`` players: ``fixed`` cards per seat, the rest of the deck filled in
    (shuffled by ``seed``); a seat in ``voids`` gets no filler card of the suits listed (e.g. "DH")."""
    voids = voids or {}
    rules = Rules(players=n)
    size = rules.hand_size
    hands = {s: CardSet.parse(fixed.get(s, "")) for s in range(n)}
    used = CardSet()
    for h in hands.values():
        assert not (h & used), "a card fixed twice"
        assert len(h) <= size
        used |= h
    deck = CardSet.from_mask(rules.deck_mask)
    assert used <= deck, "a fixed card is not in this deck"
    rest = list(deck - used)
    random.Random(seed).shuffle(rest)
    for s in sorted(range(n), key=lambda s: s not in voids):
        banned = voids.get(s, "")
        need = size - len(hands[s])
        take = [c for c in rest if SUIT_LETTERS[c.suit] not in banned][:need]
        assert len(take) == need, f"cannot fill seat {s}"
        hands[s] |= CardSet(take)
        rest = [c for c in rest if c not in take]
    assert not rest
    return [hands[s] for s in range(n)]


def make_round(
    n: int,
    fixed: Mapping[int, str],
    voids: Mapping[int, str] | None = None,
    seed: int = 0,
    **options: object,
) -> Round:
    """A round with no pass (pass_count=0 unless given) from explicit hands."""
    opts: dict[str, object] = {"pass_count": 0, **options}
    rules = Rules(players=n, **opts)  # type: ignore[arg-type]
    return Round(rules, build_hands(n, fixed, voids, seed))


def pick(legal: CardSet) -> Card:
    """A quiet filler move: the lowest non-point card if any, else the lowest card."""
    return min(legal, key=lambda c: (c.points > 0, int(c)))


def finish_trick(r: Round, script: Mapping[int, str] | None = None) -> int:
    """Play the current trick to its end: seats in ``script`` play those cards, others pick.
    Returns the winner."""
    script = script or {}
    k = r.tricks_played
    while r.tricks_played == k:
        seat = r.to_move
        assert seat is not None
        card = Card.parse(script[seat]) if seat in script else pick(r.legal_plays())
        r.play(card, seat=seat)
    winner = r.tricks[-1].winner
    assert winner is not None
    return winner


def play_tricks(r: Round, count: int) -> None:
    """Play filler moves until ``count`` tricks are complete."""
    while r.tricks_played < count:
        finish_trick(r)


def ids(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


def hearts_in(s: CardSet) -> CardSet:
    return s.of_suit(HEARTS)


# --- R1.2 / R1.3: the deal ---------------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
def test_r1_3_deal_from_seed_is_reproducible(n: int) -> None:
    """R1.3: the same seed (int or Random) gives the same deal; R1.2 the right deck, evenly."""
    rules = Rules(players=n)
    a = Round.deal(rules, seed=12345).dealt
    b = Round.deal(rules, seed=12345).dealt
    c = Round.deal(rules, seed=random.Random(12345)).dealt
    assert a == b == c
    assert Round.deal(rules, seed=12346).dealt != a
    for seed in range(30):
        hands = Round.deal(rules, seed=seed).dealt
        assert [len(h) for h in hands] == [rules.hand_size] * n
        union = CardSet()
        for h in hands:
            assert not (h & union)
            union |= h
        assert union.mask == rules.deck_mask
        assert union == CardSet.full() - CardSet(
            {3: ["2D"], 4: [], 5: ["2D", "2C"], 6: ["2D", "2C", "3C", "2S"]}[n]
        )


class _NoShuffle(random.Random):
    """A Random whose Fisher–Yates shuffle swaps nothing (random() -> just under 1)."""

    def random(self) -> float:
        return 0.999_999_99


@pytest.mark.parametrize("n", NS)
def test_r1_3_dealt_one_card_at_a_time_clockwise(n: int) -> None:
    """R1.3: the (here unshuffled) deck is dealt one card at a time to seats 0, 1, 2, ... clockwise."""
    rules = Rules(players=n)
    deck = list(CardSet.from_mask(rules.deck_mask))
    hands = Round.deal(rules, seed=_NoShuffle()).dealt
    for s in range(n):
        assert list(hands[s]) == deck[s::n]


@pytest.mark.parametrize("n", NS)
def test_r1_3_explicit_deal_in_any_form(n: int) -> None:
    """R1.3: a round from an explicit deal given as text, CardSets, card lists or masks."""
    hands = build_hands(n, {}, seed=3)
    rules = Rules(players=n)
    for form in (
        [str(h) for h in hands],
        hands,
        [list(h) for h in hands],
        [[int(c) for c in h] for h in hands],
        [h.mask for h in hands],
        tuple(" ".join(c.symbol.lower() for c in h) for h in hands),
    ):
        r = Round(rules, form)
        assert r.dealt == tuple(hands)
        assert [r.hand(s) for s in range(n)] == hands


@pytest.mark.parametrize("n", NS)
def test_r1_2_explicit_deal_wrong_size(n: int) -> None:
    """R1.2: each player gets deck/n cards; a deal with one card moved is refused."""
    hands = build_hands(n, {}, seed=4)
    moved = next(iter(hands[0]))
    bad = [hands[0] - CardSet([moved]), hands[1] | CardSet([moved]), *hands[2:]]
    with pytest.raises(CardParseError, match=r"R1\.2: seat 0 is dealt"):
        Round(Rules(players=n), bad)


@pytest.mark.parametrize("n", NS)
def test_r1_2_explicit_deal_duplicate_and_missing(n: int) -> None:
    """R1.2: a card dealt twice (so another missing) is refused, naming it."""
    hands = build_hands(n, {}, seed=5)
    dup = next(iter(hands[0]))
    victim = next(iter(hands[1]))
    bad = [hands[0], (hands[1] - CardSet([victim])) | CardSet([dup]), *hands[2:]]
    with pytest.raises(CardParseError) as ei:
        Round(Rules(players=n), bad)
    assert "R1.2" in str(ei.value) and str(dup) in str(ei.value)


@pytest.mark.parametrize("n", [3, 5, 6])
def test_r1_2_explicit_deal_with_removed_card(n: int) -> None:
    """R1.2: a deal using a card removed for this player count is refused (its deck card missing)."""
    removed = {3: "2D", 5: "2C", 6: "2S"}[n]
    hands = build_hands(n, {}, seed=6)
    victim = next(iter(hands[2]))
    bad = [*hands[:2], (hands[2] - CardSet([victim])) | CardSet.parse(removed), *hands[3:]]
    with pytest.raises(CardParseError) as ei:
        Round(Rules(players=n), bad)
    assert "R1.2" in str(ei.value) and removed in str(ei.value)


@pytest.mark.parametrize("n", NS)
def test_r1_2_explicit_deal_wrong_number_of_hands_or_garbage(n: int) -> None:
    """R1.2: one hand per player, each made of cards."""
    hands = [str(h) for h in build_hands(n, {}, seed=7)]
    with pytest.raises(CardParseError):
        Round(Rules(players=n), hands[:-1])
    with pytest.raises(CardParseError):
        Round(Rules(players=n), [*hands, ""])
    with pytest.raises(CardParseError, match="'ZZ'"):
        Round(Rules(players=n), [hands[0].replace(hands[0][:2], "ZZ", 1), *hands[1:]])
    with pytest.raises(CardParseError):
        Round(Rules(players=n), " ".join(hands))  # type: ignore[arg-type]


# --- R2 passing ----------------------------------------------------------------------------------


def lowest_three(r: Round, seat: int, count: int = 3) -> CardSet:
    return CardSet(list(r.hand(seat))[:count])


@pytest.mark.parametrize("n", NS)
def test_r2_1_any_order_received_hidden_until_all_passed(n: int) -> None:
    """R2.1: seats pass in any order; nothing is received (and no hand changes) until the last
    seat has passed; the outcome does not depend on the order."""
    rules = Rules(players=n)
    orders = list(itertools.permutations(range(n)))
    orders = orders[:: max(1, len(orders) // 12)]
    outcomes = set()
    for order in orders:
        r = Round.deal(rules, seed=99)
        dealt = r.dealt
        chosen = {s: CardSet(list(dealt[s])[-3:]) for s in range(n)}
        for k, seat in enumerate(order):
            assert r.phase is Phase.PASSING
            r.pass_cards(seat, list(reversed(list(chosen[seat]))))  # order of the cards is free too
            if k < n - 1:
                assert r.phase is Phase.PASSING
                assert r.to_move is None
                assert len(r.legal_plays()) == 0
                assert set(r.seats_to_pass()) == set(order[k + 1 :])
                for s in range(n):
                    assert r.received(s) is None
                    assert r.hand(s) == dealt[s]
                    assert r.passed(s) == (chosen[s] if s in order[: k + 1] else None)
        assert r.phase is Phase.PLAYING
        assert r.seats_to_pass() == ()
        outcomes.add(tuple(r.hand(s) for s in range(n)))
        for s in range(n):
            assert r.passed(s) == chosen[s]
            assert r.received((s + 1) % n) == chosen[s]
    assert len(outcomes) == 1


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("count_kind", ["one", "two", "max"])
def test_r2_1_exactly_pass_count_cards(n: int, count_kind: str) -> None:
    """R2.1: exactly `pass_count` cards are passed; one fewer or one more is refused."""
    count = {"one": 1, "two": 2, "max": hand_size(n) - 1}[count_kind]
    r = Round.deal(Rules(players=n, pass_count=count), seed=1)
    for wrong in (count - 1, count + 1):
        with pytest.raises(IllegalPass) as ei:
            r.pass_cards(0, list(r.hand(0))[:wrong])
        assert ei.value.rule == "R2.1" and ei.value.seat == 0
        assert f"{count} cards" in str(ei.value)
        assert r.passed(0) is None
    r.pass_cards(0, list(r.hand(0))[:count])
    assert len(r.passed(0) or ()) == count


@pytest.mark.parametrize("n", NS)
def test_r2_1_cards_must_be_held(n: int) -> None:
    """R2.1: a seat passes its own cards only."""
    r = Round.deal(Rules(players=n), seed=2)
    foreign = list(r.hand(1))[:1]
    own = list(r.hand(0))[:2]
    with pytest.raises(IllegalPass) as ei:
        r.pass_cards(0, own + foreign)
    assert ei.value.rule == "R2.1" and str(foreign[0]) in str(ei.value)
    assert r.passed(0) is None and r.hand(0) == r.dealt[0]


@pytest.mark.parametrize("n", NS)
def test_r2_1_no_double_pass(n: int) -> None:
    """R2.1: a seat passes once."""
    r = Round.deal(Rules(players=n), seed=3)
    first = lowest_three(r, 0)
    r.pass_cards(0, first)
    with pytest.raises(IllegalPass, match="already passed"):
        r.pass_cards(0, CardSet(list(r.hand(0))[-3:]))
    assert r.passed(0) == first


@pytest.mark.parametrize("n", NS)
def test_r2_2_no_pass_in_hold_round_or_with_pass_count_zero(n: int) -> None:
    """R2.2: in a hold round, or with pass_count=0, play starts at once and passing is refused."""
    hold_round = DEFAULT_CYCLES[n].index("hold")
    for r in (
        Round.deal(Rules(players=n), seed=4, round_number=hold_round),
        Round.deal(Rules(players=n, pass_count=0), seed=4, round_number=0),
    ):
        assert r.pass_offset == 0
        assert r.phase is Phase.PLAYING
        assert r.seats_to_pass() == ()
        with pytest.raises(IllegalPass, match="nobody passes") as ei:
            r.pass_cards(0, list(r.hand(0))[:3])
        assert ei.value.rule.startswith("R2")
        assert all(r.passed(s) is None and r.received(s) is None for s in range(n))
        assert r.to_move == r.holder(lowest_club(n))


def _check_direction(r: Round, n: int, offset: int) -> None:
    """Everyone passes; seat s's cards must arrive at seat s + offset (mod n)."""
    assert r.pass_offset == offset
    passed = {s: lowest_three(r, s) for s in range(n)}
    for s in range(n):
        r.pass_cards(s, passed[s])
    for s in range(n):
        to = (s + offset) % n
        assert r.pass_target(s) == to
        assert r.received(to) == passed[s]
        assert passed[s] <= r.hand(to)
        assert not (passed[s] & r.hand(s))


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("round_number", range(9))
def test_r2_2_default_rotation_by_round(n: int, round_number: int) -> None:
    """R2.2 / R5.3: left (seat i -> i+1, R1.4), right (i -> i-1), across (i -> i+n/2), hold,
    repeating by round number."""
    cycle = DEFAULT_CYCLES[n]
    step = cycle[round_number % len(cycle)]
    r = Round.deal(Rules(players=n), seed=round_number, round_number=round_number)
    if step == "hold":
        assert r.phase is Phase.PLAYING and r.pass_offset == 0
        return
    offset = {"left": 1, "right": n - 1, "across": n // 2}[step]
    _check_direction(r, n, offset)


@pytest.mark.parametrize("n", NS)
def test_r2_2_named_steps_in_custom_cycle(n: int) -> None:
    """R2.2: a custom cycle of names; 'across' only for an even number of players."""
    steps = ["right", "left", "right"] + (["across"] if n % 2 == 0 else [])
    rules = Rules(players=n, pass_cycle=steps)
    for k, step in enumerate(steps):
        offset = {"left": 1, "right": n - 1, "across": n // 2}[step]
        _check_direction(Round.deal(rules, seed=k, round_number=k), n, offset)


@pytest.mark.parametrize(("n", "offset"), [(n, k) for n in NS for k in range(1, n)])
def test_r2_2_integer_offsets(n: int, offset: int) -> None:
    """R2.2: an integer offset k sends seat i's cards to seat i + k."""
    rules = Rules(players=n, pass_cycle=[offset])
    _check_direction(Round.deal(rules, seed=offset), n, offset)
    r0 = Round.deal(Rules(players=n, pass_cycle=[0, offset]), seed=1, round_number=0)
    assert r0.phase is Phase.PLAYING and r0.pass_offset == 0


@pytest.mark.parametrize("n", NS)
def test_r2_3_received_cards_join_hand_before_first_lead(n: int) -> None:
    """R2.3: after the exchange every hand is dealt - passed + received, and a passed lowest club
    makes its receiver the first leader (R3.1), who leads it."""
    low = lowest_club(n)
    r = Round(Rules(players=n), build_hands(n, {0: low}, seed=8))
    assert r.holder(low) == 0
    passes = {0: CardSet.parse(low) | CardSet(list(r.hand(0) - CardSet.parse(low))[:2])}
    for s in range(1, n):
        passes[s] = lowest_three(r, s) - CardSet.parse(low)
        if len(passes[s]) < 3:  # pragma: no cover - the low club is seat 0's
            raise AssertionError
    for s in reversed(range(n)):
        r.pass_cards(s, passes[s])
    for s in range(n):
        assert r.hand(s) == (r.dealt[s] - passes[s]) | passes[(s - 1) % n]
        assert r.received(s) == passes[(s - 1) % n]
    assert r.holder(low) == 1
    assert r.to_move == 1
    assert ids(r.legal_plays()) == [low]
    r.play(low, seat=1)
    assert r.current_trick.plays == ((1, Card.parse(low)),)


# --- R3.1 first lead ---------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "holder"), [(n, s) for n in NS for s in range(n)])
def test_r3_1_holder_of_lowest_club_leads_it(n: int, holder: int) -> None:
    """R3.1: the holder of the lowest club in the deck (2C/2C/3C/4C) leads, and must lead it."""
    low = lowest_club(n)
    r = make_round(n, {holder: f"{low} AC KC"}, seed=holder)
    assert r.to_move == holder
    assert ids(r.legal_plays()) == [low]
    for wrong in ("AC", "KC"):
        with pytest.raises(IllegalPlay) as ei:
            r.play(wrong)
        assert ei.value.rule == "R3.1" and low in str(ei.value)
    r.play(low)
    assert r.plays == (Card.parse(low),)


@pytest.mark.parametrize("n", NS)
def test_r3_1_any_club_option(n: int) -> None:
    """R3.1 option first_lead=any_club: the lowest club's holder may lead any club it holds, only a club."""
    low = lowest_club(n)
    r = make_round(n, {1: f"{low} 9C KC AD AS"}, voids={1: "C"}, first_lead="any_club")
    assert r.to_move == 1
    assert ids(r.legal_plays()) == [low, "9C", "KC"]
    with pytest.raises(IllegalPlay) as ei:
        r.play("AS")
    assert ei.value.rule == "R3.1"
    r.play("KC")
    assert r.plays == (Card.parse("KC"),)


@pytest.mark.parametrize("n", NS)
def test_r3_1_any_club_with_only_the_lowest(n: int) -> None:
    """R3.1 option any_club: with one club, that club."""
    low = lowest_club(n)
    r = make_round(n, {2: low}, voids={2: "C"}, first_lead="any_club")
    assert r.to_move == 2 and ids(r.legal_plays()) == [low]


# --- R3.2 follow suit ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
def test_r3_2_must_follow_suit(n: int) -> None:
    """R3.2: a player holding the led suit must play it (first trick and later)."""
    low = lowest_club(n)
    r = make_round(n, {0: low, 1: "AC 5D AD 2H QS", 2: "KD 9D"}, voids={1: "C", 2: "D"})
    r.play(low)
    assert ids(r.legal_plays()) == ["AC"]
    for wrong in ("5D", "AD", "2H", "QS"):
        with pytest.raises(IllegalPlay) as ei:
            r.play(wrong)
        assert ei.value.rule == "R3.2" and "clubs" in str(ei.value)
    finish_trick(r, {1: "AC"})
    assert r.to_move == 1
    r.play("5D")
    assert r.legal_plays() == r.hand(2).of_suit(1)
    assert ids(r.legal_plays()) == ["9D", "KD"]
    with pytest.raises(IllegalPlay, match=r"R3\.2"):
        r.play(pick(r.hand(2) - r.hand(2).of_suit(1)))


@pytest.mark.parametrize("n", NS)
def test_r3_2_void_may_play_any_suit_after_first_trick(n: int) -> None:
    """R3.2: without the led suit (after the first trick) any card, points included."""
    low = lowest_club(n)
    r = make_round(n, {0: low, 1: "AC AD", 2: "AH QS 5S"}, voids={1: "", 2: "DH"})
    assert r.hand(2).of_suit(1) == CardSet()
    finish_trick(r, {1: "AC"})
    r.play("AD")
    assert r.legal_plays() == r.hand(2)
    assert {"AH", "QS", "5S"} <= set(ids(r.legal_plays()))


# --- R3.3 first trick ----------------------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
def test_r3_3_no_points_on_first_trick(n: int) -> None:
    """R3.3: void in the led suit on the first trick: no heart and no Q♠ while other cards exist."""
    low = lowest_club(n)
    r = make_round(n, {0: low, 1: "QS 2H AH 7D"}, voids={1: "C"})
    r.play(low)
    legal = r.legal_plays()
    assert legal == r.hand(1) - r.hand(1).of_suit(HEARTS) - CardSet.parse("QS")
    assert "7D" in legal
    for wrong in ("QS", "2H", "AH"):
        with pytest.raises(IllegalPlay) as ei:
            r.play(wrong)
        assert ei.value.rule == "R3.3"
    r.play("7D")
    assert not r.hearts_broken


@pytest.mark.parametrize("n", [4, 5, 6])
@pytest.mark.parametrize("with_queen", [True, False])
def test_r3_3_all_points_hand_may_play_points(n: int, with_queen: bool) -> None:
    """R3.3 exception: a hand of only hearts (and the Q♠) may play any of them on the first trick.
    (Impossible with 3 players: 17 cards > 14 point cards.)"""
    low = lowest_club(n)
    size = hand_size(n)
    hand = ("QS " + run("H", size - 1)) if with_queen else run("H", size)
    r = make_round(n, {0: low, 1: hand})
    r.play(low)
    assert r.legal_plays() == r.hand(1) == CardSet.parse(hand)
    card = "QS" if with_queen else "5H"
    r.play(card)
    assert r.hearts_broken  # R3.5: a heart, or the Q♠ with queen_breaks_hearts


@pytest.mark.parametrize("n", NS)
def test_r3_3_option_points_on_first_trick(n: int) -> None:
    """R3.3 option points_on_first_trick=true: no restriction when void."""
    low = lowest_club(n)
    r = make_round(n, {0: low, 1: "QS 2H 7D"}, voids={1: "C"}, points_on_first_trick=True)
    r.play(low)
    assert r.legal_plays() == r.hand(1)
    r.play("QS")
    assert r.hearts_broken


@pytest.mark.parametrize("n", NS)
def test_r3_3_only_on_first_trick(n: int) -> None:
    """R3.3: the restriction ends with the first trick."""
    low = lowest_club(n)
    r = make_round(n, {0: low, 1: "AC AD", 2: "QS 2H 9S"}, voids={2: "DH"})
    finish_trick(r, {1: "AC"})
    r.play("AD")
    assert {"QS", "2H"} <= set(ids(r.legal_plays()))


# --- R3.4 leading hearts -------------------------------------------------------------------------


def _leader_with_hearts(n: int, **options: object) -> Round:
    """Seat 1 wins trick 1 with its only club (AC) and leads trick 2, holding KD QD JD + hearts."""
    low = lowest_club(n)
    r = make_round(n, {0: low, 1: "AC KD QD JD " + run("H", hand_size(n) - 4)}, **options)
    assert finish_trick(r) == 1
    assert not r.hearts_broken and r.to_move == 1
    return r


@pytest.mark.parametrize("n", NS)
def test_r3_4_hearts_not_led_until_broken(n: int) -> None:
    """R3.4: hearts may not be led before they are broken."""
    r = _leader_with_hearts(n)
    assert ids(r.legal_plays()) == ["JD", "QD", "KD"]
    with pytest.raises(IllegalPlay) as ei:
        r.play("2H")
    assert ei.value.rule == "R3.4" and ei.value.seat == 1 and "2H" in str(ei.value)


@pytest.mark.parametrize("n", NS)
def test_r3_4_option_must_break_hearts_false(n: int) -> None:
    """R3.4 option must_break_hearts=false: hearts may be led at once."""
    r = _leader_with_hearts(n, must_break_hearts=False)
    assert r.legal_plays() == r.hand(1)
    r.play("2H")
    assert r.hearts_broken


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("must_break", [True, False])
def test_r3_4_leader_with_only_hearts_may_lead_them(n: int, must_break: bool) -> None:
    """R3.4 exception: a leader holding nothing but hearts leads a heart though unbroken."""
    size = hand_size(n)
    k = max(1, size - 13)  # top clubs that win the first k tricks
    hand = run("C", k, top=True) + " " + run("H", size - k)
    r = make_round(n, {0: lowest_club(n), 1: hand}, must_break_hearts=must_break)
    play_tricks(r, k)
    assert r.to_move == 1 and not r.hearts_broken
    assert r.hand(1) == hearts_in(r.hand(1)) == CardSet.parse(run("H", size - k))
    assert r.legal_plays() == r.hand(1)
    r.play("3H")
    assert r.hearts_broken


# --- R3.5 breaking hearts ------------------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize(
    ("discard", "queen_breaks", "broken"),
    [("AH", True, True), ("AH", False, True), ("QS", True, True), ("QS", False, False)],
)
def test_r3_5_what_breaks_hearts(n: int, discard: str, queen_breaks: bool, broken: bool) -> None:
    """R3.5: a heart played to an earlier trick breaks hearts; the Q♠ does only with
    queen_breaks_hearts=true."""
    size = hand_size(n)
    r = make_round(
        n,
        {0: lowest_club(n), 1: "AC AD KD QD JD " + run("H", size - 5), 2: "AH QS"},
        voids={2: "DH"},
        queen_breaks_hearts=queen_breaks,
    )
    assert finish_trick(r) == 1
    assert not r.hearts_broken
    assert finish_trick(r, {1: "AD", 2: discard}) == 1
    others = [c for seat, c in r.tricks[1].plays if seat != 2]
    assert all(c.points == 0 for c in others)  # only seat 2's discard can break hearts
    assert r.hearts_broken is broken
    hand = r.hand(1)
    if broken:
        assert r.legal_plays() == hand
        r.play("2H")
    else:
        assert r.legal_plays() == hand - hearts_in(hand)
        with pytest.raises(IllegalPlay, match=r"R3\.4"):
            r.play("2H")


# --- R3.6 leading the Q♠ -------------------------------------------------------------------------


def _leader_with_queen(n: int, **options: object) -> Round:
    """Seat 1 wins trick 1 with AC and leads trick 2 holding QS KD QD + hearts."""
    r = make_round(n, {0: lowest_club(n), 1: "AC QS KD QD " + run("H", hand_size(n) - 4)}, **options)
    assert finish_trick(r) == 1 and r.to_move == 1 and not r.hearts_broken
    return r


@pytest.mark.parametrize("n", NS)
def test_r3_6_queen_lead_anytime(n: int) -> None:
    """R3.6 queen_lead=anytime (default): the Q♠ may be led before hearts are broken."""
    r = _leader_with_queen(n)
    assert ids(r.legal_plays()) == ["QD", "QS", "KD"]
    r.play("QS")
    assert r.hearts_broken  # R3.5 default: the Q♠ breaks hearts


@pytest.mark.parametrize("n", NS)
def test_r3_6_queen_lead_after_break(n: int) -> None:
    """R3.6 queen_lead=after_break: no Q♠ lead before hearts are broken."""
    r = _leader_with_queen(n, queen_lead="after_break")
    assert ids(r.legal_plays()) == ["QD", "KD"]
    with pytest.raises(IllegalPlay) as ei:
        r.play("QS")
    assert ei.value.rule == "R3.6" and "QS" in str(ei.value)


@pytest.mark.parametrize("n", NS)
def test_r3_6_queen_lead_after_break_once_broken(n: int) -> None:
    """R3.6 queen_lead=after_break: once a heart is played (here on trick 1 with
    points_on_first_trick), the Q♠ may be led."""
    r = make_round(
        n,
        {0: lowest_club(n), 1: "AC QS KD QD " + run("H", hand_size(n) - 5), 2: "AH"},
        voids={2: "C"},
        queen_lead="after_break",
        points_on_first_trick=True,
    )
    assert finish_trick(r, {2: "AH"}) == 1
    assert r.hearts_broken
    assert "QS" in r.legal_plays()
    r.play("QS")


# --- R3.7 only hearts and the Q♠ -----------------------------------------------------------------


R3_7_CASES: list[tuple[dict[str, object], str]] = [
    ({}, "queen"),  # R3.7 default
    ({"lead_hearts_instead_of_queen": True}, "all"),
    ({"queen_breaks_hearts": False}, "queen"),
    ({"queen_lead": "after_break"}, "all"),  # R3.6 (clarified): only point cards, any of them leads
    ({"queen_lead": "after_break", "lead_hearts_instead_of_queen": True}, "all"),
    ({"must_break_hearts": False}, "all"),  # R3.4 off: hearts any time; Q♠ any time
    ({"must_break_hearts": False, "queen_lead": "after_break"}, "all"),  # R3.6 exception for the Q♠
]


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize(("options", "expected"), R3_7_CASES)
def test_r3_7_leader_with_only_hearts_and_queen(n: int, options: dict[str, object], expected: str) -> None:
    """R3.7 (with R3.4, R3.6): a leader with only hearts + Q♠, hearts unbroken, must lead the Q♠;
    with lead_hearts_instead_of_queen=true (or hearts free to lead) may lead either."""
    size = hand_size(n)
    k = max(1, size - 14)
    hand = run("C", k, top=True) + " QS " + run("H", size - k - 1)
    r = make_round(n, {0: lowest_club(n), 1: hand}, **options)
    play_tricks(r, k)
    assert r.to_move == 1 and not r.hearts_broken
    held = r.hand(1)
    assert held == hearts_in(held) | CardSet.parse("QS") and len(hearts_in(held)) == size - k - 1
    if expected == "queen":
        assert ids(r.legal_plays()) == ["QS"]
        with pytest.raises(IllegalPlay) as ei:
            r.play("2H")
        assert ei.value.rule in ("R3.7", "R3.4")
        assert "2H" in str(ei.value)
        r.play("QS")
        assert r.hearts_broken is r.rules.queen_breaks_hearts  # R3.5
    else:
        assert r.legal_plays() == held
        r.play("2H")
        assert r.hearts_broken


# --- R3.8 winning a trick ----------------------------------------------------------------------


@pytest.mark.parametrize("n", NS)
def test_r3_8_highest_of_led_suit_wins_and_leads(n: int) -> None:
    """R3.8: the highest card of the suit led wins (a higher off-suit card does not);
    the winner takes the cards and leads next."""
    low = lowest_club(n)
    last = n - 1
    r = make_round(n, {0: low + " AC", 1: "AS AH", last: "KC"}, voids={1: "C"})
    winner = finish_trick(r, {1: "AS", last: "KC"})
    trick = r.tricks[0]
    assert trick.cards[0] == Card.parse(low)
    assert winner == trick.winner == last
    assert r.to_move == last and r.current_trick.leader == last
    assert r.won_cards(last) == CardSet(trick.cards)
    assert r.tricks_won[last] == 1 and sum(r.tricks_won) == 1
    assert CLUBS in r.voids(1)
    # Next trick: the leader leads, the others follow in clockwise order.
    lead = pick(r.legal_plays())
    r.play(lead, seat=last)
    assert r.to_move == 0


@pytest.mark.parametrize("n", NS)
def test_r3_8_winner_of_each_trick_leads_the_next(n: int) -> None:
    """R3.8: through a whole round the leader of trick k+1 is the winner of trick k."""
    r = Round.deal(Rules(players=n, pass_count=0), seed=n)
    while r.phase is Phase.PLAYING:
        r.play(pick(r.legal_plays()))
    tricks = r.tricks
    assert len(tricks) == hand_size(n)
    for a, b in itertools.pairwise(tricks):
        assert b.leader == a.winner
    for t in tricks:
        led = t.cards[0].suit
        best = max(c for c in t.cards if c.suit == led)
        assert t.winner == (t.leader + t.cards.index(best)) % n


# --- R3 property: the engine agrees with a reference written from the rule book -------------------------


def reference_legal(rules: Rules, hand: CardSet, trick: list[Card], first: bool, broken: bool) -> CardSet:
    """Legal plays straight from the text of R3.1–R3.7."""
    cards = list(hand)
    if trick:
        led = trick[0].suit
        follow = [c for c in cards if c.suit == led]
        if follow:  # R3.2
            return CardSet(follow)
        if first and not rules.points_on_first_trick:  # R3.3 and its all-points exception
            safe = [c for c in cards if c.points == 0]
            if safe:
                return CardSet(safe)
        return hand
    if first:  # R3.1
        if rules.first_lead == "any_club":
            return CardSet([c for c in cards if c.suit == CLUBS])
        return CardSet([rules.lowest_club])
    if broken:
        return hand
    only_hearts = all(c.suit == HEARTS for c in cards)
    only_points = all(c.points for c in cards)
    if rules.queen_lead == "after_break" and only_points:  # R3.6: any point card may be led
        return hand
    ok = []
    for c in cards:
        if c.suit == HEARTS:
            allowed = not rules.must_break_hearts or only_hearts  # R3.4
        elif c == QS:
            allowed = rules.queen_lead == "anytime" or only_points  # R3.6
        else:
            allowed = True
        if allowed:
            ok.append(c)
    has_hearts = any(c.suit == HEARTS for c in cards)
    if rules.must_break_hearts and only_points and QS in hand and has_hearts:  # R3.7 (queen_lead = anytime)
        return hand if rules.lead_hearts_instead_of_queen else CardSet([QS])
    return CardSet(ok)


@st.composite
def play_rules(draw: st.DrawFn) -> Rules:
    n = draw(st.sampled_from(NS))
    return Rules(
        players=n,
        pass_count=draw(st.sampled_from([0, 1, 3])),
        first_lead=draw(st.sampled_from(["lowest_club", "any_club"])),
        points_on_first_trick=draw(st.booleans()),
        must_break_hearts=draw(st.booleans()),
        queen_breaks_hearts=draw(st.booleans()),
        queen_lead=draw(st.sampled_from(["anytime", "after_break"])),
        lead_hearts_instead_of_queen=draw(st.booleans()),
    )


@settings(max_examples=300, deadline=None)
@given(
    rules=play_rules(),
    seed=st.integers(0, 2**32 - 1),
    round_number=st.integers(0, 3),
    quiet=st.sampled_from([0.0, 0.7, 1.0]),
)
def test_r3_engine_matches_reference_in_random_rounds(
    rules: Rules, seed: int, round_number: int, quiet: float
) -> None:
    """R2.3, R3.1–R3.8: in random rounds (random passes, random or point-hoarding plays) the
    engine's legal plays equal the reference, the first leader holds the lowest club, the
    highest card of the suit led wins and its winner leads next."""
    rng = random.Random(seed)
    r = Round.deal(rules, rng, round_number=round_number)
    for s in r.seats_to_pass():
        r.pass_cards(s, rng.sample(list(r.hand(s)), rules.pass_count))
    assert r.phase is Phase.PLAYING
    assert r.to_move == r.holder(rules.lowest_club)
    n = rules.players
    while r.phase is Phase.PLAYING:
        seat = r.to_move
        assert seat is not None
        trick = list(r.current_trick.cards)
        first = r.tricks_played == 0
        broken = any(
            c.suit == HEARTS or (c == QS and rules.queen_breaks_hearts) for t in r.tricks for c in t.cards
        )
        if not trick:
            assert r.hearts_broken is broken
        expected = reference_legal(rules, r.hand(seat), trick, first, broken)
        assert expected, "a player always has a legal card"
        assert r.legal_plays() == expected, (str(r.hand(seat)), trick, first, broken)
        card = pick(expected) if rng.random() < quiet else rng.choice(list(expected))
        done = r.tricks_played
        r.play(card, seat=seat)
        if r.tricks_played > done:
            t = r.tricks[-1]
            led = t.cards[0].suit
            best = max(c for c in t.cards if c.suit == led)
            assert t.winner == (t.leader + t.cards.index(best)) % n
            if r.phase is Phase.PLAYING:
                assert r.to_move == t.winner
    assert r.tricks_played == hand_size(n)
    assert sum(len(t.cards) for t in r.tricks) == len(CARDS) - (52 - rules.deck_size)
