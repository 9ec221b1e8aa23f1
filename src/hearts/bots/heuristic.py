"""A rule-based expert: the bot behind the ``easy`` and ``medium`` levels.

``heuristic:blunder=0.3`` plays a random legal card three times in ten (``easy``).

Passing (R2)
    Pass the Q♠, K♠ and A♠ unless guarded by enough low spades (four or more below the queen);
    pass high hearts; empty a short club or diamond suit to create a void; never pass low spades
    that guard a queen we keep. With a hand that can take every point, pass low cards instead and
    try to shoot the moon.
Leading (R3)
    Flush the Q♠ with low spades while it is out and we hold no spade above the jack; otherwise
    lead a low card of the suit where it is least likely to win, shorter suits first; hearts only
    when low.
Following
    Duck under the winning card with the highest card that still loses; when last and the trick
    is clean, win it with the highest card (not the Q♠); keep the A♠/K♠ off a spade trick that
    the Q♠ might still fall on.
Discarding (void in the suit led)
    Dump the Q♠ on whoever else wins the trick, then the A♠/K♠ while the queen is out (always,
    where they are penalty cards themselves, R4.5), then the highest hearts, then the highest
    card of the shortest suit.
Black Maria's spades (R4.5)
    Under ``spade_penalties`` the K♠ and A♠ count as points everywhere the bot counts them: in a
    trick, in what it keeps off a clean trick it would win, and in what it will not discard
    while going for the moon or stopping one.
Moon defence
    When one other seat has taken every point so far (and enough of them to be a threat), take a
    point trick ourselves with a high card and stop feeding it points.

>>> from hearts import Game, Rules
>>> from hearts.bots import make_bot, run_bots
>>> game = Game(Rules(target=50), seed=4)
>>> run_bots(game, {s: make_bot("heuristic", seed=s) for s in range(4)})
>>> game.is_over
True
"""

from __future__ import annotations

from hearts.bots.base import Bot
from hearts.bots.policies import AS_KS_MASK, LOW_SPADES_MASK, short_suit_top
from hearts.cards import (
    CARDS,
    HEARTS,
    HEARTS_MASK,
    QS,
    QS_MASK,
    SPADES,
    SUIT_MASKS,
    Card,
    CardSet,
    cards_of,
)
from hearts.errors import HeartsError
from hearts.fast import jit
from hearts.view import View


def _top(mask: int) -> int:
    return mask.bit_length() - 1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _below(mask: int, card: int) -> int:
    """Cards of ``mask`` in ``card``'s suit that rank below it."""
    return mask & SUIT_MASKS[card & 3] & ((1 << card) - 1)


