"""A batched Hearts simulator on numpy arrays: ``B`` rounds advanced in lockstep.

Every round of a batch has the same number of players, the same rules and the same pass
direction, so all of them are at the same trick and the same position in it at every step;
only the cards differ. Hands are ``uint64`` bit masks (bit *i* is card id *i*, as in
:mod:`hearts.cards`), the legal plays of the seat to move are computed for the whole batch
with the same case analysis as :func:`hearts.mechanics.legal_mask` (docs/rules.md R3), and a round is
scored as :func:`hearts.mechanics.score_round` does (R4). ``tests/test_rl_vector.py`` replays
thousands of batched rounds in :class:`hearts.Round`, decision by decision.

Supported rules: every option of :class:`~hearts.rules.Rules` (3–6 players, any pass count
and rotation, both first leads, points on the first trick, breaking hearts, the Q♠ lead
options, the J♦ and no-trick bonuses, Black Maria's 2♣ out and spades, R1.2 and R4.5) except the two moon variants that need a decision or
the game's totals (``moon="shooter_chooses"`` and ``"add_unless_losing"``): those raise
:class:`UnsupportedRules`. ``target`` and ``ties`` concern whole games and are ignored (a batch
is one round).

>>> import numpy as np
>>> from hearts import Rules
>>> batch = RoundBatch.deal(Rules(), 1000, np.random.default_rng(0))
>>> rng = np.random.default_rng(1)
>>> batch.pass_cards(random_passes(batch.hands, 3, rng))
>>> while not batch.is_over:
...     batch.play(random_cards(batch.legal(), rng))
>>> bool((batch.points().sum(axis=1) == 26).all())
True

Or in one call (random play, or a ``policy(batch, legal) -> cards``):

>>> scores = simulate(Rules(), 1000, seed=2)
>>> scores.shape
(1000, 4)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from hearts.rl import MissingExtra

try:
    import numpy as np
    from numpy.typing import NDArray
except ModuleNotFoundError as e:
    raise MissingExtra.of(e, "rl", __name__) from None

from hearts.cards import HEARTS_MASK, JD, POINTS_MASK, QS, QS_MASK, SUIT_MASKS
from hearts.errors import RulesError
from hearts.rules import Rules

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

_ONE: Final = np.uint64(1)
_ZERO: Final = np.uint64(0)
_SUITS: Final = np.array(SUIT_MASKS, dtype=np.uint64)
_CLUBS: Final = np.uint64(SUIT_MASKS[0])
_HEARTS: Final = np.uint64(HEARTS_MASK)
_QS: Final = np.uint64(QS_MASK)
_POINTS: Final = np.uint64(POINTS_MASK)
_NOT_POINTS: Final = np.uint64(((1 << 64) - 1) ^ POINTS_MASK)
_SHIFT_QS: Final = np.uint64(QS)
_SHIFT_JD: Final = np.uint64(JD)
_SHIFT_KS: Final = np.uint64(QS + 4)
_SHIFT_AS: Final = np.uint64(QS + 8)
# Selecting the k-th set bit of a mask 16 bits at a time: _SEL16[v * 16 + k] is the index of
# the k-th set bit of the 16-bit value v.
_V16 = np.arange(1 << 16, dtype=np.uint32)
_SEL16: Final = (
    np.argsort(1 - ((_V16[:, None] >> np.arange(16, dtype=np.uint32)) & 1), axis=1, kind="stable")
    .astype(np.uint8)
    .reshape(-1)
)
del _V16
_LOW16: Final = np.uint64(0xFFFF)
_LOW32: Final = np.uint64(0xFFFFFFFF)
_LOW48: Final = np.uint64(0xFFFFFFFFFFFF)
_U16: Final = np.uint64(16)
_U4: Final = np.uint64(4)

Policy = Callable[["RoundBatch", U64], NDArray[np.integer]]
"""``policy(batch, legal) -> cards``: a card id (one of ``legal``'s bits) for every round."""


class UnsupportedRules(RulesError):
    """Rules the batched simulator does not play (it names the option and the way out)."""


def check_supported(rules: Rules) -> None:
    """Raise :class:`UnsupportedRules` for options the batched simulator cannot play."""
    if rules.moon not in ("add_to_others", "subtract_from_self"):
        raise UnsupportedRules(
            f"the batched simulator does not play moon={rules.moon!r} (it needs a decision or the "
            "game's totals); use moon='add_to_others' or 'subtract_from_self', or hearts.Round"
        )


def popcount(masks: U64) -> NDArray[np.uint8]:
    """Bits set in each mask."""
    return np.bitwise_count(masks)


def kth_bit(masks: U64, k: NDArray[np.integer]) -> U64:
    """The index of the ``k``-th lowest set bit of each mask (``0 <= k < popcount``)."""
    m = np.asarray(masks, dtype=np.uint64)
    kk = np.asarray(k).astype(np.uint8, copy=False)
    chunk = (
        (kk >= np.bitwise_count(m & _LOW16)).view(np.uint8)
        + (kk >= np.bitwise_count(m & _LOW32)).view(np.uint8)
        + (kk >= np.bitwise_count(m & _LOW48)).view(np.uint8)
    )
    shift = chunk.astype(np.uint64) * _U16
    value = (m >> shift) & _LOW16
    before = np.bitwise_count(m & ((_ONE << shift) - _ONE))
    out: U64 = shift + _SEL16[(value << _U4) + (kk - before)]
    return out


def random_cards(legal: U64, rng: np.random.Generator) -> U64:
    """A uniformly random card of each (non-empty) mask."""
    count = np.bitwise_count(legal)
    k = (rng.random(legal.shape[0], dtype=np.float32) * count).astype(np.uint8)
    np.minimum(k, count - 1, out=k)  # float32 rounding at the top
    return kth_bit(legal, k)


def random_passes(hands: U64, count: int, rng: np.random.Generator) -> U64:
    """``count`` uniformly random cards of every hand (any shape), as masks of that shape."""
    h = hands.reshape(-1).copy()
    out = np.zeros_like(h)
    for _ in range(count):
        bit = _ONE << random_cards(h, rng)
        h ^= bit
        out |= bit
    return out.reshape(hands.shape)


_POW2: Final = _ONE << np.arange(64, dtype=np.uint64)
_DEAL_CHUNK: Final = 4096


def deal(rules: Rules, batch: int, rng: np.random.Generator) -> U64:
    """``batch`` shuffled deals as a ``(batch, players)`` array of hand masks: every partition
    of the deck into hands of equal size is equally likely (R1.3).

    The deck is sorted by random keys (26 random bits above the card id) and cut into hands;
    the rare deals where two keys tie (probability about 2e-5) are sorted again with 58-bit
    keys (a tie there, below 1e-14, is broken by card id)."""
    deck = np.array([c for c in range(52) if rules.deck_mask >> c & 1], dtype=np.uint32)
    size, n = len(deck), rules.players
    out: U64 = np.empty((batch, n), dtype=np.uint64)
    for start in range(0, batch, _DEAL_CHUNK):
        rows = min(_DEAL_CHUNK, batch - start)
        raw = rng.bit_generator.random_raw((rows, (size + 1) // 2)).view(np.uint32)
        keys = np.ascontiguousarray(raw[:, :size])
        keys &= np.uint32(~63 & 0xFFFFFFFF)
        keys |= deck
        keys.sort(axis=1)
        ties = np.flatnonzero(((keys[:, 1:] ^ keys[:, :-1]) < 64).any(axis=1))
        keys &= np.uint32(63)
        if len(ties):
            wide = rng.bit_generator.random_raw((len(ties), size))
            wide = (wide & np.uint64(~63 & ((1 << 64) - 1))) | deck.astype(np.uint64)
            wide.sort(axis=1)
            keys[ties] = (wide & np.uint64(63)).astype(np.uint32)
        bits = _POW2.take(keys)
        out[start : start + rows] = bits.reshape(rows, n, size // n).sum(axis=2, dtype=np.uint64)
    return out


class RoundBatch:
    """``B`` rounds of the same rules and pass direction, advanced in lockstep.

    ``hands`` is ``(B, players)``: seat ``s``'s cards in round ``b`` as a mask. Drive it with
    :meth:`pass_cards` (once, if :attr:`passing`), then :meth:`legal` / :meth:`play` until
    :attr:`is_over`; :meth:`scores` gives what each seat adds to its total (R4).
    """

    def __init__(self, rules: Rules, hands: U64, *, round_number: int = 0) -> None:
        check_supported(rules)
        hands = np.asarray(hands, dtype=np.uint64)
        n = rules.players
        if hands.ndim != 2 or hands.shape[1] != n:
            raise ValueError(f"hands must be (batch, {n}) masks, got shape {hands.shape}")
        size = rules.hand_size
        if not (popcount(hands) == size).all():
            raise ValueError(f"every hand must hold {size} cards (R1.2)")
        if not (np.bitwise_or.reduce(hands, axis=1) == np.uint64(rules.deck_mask)).all():
            raise ValueError("every deal must be the whole deck, each card once (R1.2)")
        self.rules = rules
        self.players = n
        self.size = hands.shape[0]
        self.pass_offset = rules.pass_offset(round_number)
        self.round_number = round_number
        self._rows = np.arange(self.size)
        self._seats = np.arange(n).reshape(n, 1)
        self._abs = np.ascontiguousarray(hands.T)  # (n, B) by absolute seat, until play starts
        self.passed: U64 | None = None
        self.won = np.zeros((n, self.size), dtype=np.uint64)  # cards taken, by absolute seat
        self.trick = np.zeros((n, self.size), dtype=np.uint16)  # cards of the trick, in order
        self._bits = np.zeros((n, self.size), dtype=np.uint64)  # the same cards as masks
        self.broken = np.zeros(self.size, dtype=bool)
        self.leader = np.zeros(self.size, dtype=np.uint8)
        self.tricks_played = 0
        self.position = 0  # cards in the current trick
        self.is_over = False
        self._legal: U64 | None = None
        self._led_mask: U64 = np.zeros(self.size, dtype=np.uint64)
        self._hand_size = size
        restrict = (HEARTS_MASK if rules.must_break_hearts else 0) | (
            QS_MASK if rules.queen_lead == "after_break" else 0
        )
        self._restrict = np.uint64(restrict)
        self._not_restrict = np.uint64(((1 << 64) - 1) ^ restrict)
        self._low_club = np.uint64(1 << rules.lowest_club)
        self.passing = bool(self.pass_offset)
        self._rel: U64 = self._abs  # (n, B) hands relative to the leader: row j = leader + j
        if not self.passing:
            self._start_play()

    @classmethod
    def deal(
        cls, rules: Rules, batch: int, rng: np.random.Generator | int | None = None, *, round_number: int = 0
    ) -> RoundBatch:
        """``batch`` shuffled rounds (see :func:`deal`)."""
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        return cls(rules, deal(rules, batch, gen), round_number=round_number)

    # --- state ---------------------------------------------------------------------------

    @property
    def hands(self) -> U64:
        """``(B, players)`` hand masks by absolute seat (a copy)."""
        if self.passing:
            return self._abs.T.copy()
        idx = (self._seats - self.leader.astype(np.int64)) % self.players
        out: U64 = np.take_along_axis(self._rel, idx, axis=0).T.copy()
        return out

    @property
    def to_move(self) -> I64:
        """The seat to play in every round."""
        out: I64 = (self.leader.astype(np.int64) + self.position) % self.players
        return out

    def points(self) -> NDArray[np.int64]:
        """``(B, players)`` penalty points taken so far (R4.1; R4.5: the K♠ 10, the A♠ 7)."""
        won = self.won.T
        out: NDArray[np.int64] = popcount(won & _HEARTS).astype(np.int64) + 13 * (
            (won >> _SHIFT_QS) & _ONE
        ).astype(np.int64)
        if self.rules.spade_penalties:
            out = out + 10 * ((won >> _SHIFT_KS) & _ONE).astype(np.int64) + 7 * ((won >> _SHIFT_AS) & _ONE).astype(
                np.int64
            )
        return out

    def scores(self) -> NDArray[np.int64]:
        """``(B, players)`` what each seat adds to its total for the round (R4.2–R4.4)."""
        if not self.is_over:
            raise ValueError("the rounds are not over")
        rules = self.rules
        pts = self.points()
        won = self.won.T
        penalty = np.uint64(rules.penalty_mask)
        shooter = (won & penalty) == penalty
        moon = shooter.any(axis=1, keepdims=True)
        add, worth = rules.moon == "add_to_others", rules.round_points
        moon_scores = np.where(shooter, 0, worth) if add else np.where(shooter, -worth, 0)
        scores = np.where(moon, moon_scores, pts)
        if rules.no_tricks_bonus:
            scores = scores + np.where(~moon & (won == _ZERO), rules.no_tricks_bonus, 0)
        if rules.jack_of_diamonds:
            scores = scores + rules.jack_of_diamonds * ((won >> _SHIFT_JD) & _ONE).astype(np.int64)
        out: NDArray[np.int64] = scores.astype(np.int64)
        return out

    # --- actions -------------------------------------------------------------------------

    def pass_cards(self, passed: U64) -> None:
        """Every seat passes (R2): ``passed`` is ``(B, players)`` masks of ``pass_count`` cards
        of each hand; the receivers get them at once (R2.3)."""
        if not self.passing:
            raise ValueError("nobody passes now (R2.1)")
        p = np.asarray(passed, dtype=np.uint64).T
        if p.shape != self._abs.shape:
            raise ValueError(f"passed must be (batch, players) masks, got {passed.shape}")
        if not (popcount(p) == self.rules.pass_count).all() or (p & ~self._abs).any():
            raise ValueError(f"each seat passes {self.rules.pass_count} of its own cards (R2.1)")
        self.passed = np.ascontiguousarray(p.T)
        self._abs = (self._abs & ~p) | np.roll(p, self.pass_offset, axis=0)
        self.passing = False
        self._start_play()

    def legal(self) -> U64:
        """The legal plays of the seat to move in every round (R3), as masks."""
        if self._legal is not None:
            return self._legal
        rules = self.rules
        h = self._rel[self.position]
        first = self.tricks_played == 0
        if self.position:
            follow = h & self._led_mask  # R3.2
            if first and not rules.points_on_first_trick:  # R3.3 and its exception
                safe = h & _NOT_POINTS
                other = np.where(safe != _ZERO, safe, h)
            else:
                other = h
            out = np.where(follow != _ZERO, follow, other)
        elif first:  # R3.1
            out = h & _CLUBS if rules.first_lead == "any_club" else np.full_like(h, self._low_club)
        elif not self._restrict:
            out = h
        else:
            must_break = rules.must_break_hearts
            instead = rules.lead_hearts_instead_of_queen
            allowed = h & self._not_restrict  # R3.4, R3.6
            res = np.where(allowed != _ZERO, allowed, h)
            if must_break and instead:  # R3.7 option: hearts instead of the Q♠
                res = np.where((allowed == _QS) & ((h & _HEARTS) != _ZERO), h, res)
            if not must_break:  # R3.6: only hearts and the Q♠, hearts free to lead
                res = np.where((allowed != _ZERO) & ((h & _NOT_POINTS) == _ZERO), h, res)
            if must_break and not instead and rules.queen_lead == "anytime":  # R3.7: the Q♠ is led
                forced = (allowed == _ZERO) & ((h & _QS) != _ZERO) & ((h & _HEARTS) != _ZERO)
                res = np.where(forced, _QS, res)
            out = np.where(self.broken, h, res)
        legal: U64 = out
        self._legal = legal
        return legal

    def play(self, cards: NDArray[np.integer], *, check: bool = True) -> None:
        """The seat to move in every round plays ``cards[b]`` (R3); with ``check`` (the default)
        an illegal card raises ``ValueError`` and changes nothing."""
        if self.passing or self.is_over:
            raise ValueError("the rounds are not in their play phase")
        c = np.asarray(cards)
        if check:
            if c.shape != (self.size,) or not np.issubdtype(c.dtype, np.integer):
                raise ValueError(f"cards must be {self.size} card ids, got {c.shape} {c.dtype}")
            out_of_range = (c < 0) | (c > 51)
            safe = np.where(out_of_range, 0, c).astype(np.uint64)
            bad = out_of_range | ((self.legal() & (_ONE << safe)) == _ZERO)
            if bad.any():
                rows = np.flatnonzero(bad)
                raise ValueError(
                    f"illegal plays (R3) in rounds {rows[:10].tolist()}: cards {c[rows[:10]].tolist()}"
                )
        c = c.astype(np.uint64, copy=False)
        bit = _ONE << c
        pos = self.position
        self._rel[pos] ^= bit
        self.trick[pos] = c  # as uint16
        self._bits[pos] = bit
        if pos == 0:
            self._led_mask = _SUITS[c & np.uint64(3)]
        self._legal = None
        pos += 1
        if pos < self.players:
            self.position = pos
            return
        self._end_trick()

    # --- internals -----------------------------------------------------------------------

    def _start_play(self) -> None:
        hands = self._abs
        self.leader = np.argmax((hands & self._low_club) != _ZERO, axis=0).astype(np.uint8)  # R3.1
        self._rel = self._rotate(hands, self.leader)

    def _rotate(self, hands: U64, off: NDArray[np.uint8]) -> U64:
        """``out[j] = hands[(j + off) % n]`` in every round."""
        n = self.players
        out = hands
        step = 1
        while step < n:  # conditional rotations by 1, 2 and 4 seats, branch-free
            keep = ((off & np.uint8(step)) == 0).astype(np.uint64)
            keep -= _ONE  # all ones where the rotation applies, else 0
            new = np.empty_like(out)
            for j in range(n):
                a, b = out[j], out[(j + step) % n]
                np.bitwise_xor(a, b, out=new[j])
                new[j] &= keep
                new[j] ^= a
            out = new
            step *= 2
        return out

    def _end_trick(self) -> None:
        n = self.players
        trick = self.trick
        # R3.8: the highest card of the suit led. value = (card + 1) * 8 + position for a card
        # of the suit led, else the position alone; the maximum holds the winner's position.
        led = trick[0] & np.uint16(3)
        best = (trick[0] + np.uint16(1)) << np.uint16(3)
        for j in range(1, n):
            c = trick[j]
            value = (c & np.uint16(3)) == led
            value = value * (c + np.uint16(1))
            value <<= np.uint16(3)
            value |= np.uint16(j)
            np.maximum(best, value, out=best)
        off = (best & np.uint16(7)).astype(np.uint8)
        taken = self._bits[0] | self._bits[1]
        for j in range(2, n):
            taken |= self._bits[j]
        winner = self.leader + off
        winner -= np.uint8(n) * (winner >= n)
        idx = winner.astype(np.intp) * self.size + self._rows
        won = self.won.reshape(-1)
        won[idx] = won.take(idx) | taken
        breaks = _POINTS if self.rules.queen_breaks_hearts else _HEARTS  # R3.5
        self.broken |= (taken & breaks) != _ZERO
        self.leader = winner
        self.tricks_played += 1
        self.position = 0
        if self.tricks_played == self._hand_size:
            self.is_over = True
        else:
            self._rel = self._rotate(self._rel, off)


def simulate(
    rules: Rules,
    batch: int,
    seed: int | np.random.Generator | None = None,
    *,
    round_number: int = 0,
    policy: Policy | None = None,
    hands: U64 | None = None,
) -> NDArray[np.int64]:
    """Play ``batch`` rounds: a shuffled deal (or ``hands``), random passes, and every play
    uniformly random (or chosen by ``policy``). Returns the ``(batch, players)`` round scores."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.Generator(np.random.SFC64(seed))
    b = RoundBatch(rules, deal(rules, batch, rng) if hands is None else hands, round_number=round_number)
    if b.passing:
        b.pass_cards(random_passes(b.hands, rules.pass_count, rng))
    while not b.is_over:
        legal = b.legal()
        if policy is None:
            b.play(random_cards(legal, rng), check=False)
        else:
            b.play(policy(b, legal))
    return b.scores()


__all__ = [
    "Policy",
    "RoundBatch",
    "UnsupportedRules",
    "check_supported",
    "deal",
    "kth_bit",
    "popcount",
    "random_cards",
    "random_passes",
    "simulate",
]
