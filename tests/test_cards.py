"""Cards and card sets: ids, parsing, printing, set semantics (the rule book R1.2, DESIGN "Card ids")."""

from __future__ import annotations

import pickle
from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearts.cards import (
    CARDS,
    CLUBS,
    DIAMONDS,
    FULL_MASK,
    HEARTS,
    JACK_OF_DIAMONDS,
    QUEEN_OF_SPADES,
    RANK_LETTERS,
    SPADES,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    TWO_OF_CLUBS,
    Card,
    CardSet,
)
from hearts.errors import CardParseError, HeartsError

card_ids = st.integers(min_value=0, max_value=51)
id_sets = st.frozensets(card_ids)


def cs(ids: Iterable[int]) -> CardSet:
    """A CardSet of card ids."""
    return CardSet(list(ids))


# --- R1.2: the 52 cards and their ids (OpenSpiel order) --------------------------------------


def test_r1_2_ids_match_openspiel() -> None:
    """R1.2 / DESIGN: id = rank * 4 + suit, 2C = 0, QS = 43, AS = 51."""
    assert int(Card.parse("2C")) == 0
    assert int(Card.parse("2D")) == 1
    assert int(Card.parse("2H")) == 2
    assert int(Card.parse("2S")) == 3
    assert int(Card.parse("3C")) == 4
    assert int(Card.parse("QS")) == 43
    assert int(Card.parse("JD")) == 37
    assert int(Card.parse("AH")) == 50
    assert int(Card.parse("AS")) == 51
    assert TWO_OF_CLUBS == 0 and QUEEN_OF_SPADES == 43 and JACK_OF_DIAMONDS == 37
    assert (CLUBS, DIAMONDS, HEARTS, SPADES) == (0, 1, 2, 3)


def test_r1_2_deck_has_52_distinct_cards() -> None:
    """R1.2: 13 ranks 2..A in 4 suits; CARDS[i] is card i."""
    assert len(CARDS) == 52
    assert [int(c) for c in CARDS] == list(range(52))
    assert len({str(c) for c in CARDS}) == 52
    for c in CARDS:
        assert isinstance(c, Card) and isinstance(c, int)
        assert c == c.rank * 4 + c.suit
        assert Card.of(c.rank, c.suit) is c