class HeuristicBot(Bot):
    """The documented rule-based expert (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, moon: bool = True, blunder: float = 0.0) -> None:
        super().__init__(seed)
        if not isinstance(blunder, (int, float)) or not 0 <= blunder <= 1:
            raise HeartsError(f"heuristic: blunder must be a probability 0..1, not {blunder!r}")
        self.try_moon = bool(moon)
        self.blunder = float(blunder)

    # --- passing ---------------------------------------------------------------------------

    def choose_pass(self, view: View) -> CardSet:
        return CardSet.from_mask(pass_mask(view.hand.mask, view.rules.pass_count, self.try_moon))

    # --- playing ---------------------------------------------------------------------------

    def choose_play(self, view: View) -> Card:
        legal = view.legal.mask
        if legal & (legal - 1) == 0:
            return CARDS[_low(legal)]
        if self.blunder and self.rng.random() < self.blunder:
            return self.rng.choice(cards_of(legal))
        return CARDS[choose_card(view, legal, self.try_moon)]


@jit
def pass_mask(hand: int, count: int, try_moon: bool = True) -> int:
    """The heuristic's pass from ``hand`` (a mask): the ``count`` most dangerous cards (the
    highest card among equals), or the lowest cards when the hand can shoot the moon."""
    chosen = 0
    if try_moon and moon_potential(hand):
        for _ in range(count):  # keep the winners: pass the lowest non-hearts
            rest = hand & ~chosen
            pool = rest & ~HEARTS_MASK & ~(SUIT_MASKS[SPADES] & ~LOW_SPADES_MASK)
            if not pool:
                pool = rest
            chosen |= pool & -pool  # its lowest (rank, suit)
        return chosen
    for _ in range(count):
        rest = hand & ~chosen
        best, best_danger, cards = -1, 0.0, rest
        while cards:
            c = (cards & -cards).bit_length() - 1
            cards &= cards - 1
            danger = pass_danger(c, rest, chosen, count)
            if best < 0 or danger >= best_danger:
                best, best_danger = c, danger
        chosen |= 1 << best
    return chosen


@jit
def pass_danger(card: int, hand: int, chosen: int, count: int) -> float:
    """How much a card wants to leave the hand (higher: pass first)."""
    suit, rank = card & 3, card >> 2
    spades_low = (hand & LOW_SPADES_MASK).bit_count()
    if card == QS:
        return 100.0 if spades_low < 4 else 0.0
    if suit == SPADES and rank > 10:  # K♠, A♠
        holds_queen = hand & QS_MASK != 0 and not chosen & QS_MASK
        return 0.0 if spades_low >= 4 else (70.0 + rank if not holds_queen else 40.0 + rank)
    if suit == SPADES:
        return rank * 0.5 - (30.0 if hand & QS_MASK else 0.0)  # low spades guard the queen
    if suit == HEARTS:
        return 20.0 + rank * 4.0 if rank >= 7 else rank * 1.5
    length = (hand & SUIT_MASKS[suit]).bit_count()
    void_bonus = 30.0 - length * 5.0 if length <= count - (chosen.bit_count()) else 0.0
    return rank * 2.5 + void_bonus


@jit
def moon_potential(hand: int) -> bool:
    """A hand that can take every point: many high hearts, the top spades, few low cards."""
    hearts = hand & HEARTS_MASK
    high_hearts = (hearts >> (8 * 4)).bit_count()  # T♥ and above
    top_spades = hand & (AS_KS_MASK | QS_MASK)
    low_cards = (hand & ((1 << (6 * 4)) - 1)).bit_count()  # the 2s to the 7s
    return (
        hearts.bit_count() >= 6
        and high_hearts >= 4
        and top_spades.bit_count() >= 2
        and low_cards <= 2
    )


def threat_of_moon(view: View) -> int | None:
    """Another seat that has taken every point so far, enough of them to be a threat."""
    taken = view.points_taken
    total = sum(taken)
    if total < 8:
        return None
    for seat, p in enumerate(taken):
        if p == total and seat != view.seat:
            return seat
    return None


def choose_card(view: View, legal: int, try_moon: bool) -> int:
    """The heuristic's play from ``legal`` (a mask with two or more cards)."""
    me = view.seat
    hand = view.hand.mask
    played = view.played.mask
    trick = view.trick.cards
    queen_out = not played & QS_MASK and not hand & QS_MASK
    taken = view.points_taken
    shooter = threat_of_moon(view)
    going_for_moon = try_moon and sum(taken) == taken[me] and moon_potential(hand | view.won(me).mask)

    if not trick:  # leading
        if going_for_moon:
            return _top(legal)
        return lead_card(view, legal, hand, queen_out)

    led = trick[0].suit
    winning = max(c for c in trick if c.suit == led)
    winner_seat = view.trick.plays[[c for c in trick].index(winning)][0]
    trick_points = view.trick.points
    last = len(trick) == view.players - 1
    follow = legal & SUIT_MASKS[led]
    penalty = view.rules.penalty_mask  # R4.1, R4.5

    if going_for_moon:
        return _top(follow) if follow else _low(legal & ~penalty or legal)

    if shooter is not None and winner_seat == shooter:
        # Moon defence: beat the shooter, best with a trick holding a point.
        beaters = follow & ~((1 << winning) - 1) & ~QS_MASK if follow else 0
        if beaters and (trick_points or last or (legal & HEARTS_MASK)):
            return _top(beaters)
        if not follow:
            return _low(legal & ~penalty) if legal & ~penalty else _low(legal)

    if follow:
        under = follow & ((1 << winning) - 1)
        if led == SPADES and follow & QS_MASK and winning > QS and winner_seat != shooter:
            return QS  # dump the queen on the A♠/K♠ winner (never on a moon shooter)
        if winner_seat == shooter and under & ~QS_MASK:
            under &= ~QS_MASK
        if under:
            pick = _top(under)
            return pick
        # Every card we hold wins for now.
        if last and trick_points == 0:
            safe = follow & ~penalty
            return _top(safe) if safe else _top(follow & ~QS_MASK) if follow & ~QS_MASK else QS
        if led == SPADES and queen_out:
            safe = follow & ~AS_KS_MASK & ~QS_MASK
            if safe:
                return _top(safe)
        safe = follow & ~QS_MASK
        return _low(safe) if safe and trick_points else _top(safe) if safe else QS

    # Void in the suit led: discard.
    if legal & QS_MASK and winner_seat != shooter:
        return QS
    if legal & AS_KS_MASK and (queen_out or (view.rules.spade_penalties and winner_seat != shooter)):
        return _top(legal & AS_KS_MASK)
    if winner_seat != shooter and legal & HEARTS_MASK:
        return _top(legal & HEARTS_MASK)
    return short_suit_top(legal, hand)


def lead_card(view: View, legal: int, hand: int, queen_out: bool) -> int:
    """Lead: flush the Q♠ with low spades when safe, else low in a suit unlikely to win."""
    spades = legal & SUIT_MASKS[SPADES]
    if queen_out and spades and not hand & (AS_KS_MASK | QS_MASK) and spades & LOW_SPADES_MASK:
        return _top(spades & LOW_SPADES_MASK)
    unseen = view.unseen.mask
    best, best_key = -1, (9.0, 99, 99)
    for suit in range(4):
        mine = legal & SUIT_MASKS[suit]
        if not mine:
            continue
        low = _low(mine)
        others_below = (_below(unseen, low)).bit_count()
        others_total = (unseen & SUIT_MASKS[suit]).bit_count()
        # Chance-ish that the lead wins: few outstanding cards below ours is good.
        risk = 1.0 if others_total == 0 else others_below / others_total
        if suit == HEARTS:
            risk += 0.2
        if suit == SPADES and hand & QS_MASK:
            risk += 1.0  # keep the queen's guards
        key = (risk, (hand & SUIT_MASKS[suit]).bit_count(), low >> 2)
        if key < best_key:
            best, best_key = low, key
    return best
