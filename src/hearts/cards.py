"""Cards and sets of cards.

A :class:`Card` is an ``int`` from 0 to 51 in OpenSpiel's order: ``id = rank * 4 + suit`` with
suits clubs, diamonds, hearts, spades = 0, 1, 2, 3 and ranks 2..A = 0..12. A :class:`CardSet` is
an immutable set of cards held as a 52-bit mask (bit *i* is card *i*).

>>> Card.parse("QS"), int(Card.parse("Q♠")), Card.parse("10h")
(Card('QS'), 43, Card('TH'))
>>> hand = CardSet.parse("2C 3C AH QS")
>>> len(hand), Card.parse("AH") in hand
(4, True)
>>> print(hand - CardSet.parse("AH"))
2C 3C QS
>>> print(hand.of_suit(CLUBS))
2C 3C
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from hearts.errors import CardParseError

CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3
SUITS: Final = (CLUBS, DIAMONDS, HEARTS, SPADES)

SUIT_LETTERS: Final = "CDHS"
SUIT_SYMBOLS: Final = "♣♦♥♠"
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS: Final = "23456789TJQKA"

_SUIT_BY_TEXT = {
    **{c: i for i, c in enumerate(SUIT_LETTERS)},
    **{c: i for i, c in enumerate(SUIT_SYMBOLS)},
    "♧": CLUBS,
    "♢": DIAMONDS,
    "♡": HEARTS,
    "♤": SPADES,
}
_RANK_BY_TEXT = {c: i for i, c in enumerate(RANK_LETTERS)} | {"10": 8}


class Card(int):
    """One card, an ``int`` 0..51 (``rank * 4 + suit``, OpenSpiel's ids), made from its id or
    from its text (read by :meth:`parse`); it prints as it is made, ``Card('QS')``.

    >>> Card(0), Card(43), Card(51)
    (Card('2C'), Card('QS'), Card('AS'))
    >>> Card("QS") == Card(43) == Card.parse("q♠") == eval(repr(Card(43)))
    True
    >>> Card.parse("q♠").rank, Card.parse("q♠").suit
    (10, 3)
    >>> str(Card.parse("td")), Card.parse("TD").symbol
    ('TD', 'T♦')
    >>> Card.parse("1X")
    Traceback (most recent call last):
    ...
    hearts.errors.CardParseError: R1.2: '1X' is not a card: write a rank 2-9, T (or 10), J, Q, K, A and a suit C, D, H, S (or ♣ ♦ ♥ ♠), e.g. 'QS' or '10h'
    """

    __slots__ = ()

    def __new__(cls, card: int | str) -> Card:
        if isinstance(card, str):
            return cls.parse(card)
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise CardParseError(f"R1.2: {card!r:.40} is not a card id: expected an int 0..51 or a card's text, e.g. 'QS'")
        return super().__new__(cls, card)

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        """The card of a rank (0 = two .. 12 = ace) and a suit (0..3).

        >>> Card.of(10, SPADES)
        Card('QS')
        """
        if not (0 <= rank < 13 and 0 <= suit < 4):
            raise CardParseError(f"R1.2: no card has rank {rank!r} and suit {suit!r}")
        return CARDS[rank * 4 + suit]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``"QS"``, ``"10h"``, ``"T♦"``, ``"Q♠"`` (case and surrounding blanks ignored)."""
        if isinstance(text, Card):
            return text
        if not isinstance(text, str):
            raise CardParseError(f"R1.2: {text!r} is not a card: expected text such as 'QS'")
        s = text.strip().upper()
        rank = _RANK_BY_TEXT.get(s[:-1])
        suit = _SUIT_BY_TEXT.get(s[-1:])
        if rank is None or suit is None:
            raise CardParseError(
                f"R1.2: {text!r:.40} is not a card: write a rank 2-9, T (or 10), J, Q, K, A and a suit "
                "C, D, H, S (or ♣ ♦ ♥ ♠), e.g. 'QS' or '10h'"
            )
        return CARDS[rank * 4 + suit]

    @property
    def rank(self) -> int:
        """0 for a two up to 12 for an ace."""
        return self >> 2

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return self & 3

    @property
    def symbol(self) -> str:
        """The card with a suit symbol, e.g. ``'Q♠'``."""
        return RANK_LETTERS[self >> 2] + SUIT_SYMBOLS[self & 3]

    @property
    def points(self) -> int:
        """Penalty points of the card (R4.1): 1 for a heart, 13 for the Q♠, else 0."""
        return 13 if self == QUEEN_OF_SPADES else int(self & 3 == HEARTS)

    def __str__(self) -> str:
        return RANK_LETTERS[self >> 2] + SUIT_LETTERS[self & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


CARDS: Final[tuple[Card, ...]] = tuple(int.__new__(Card, i) for i in range(52))
"""The 52 cards, indexed by id."""

TWO_OF_CLUBS: Final = CARDS[0]
JACK_OF_DIAMONDS: Final = CARDS[9 * 4 + DIAMONDS]
QUEEN_OF_SPADES: Final = CARDS[10 * 4 + SPADES]
QS: Final = int(QUEEN_OF_SPADES)
"""The Q♠'s id as a plain ``int``, for mask arithmetic on hot paths (``1 << QS``)."""
JD: Final = int(JACK_OF_DIAMONDS)
"""The J♦'s id as a plain ``int``."""

SUIT_MASKS: Final = tuple(sum(1 << (r * 4 + s) for r in range(13)) for s in SUITS)
"""Bit masks of the four suits."""
CLUBS_MASK: Final = SUIT_MASKS[CLUBS]
HEARTS_MASK: Final = SUIT_MASKS[HEARTS]
QS_MASK: Final = 1 << QUEEN_OF_SPADES
POINTS_MASK: Final = HEARTS_MASK | QS_MASK
KS_MASK: Final = 1 << (11 * 4 + SPADES)
AS_MASK: Final = 1 << (12 * 4 + SPADES)
SPADE_PENALTIES_MASK: Final = KS_MASK | AS_MASK
"""The K♠ and the A♠: penalty cards too under ``spade_penalties`` (R4.5, Black Maria)."""


def mask_points(mask: int, spade_penalties: bool = False) -> int:
    """Penalty points in a card mask (R4.1): one per heart, 13 for the Q♠; with
    ``spade_penalties`` (R4.5) also 10 for the K♠ and 7 for the A♠.

    >>> mask_points(HEARTS_MASK | QS_MASK), mask_points(SUIT_MASKS[SPADES])
    (26, 13)
    >>> mask_points(HEARTS_MASK | SUIT_MASKS[SPADES], spade_penalties=True)
    43
    """
    points = (mask & HEARTS_MASK).bit_count() + (13 if mask & QS_MASK else 0)
    if spade_penalties:
        points += (10 if mask & KS_MASK else 0) + (7 if mask & AS_MASK else 0)
    return points
FULL_MASK: Final = (1 << 52) - 1


def _chunk_table(first: int) -> tuple[tuple[Card, ...], ...]:
    """Entry ``v`` (0..255): the cards ``first + i`` for the bits ``i`` of ``v``, ascending
    (bits past the 52nd card stand for nothing)."""
    table: list[tuple[Card, ...]] = [()]
    for card in CARDS[first : first + 8]:
        table += [(*t, card) for t in table]
    return tuple(table[v % len(table)] for v in range(256))


# A byte at a time (int.to_bytes: small ints, no shifts of a 52-bit int): seven look-ups in
# 1,792 small tuples list any mask.
_C0, _C1, _C2, _C3, _C4, _C5, _C6 = (_chunk_table(k) for k in range(0, 52, 8))


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask in ascending id order (a byte at a time, through tables).

    >>> cards_of(0b1001 << 40)
    [Card('QC'), Card('QS')]
    """
    b0, b1, b2, b3, b4, b5, b6 = (mask & FULL_MASK).to_bytes(7, "little")
    return [*_C0[b0], *_C1[b1], *_C2[b2], *_C3[b3], *_C4[b4], *_C5[b5], *_C6[b6]]


def iter_mask(mask: int) -> Iterator[Card]:
    """Iterate over the cards of a mask in ascending id order."""
    return iter(cards_of(mask))


def mask_of(cards: Iterable[Card | int | str]) -> int:
    """The mask of cards given as cards, ids or text; duplicates are an error."""
    mask = 0
    for c in cards:
        card = c if type(c) is Card else Card.parse(c) if isinstance(c, str) else Card(c)
        bit = 1 << card
        if mask & bit:
            raise CardParseError(f"R1.2: {str(card)!r} is given twice")
        mask |= bit
    return mask


class CardSet:
    """An immutable set of cards (a 52-bit mask), iterated in ascending card id.

    >>> s = CardSet.parse("AS, 2c, 10♥")
    >>> list(s)
    [Card('2C'), Card('TH'), Card('AS')]
    >>> s.mask == (1 << 0) | (1 << 34) | (1 << 51)
    True
    >>> CardSet.parse("2C 2C")
    Traceback (most recent call last):
    ...
    hearts.errors.CardParseError: R1.2: '2C' is given twice
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: Iterable[Card | int | str] | int = 0) -> None:
        if isinstance(cards, int):
            if not 0 <= cards <= FULL_MASK:
                raise CardParseError(f"R1.2: {cards!r} is not a 52-bit card mask")
            object.__setattr__(self, "mask", cards)
        else:
            object.__setattr__(self, "mask", mask_of(cards))

    @classmethod
    def from_mask(cls, mask: int) -> CardSet:
        """Wrap a mask without checking it (for the engine's hot paths)."""
        s = _new(cls)
        _set_mask(s, mask)
        return s

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Read cards separated by blanks or commas, e.g. ``"2C, QS AH"``."""
        if not isinstance(text, str):
            raise CardParseError(f"R1.2: {text!r} is not a list of cards")
        return cls(text.replace(",", " ").split())

    @classmethod
    def full(cls) -> CardSet:
        """All 52 cards."""
        return cls.from_mask(FULL_MASK)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[type[CardSet], tuple[int]]:
        return (CardSet, (self.mask,))  # pickle and copy through the (validating) constructor

    def __iter__(self) -> Iterator[Card]:
        b0, b1, b2, b3, b4, b5, b6 = self.mask.to_bytes(7, "little")  # cards_of, inlined: a hot path
        return iter([*_C0[b0], *_C1[b1], *_C2[b2], *_C3[b3], *_C4[b4], *_C5[b5], *_C6[b6]])

    def __reversed__(self) -> Iterator[Card]:
        mask = self.mask
        while mask:
            top = mask.bit_length() - 1
            yield CARDS[top]
            mask ^= 1 << top

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        if isinstance(card, int):
            return 0 <= card < 52 and (self.mask >> card) & 1 == 1
        if isinstance(card, str):
            try:
                return (self.mask >> Card.parse(card)) & 1 == 1
            except CardParseError:
                return False
        return False

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask & ~other.mask)

    def __xor__(self, other: CardSet) -> CardSet:
        return CardSet.from_mask(self.mask ^ other.mask)

    def __le__(self, other: CardSet) -> bool:
        return self.mask & ~other.mask == 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def of_suit(self, suit: int) -> CardSet:
        """The cards of one suit."""
        return CardSet.from_mask(self.mask & SUIT_MASKS[suit])

    def suits(self) -> tuple[CardSet, CardSet, CardSet, CardSet]:
        """The set split by suit (clubs, diamonds, hearts, spades)."""
        m = self.mask
        return (
            CardSet.from_mask(m & SUIT_MASKS[0]),
            CardSet.from_mask(m & SUIT_MASKS[1]),
            CardSet.from_mask(m & SUIT_MASKS[2]),
            CardSet.from_mask(m & SUIT_MASKS[3]),
        )

    def sorted_by_suit(self) -> list[Card]:
        """Cards grouped by suit (♣ ♦ ♥ ♠... in :data:`DISPLAY_SUIT_ORDER`), low to high.

        >>> [str(c) for c in CardSet.parse("AS 2C KH 3D 4C").sorted_by_suit()]
        ['2C', '4C', '3D', 'AS', 'KH']
        """
        return [c for s in DISPLAY_SUIT_ORDER for c in cards_of(self.mask & SUIT_MASKS[s])]

    @property
    def points(self) -> int:
        """Penalty points in the set (R4.1)."""
        return mask_points(self.mask)

    def __str__(self) -> str:
        return " ".join(str(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"


_new = object.__new__
_set_mask = CardSet.__dict__["mask"].__set__  # the slot's own setter, past __setattr__

DISPLAY_SUIT_ORDER: Final = (CLUBS, DIAMONDS, SPADES, HEARTS)
"""Suits in the order a hand is shown: alternating colours, clubs first."""