@given(card_ids)
def test_r1_2_rank_suit_points_properties(i: int) -> None:
    """R1.2 / R4.1: rank, suit, points of every card."""
    c = Card(i)
    assert c.rank == i // 4
    assert c.suit == i % 4
    assert str(c) == RANK_LETTERS[i // 4] + SUIT_LETTERS[i % 4]
    assert c.symbol == RANK_LETTERS[i // 4] + SUIT_SYMBOLS[i % 4]
    expected_points = 13 if str(c) == "QS" else (1 if c.suit == HEARTS else 0)
    assert c.points == expected_points


def test_r4_1_points_of_whole_deck_is_26() -> None:
    """R4.1: 13 hearts + Q♠ (13) = 26."""
    assert sum(c.points for c in CARDS) == 26
    assert CardSet.full().points == 26


@pytest.mark.parametrize("bad", [52, -1, 100, True, False, 1.0, "3", None])
def test_r1_2_card_constructor_rejects_non_ids(bad: object) -> None:
    """R1.2: only ints 0..51 are cards (not bools, floats, text)."""
    with pytest.raises(CardParseError) as ei:
        Card(bad)  # type: ignore[arg-type]
    assert repr(bad) in str(ei.value)


@pytest.mark.parametrize(("rank", "suit"), [(13, 0), (-1, 0), (0, 4), (0, -1)])
def test_r1_2_card_of_rejects_bad_rank_or_suit(rank: int, suit: int) -> None:
    """R1.2: ranks 0..12 and suits 0..3 only."""
    with pytest.raises(CardParseError):
        Card.of(rank, suit)


# --- R1.2: parsing and printing ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected_id"),
    [
        ("QS", 43),
        ("qs", 43),
        ("Qs", 43),
        ("qS", 43),
        ("Q♠", 43),
        ("q♠", 43),
        ("  QS  ", 43),
        ("\tQ♠\n", 43),
        ("10h", 34),
        ("10H", 34),
        ("TH", 34),
        ("th", 34),
        ("T♥", 34),
        ("10♥", 34),
        ("T♦", 33),
        ("t♦", 33),
        ("10d", 33),
        ("2C", 0),
        ("2♣", 0),
        ("AS", 51),
        ("a♠", 51),
        ("JD", 37),
        ("j♦", 37),
        ("KH", 46),
        ("9c", 28),
    ],
)
def test_r1_2_parse_accepted_forms(text: str, expected_id: int) -> None:
    """R1.2: letters or symbols, any case, 10 or T, blanks around."""
    card = Card.parse(text)
    assert int(card) == expected_id
    assert card is CARDS[expected_id]


@given(card_ids)
def test_r1_2_parse_str_roundtrip(i: int) -> None:
    """R1.2: parse(str(card)) == card, also with symbols, lower case, '10' and blanks."""
    c = CARDS[i]
    assert Card.parse(str(c)) == c
    assert Card.parse(c.symbol) == c
    assert Card.parse(str(c).lower()) == c
    assert Card.parse(c.symbol.lower()) == c
    assert Card.parse(f"  {c}\t") == c
    assert Card.parse(str(c).replace("T", "10")) == c
    assert Card.parse(c) is c
    assert repr(c) == f"Card({str(c)!r})"


@pytest.mark.parametrize(
    "bad",
    ["ZZ", "", " ", "Q", "S", "QX", "1S", "11S", "0S", "10", "QSS", "Q S", "1 0H", "Q♠♠", "XS", "2", "♠Q"],
)
def test_r1_2_parse_bad_text_raises_quoting_input(bad: str) -> None:
    """R1.2: text that is not a card raises CardParseError (a ValueError) quoting it."""
    with pytest.raises(CardParseError) as ei:
        Card.parse(bad)
    assert isinstance(ei.value, ValueError)
    assert isinstance(ei.value, HeartsError)
    assert repr(bad) in str(ei.value)


@pytest.mark.parametrize("bad", [None, 43, 4.0, b"QS", ["QS"]])
def test_r1_2_parse_non_text_raises(bad: object) -> None:
    """R1.2: Card.parse takes text (or a Card); anything else is a CardParseError quoting it."""
    with pytest.raises(CardParseError) as ei:
        Card.parse(bad)  # type: ignore[arg-type]
    assert repr(bad) in str(ei.value)


def test_r1_2_ten_prints_as_T() -> None:
    """R1.2: the ten prints as 'T' (text) and 'T♦' (symbol)."""
    assert str(Card.parse("10D")) == "TD"
    assert Card.parse("10D").symbol == "T♦"


# --- CardSet ---------------------------------------------------------------------------------


def test_r1_2_cardset_parse_forms_and_print() -> None:
    """R1.2: a list of cards separated by blanks and/or commas, printed in ascending id."""
    s = CardSet.parse("AS, 2c, 10♥   q♠,3D")
    assert [str(c) for c in s] == ["2C", "3D", "TH", "QS", "AS"]
    assert str(s) == "2C 3D TH QS AS"
    assert repr(s) == "CardSet.parse('2C 3D TH QS AS')"
    assert eval(repr(s), {"CardSet": CardSet}) == s
    assert s.mask == (1 << 0) | (1 << 5) | (1 << 34) | (1 << 43) | (1 << 51)
    assert CardSet.parse("") == CardSet() and str(CardSet()) == "" and len(CardSet.parse("  ,  ")) == 0


@given(id_sets)
def test_r1_2_cardset_str_roundtrip(ids: frozenset[int]) -> None:
    """R1.2: CardSet.parse(str(s)) == s and iteration is ascending id."""
    s = cs(ids)
    assert CardSet.parse(str(s)) == s
    assert [int(c) for c in s] == sorted(ids)
    assert [int(c) for c in reversed(s)] == sorted(ids, reverse=True)
    assert all(type(c) is Card for c in s)
    assert s.mask == sum(1 << i for i in ids)
    assert CardSet(s.mask) == s
    assert CardSet.from_mask(s.mask) == s


@pytest.mark.parametrize("bad", ["2C ZZ", "QS, 1X", "2C 2C", "QS q♠"])
def test_r1_2_cardset_parse_bad_text(bad: str) -> None:
    """R1.2: a bad or repeated card in a list is a CardParseError quoting the card."""
    with pytest.raises(CardParseError) as ei:
        CardSet.parse(bad)
    msg = str(ei.value)
    assert "ZZ" in msg or "1X" in msg or "'2C' is given twice" in msg or "'QS' is given twice" in msg


@pytest.mark.parametrize("bad", [None, 5, ["QS"]])
def test_r1_2_cardset_parse_non_text(bad: object) -> None:
    """R1.2: CardSet.parse takes text only."""
    with pytest.raises(CardParseError):
        CardSet.parse(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 1 << 52, FULL_MASK + 1])
def test_r1_2_cardset_mask_out_of_range(bad: int) -> None:
    """R1.2: a mask has 52 bits."""
    with pytest.raises(CardParseError):
        CardSet(bad)


def test_r1_2_cardset_from_mixed_items() -> None:
    """R1.2: a set from Cards, ids and text; duplicates (in any form) refused."""
    s = CardSet([CARDS[51], 0, "QS", "10h"])
    assert str(s) == "2C TH QS AS"
    with pytest.raises(CardParseError, match="given twice"):
        CardSet([43, "QS"])
    with pytest.raises(CardParseError):
        CardSet([52])
    with pytest.raises(CardParseError):
        CardSet([None])  # type: ignore[list-item]


@given(id_sets, id_sets)
def test_r1_2_cardset_set_semantics_match_frozenset(a: frozenset[int], b: frozenset[int]) -> None:
    """R1.2: |, &, -, ^, <=, ==, len, in behave like frozenset of ids."""
    x, y = cs(a), cs(b)
    assert {int(c) for c in x | y} == a | b
    assert {int(c) for c in x & y} == a & b
    assert {int(c) for c in x - y} == a - b
    assert {int(c) for c in x ^ y} == a ^ b
    assert (x <= y) == (a <= b)
    assert (x == y) == (a == b)
    assert (x != y) == (a != b)
    assert len(x) == len(a)
    assert bool(x) == bool(a)
    for i in range(52):
        assert (i in x) == (i in a)
        assert (CARDS[i] in x) == (i in a)
        assert (str(CARDS[i]) in x) == (i in a)
    if a == b:
        assert hash(x) == hash(y)


def test_r1_2_cardset_membership_of_odd_values() -> None:
    """R1.2: membership of non-cards is False, not an error."""
    s = CardSet.parse("2C QS")
    assert "q♠" in s and "2C" in s and 43 in s and "AS" not in s
    assert 52 not in s and -1 not in s and "ZZ" not in s and None not in s and 43.0 not in s


def test_r1_2_cardset_hash_and_equality() -> None:
    """R1.2: equal sets hash equal and work as dict keys; a CardSet is not equal to other types."""
    a = CardSet.parse("QS 2C AH")
    b = CardSet.parse("ah q♠ 2♣")
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert len({a, b, CardSet.parse("2C")}) == 2
    assert a != a.mask
    assert a != "2C QS AH"
    assert a != {0, 43, 50}
    assert CardSet.full() == CardSet(FULL_MASK) and len(CardSet.full()) == 52


def test_r1_2_cardset_is_immutable() -> None:
    """R1.2: a CardSet never changes; operators build new sets."""
    s = CardSet.parse("2C QS")
    original = s
    with pytest.raises(AttributeError):
        s.mask = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        del s.mask
    s |= CardSet.parse("AH")
    assert str(original) == "2C QS" and str(s) == "2C QS AH" and s is not original
    t = original - CardSet.parse("QS")
    assert str(original) == "2C QS" and str(t) == "2C"
    assert original.mask == 1 | (1 << 43)


def test_r1_2_cardset_pickles() -> None:
    """R1.2: a CardSet survives pickling (for parallel workers)."""
    s = CardSet.parse("2C QS AH")
    assert pickle.loads(pickle.dumps(s)) == s


def test_r1_2_cardset_suits_and_points() -> None:
    """R1.2 / R4.1: split by suit; points of a set."""
    s = CardSet.parse("2C AC 3D QS 2H KH")
    assert str(s.of_suit(CLUBS)) == "2C AC"
    assert str(s.of_suit(HEARTS)) == "2H KH"
    assert [str(p) for p in s.suits()] == ["2C AC", "3D", "2H KH", "QS"]
    assert s.points == 15
    assert [str(c) for c in s.sorted_by_suit()] == ["2C", "AC", "3D", "QS", "2H", "KH"]
