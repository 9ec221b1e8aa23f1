"""Reading the table: learned card locations from one seat's view, shipped with their weights.

The search samples the hidden hands among the deals its view allows (:class:`~hearts.bots.search.HiddenDeal`:
hand sizes, voids, the cards it passed). A *card-location model* says more: for each card this
seat has not seen, the probability that each other seat holds it, given everything the seat may
know (R7) — who dumped high spades, who ducked a heart, who led which suit. ``search:read=1``
(``benchmarks/strength.py`` measures ``hard`` with it as "the reading bot") draws its samples in
proportion to these probabilities (:func:`card_odds`), still only among the deals the hard facts
allow.

The model is a small multilayer perceptron (:class:`Network`) over the features of a view
(:func:`features`), trained with PyTorch on self-play of our own bots (``examples/train_reader.py``,
:mod:`hearts.rl.reading`) and shipped in the package as a small file (:data:`CARDS_MODEL`,
format below) that the standard library reads. Its forward pass runs with numpy when numpy is
installed (``hearts.fast.mlp``, as the search runs compiled when numba is) and as plain Python
otherwise, on the same weights: the same probabilities to rounding. Playing never needs PyTorch.

The features (:data:`FEATURES`, four players; seats *relative*: 0 is the viewing seat, 1 the seat on
its left, …), each a block of 52 card flags unless said otherwise:

===============  =========  ==============================================================
block            size       a flag is 1 when
===============  =========  ==============================================================
``hand``         52         the card is in this seat's hand
``hidden``       52         the card is hidden from this seat: held by another, holder unknown
``played``       4 × 52     the relative seat played the card this round
``led``          4 × 52     … led it
``discarded``    4 × 52     … played it on a trick of another suit (not following)
``topped``       4 × 52     … followed suit with it above the trick's highest card so far
``won_with``     4 × 52     … won a trick with it
``trick``        4 × 52     … played it to the trick in progress
``passed``       52         this seat passed it (R2)
``received``     52         this seat received it
``pass_to``      4          the relative seat passed to (0: a hold round)
``voids``        4 × 4      the relative seat has shown it lacks the suit (R3.2)
``leader``       4          the relative seat that led the trick in progress
``length``       4          cards in the trick in progress
``tricks``       14         tricks completed (one-hot)
``points``       4          points taken by the relative seat / 26 (a number, not a flag)
``broken``       1          hearts are broken
``need``         4          hidden cards the relative seat holds / 13 (:func:`need_of`; a number)
===============  =========  ==============================================================

The card-location model's outputs are 52 × 3 logits: card ``c``, relative seat ``r`` (1, 2, 3) at
``3 * c + r - 1``; a card's probabilities are the softmax, over the seats that may hold it (not
void in its suit, cards still to get), of its logits plus the log of the hidden cards each seat
holds: the model learns how far the plays move a card from the share the hand sizes give.

The weights file (``.nn``): the bytes ``PYHEARTSNN``, a little-endian u32 ``L``, ``L`` bytes
of JSON (``format`` ``"pyhearts-nn"``, ``version`` 1, ``features`` the name and size of the
encoding, ``layers`` the ``[inputs, outputs]`` of each linear layer, ReLU between them,
``dtype`` ``"f2"`` and what the training said), then each layer's weights (``outputs`` rows of
``inputs``, row-major) and biases as little-endian IEEE half floats.

>>> from hearts import Game, Rules
>>> from hearts.view import View
>>> view = View.of(Game(Rules(), seed=2), 0)
>>> active, values = features(view)
>>> len(active), sum(1 for i in active if i < 52), FEATURES
(59, 13, 1507)
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from hearts.errors import HeartsError
from hearts.view import View

N: Final = 4
"""The model's number of players (other tables sample as before)."""

_BLOCKS: Final = (("hand", 52), ("hidden", 52), ("played", 208), ("led", 208), ("discarded", 208),
                  ("topped", 208), ("won_with", 208), ("trick", 208), ("passed", 52), ("received", 52),
                  ("pass_to", 4), ("voids", 16), ("leader", 4), ("length", 4), ("tricks", 14), ("points", 4),
                  ("broken", 1), ("need", 4))


def _offsets() -> dict[str, int]:
    out, at = {}, 0
    for name, size in _BLOCKS:
        out[name] = at
        at += size
    out["end"] = at
    return out


AT: Final = _offsets()
"""Where each block of the features starts (``AT["end"]``: their number)."""
FEATURES: Final = AT["end"]
"""The number of features of a view (:func:`features`)."""
ENCODING: Final = "reader-v1"
"""The name of this encoding, written in a weights file and checked when it is loaded."""
OUTPUTS: Final = 52 * (N - 1)
"""The card-location model's outputs: a logit per card and other seat."""

CARDS_MODEL: Final = "cards-v1.nn"
"""The card-location model shipped in ``hearts/bots/models``."""
POLICY_MODEL: Final = "policy-v1.nn"
"""The policy of the bot ``neural`` (:mod:`hearts.bots.neural`), shipped beside it: a logit per card."""
PASS_MODEL: Final = "pass-v1.nn"
"""The pass of the bot ``neural``, shipped beside its policy: a logit per card of the hand, from
:func:`pass_features` (the cards with the highest logits are passed)."""
PASS_ENCODING: Final = "pass-v1"
"""The name of the pass network's encoding (:func:`pass_features`)."""
PASS_FEATURES: Final = 52 + 3
"""The number of features of a pass decision: the hand's 52 card flags, then the direction (left,
across, right) one-hot."""


def applies(view: View) -> bool:
    """Whether the models read this view: four players, a 52-card deck, play under way."""
    return view.players == N and view.rules.deck_mask == (1 << 52) - 1 and view.phase.value == "playing"


def pass_applies(view: View) -> bool:
    """Whether the pass network (:data:`PASS_MODEL`) chooses this view's pass: four players, a
    52-card deck, three cards to pass (what it was trained on), a pass to make."""
    return (view.players == N and view.rules.deck_mask == (1 << 52) - 1 and view.rules.pass_count == 3
            and view.must_pass and view.pass_to is not None)


def pass_features(view: View) -> tuple[list[int], list[float]]:
    """The features of a pass decision (:data:`PASS_ENCODING`) as :func:`features` gives them
    (active indices, values): a flag per card of the hand, then one for the direction, the seat
    passed to relative to this one (``52 + offset - 1``: left, across, right).

    >>> from hearts import Game, Rules
    >>> active, values = pass_features(View.of(Game(Rules(), seed=2), 0))
    >>> len(active), active[-1], set(values)  # round 1 passes left
    (14, 52, {1.0})
    """
    if view.pass_to is None:
        raise HeartsError("a pass decision's features need a seat to pass to")
    active = [int(c) for c in view.hand] + [52 + (view.pass_to - view.seat) % N - 1]
    return sorted(active), [1.0] * len(active)


def features(view: View) -> tuple[list[int], list[float]]:
    """The features of ``view`` (the module's table) as the indices of the non-zero ones and their
    values, in increasing order of index. Only what the seat may know (R7): its hand, its pass,
    the plays, the voids."""
    me = view.seat
    on: dict[int, float] = {}

    def card(block: str, seat: int, c: int) -> None:
        on[AT[block] + 52 * ((seat - me) % N) + c] = 1.0

    for c in view.hand:
        on[AT["hand"] + c] = 1.0
    hidden = view.unseen.mask & ~view.known_elsewhere.mask
    while hidden:
        low = hidden & -hidden
        on[AT["hidden"] + low.bit_length() - 1] = 1.0
        hidden ^= low
    for t in (*view.tricks, view.trick):
        top = -1
        for i, c in enumerate(t.cards):
            seat = (t.leader + i) % N
            card("played", seat, c)
            if i == 0:
                card("led", seat, c)
                top = c
            elif c.suit != t.cards[0].suit:
                card("discarded", seat, c)
            elif c > top:
                card("topped", seat, c)
                top = c
            if t is view.trick:
                card("trick", seat, c)
        if t.winner is not None:
            card("won_with", t.winner, t.cards[(t.winner - t.leader) % N])
    for block, cards in (("passed", view.passed), ("received", view.received)):
        for c in cards or ():
            on[AT[block] + c] = 1.0
    on[AT["pass_to"] + (0 if view.pass_to is None else (view.pass_to - me) % N)] = 1.0
    for seat, suits in enumerate(view.voids):
        for suit in suits:
            on[AT["voids"] + 4 * ((seat - me) % N) + suit] = 1.0
    on[AT["leader"] + (view.trick.leader - me) % N] = 1.0
    on[AT["length"] + len(view.trick.cards)] = 1.0
    on[AT["tricks"] + len(view.tricks)] = 1.0
    for seat, points in enumerate(view.points_taken):
        if points:
            on[AT["points"] + (seat - me) % N] = points / 26
    if view.hearts_broken:
        on[AT["broken"]] = 1.0
    for seat, need in enumerate(need_of(view)):
        if need > 0:
            on[AT["need"] + (seat - me) % N] = need / 13
    active = sorted(on)
    return active, [on[i] for i in active]


@dataclass(frozen=True)
class Network:
    """A multilayer perceptron read from a weights file (the module docstring): linear layers
    with ReLU between them. Call it on a view's :func:`features` for its outputs."""

    header: dict[str, Any]
    layers: tuple[tuple[int, int], ...]
    weights: tuple[tuple[tuple[float, ...], ...], ...]  # per layer: a row per output
    biases: tuple[tuple[float, ...], ...]
    columns: tuple[float, ...]  # the first layer's weights by input: inputs × outputs, flat

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "weights") -> Network:
        """A network from the bytes of a weights file; a file of another format, or that does
        not fit its header, is a :class:`~hearts.errors.HeartsError`."""
        if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
            raise HeartsError(f"{what}: not a pyhearts weights file")
        (size,) = struct.unpack_from("<I", data, len(MAGIC))
        start = len(MAGIC) + 4 + size
        try:
            header = json.loads(data[len(MAGIC) + 4 : start])
            layers = tuple((int(a), int(b)) for a, b in header["layers"])
            ok = header["format"] == "pyhearts-nn" and header["version"] == 1 and header["dtype"] == "f2"
        except (ValueError, KeyError, TypeError) as e:
            raise HeartsError(f"{what}: a bad header ({e})") from None
        count = sum(a * b + b for a, b in layers)
        if not ok or len(data) != start + 2 * count or not layers:
            raise HeartsError(f"{what}: not version 1 of pyhearts-nn in half floats, or not the size its header says")
        values = struct.unpack_from(f"<{count}e", data, start)
        weights, biases, at = [], [], 0
        for inputs, outputs in layers:
            weights.append(tuple(values[at + o * inputs : at + (o + 1) * inputs] for o in range(outputs)))
            at += inputs * outputs
            biases.append(values[at : at + outputs])
            at += outputs
        first = weights[0]
        columns = tuple(first[o][i] for i in range(layers[0][0]) for o in range(layers[0][1]))
        return cls(header, layers, tuple(weights), tuple(biases), columns)

    def to_bytes(self) -> bytes:
        """The weights file of this network (what :meth:`from_bytes` reads)."""
        return encode_network(self.header, [[list(row) for row in w] for w in self.weights],
                              [list(b) for b in self.biases])

    def __call__(self, active: Sequence[int], values: Sequence[float]) -> list[float]:
        """The outputs for the inputs that are ``values`` at ``active`` (0 elsewhere): numpy's
        forward pass where numpy is installed (``hearts.fast.mlp``), else :meth:`pure`."""
        dense = _dense()
        if dense is not None:
            return dense.forward(self, active, values)  # type: ignore[no-any-return]
        return self.pure(active, values)

    def pure(self, active: Sequence[int], values: Sequence[float]) -> list[float]:
        """The forward pass in plain Python."""
        width = self.layers[0][1]
        h = list(self.biases[0])
        cols = self.columns
        for i, v in zip(active, values, strict=True):
            row = cols[i * width : (i + 1) * width]
            if v == 1.0:
                h = [a + b for a, b in zip(h, row, strict=True)]
            else:
                h = [a + v * b for a, b in zip(h, row, strict=True)]
        for w, b in zip(self.weights[1:], self.biases[1:], strict=True):
            h = [x if x > 0.0 else 0.0 for x in h]
            h = [bias + math.fsum(map(float.__mul__, row, h)) for row, bias in zip(w, b, strict=True)]
        return h


MAGIC: Final = b"PYHEARTSNN"


def encode_network(header: dict[str, Any], weights: Sequence[Sequence[Sequence[float]]],
                   biases: Sequence[Sequence[float]]) -> bytes:
    """The bytes of a weights file: ``header`` (completed with the format, version, dtype and
    layers) and each layer's weight rows (one per output) and biases, in half floats."""
    layers = [[len(w[0]), len(w)] for w in weights]
    head = {**header, "format": "pyhearts-nn", "version": 1, "dtype": "f2", "layers": layers}
    text = json.dumps(head, sort_keys=True).encode()
    flat: list[float] = []
    for w, b in zip(weights, biases, strict=True):
        for row in w:
            flat.extend(row)
        flat.extend(b)
    return MAGIC + struct.pack("<I", len(text)) + text + struct.pack(f"<{len(flat)}e", *flat)


@cache
def _dense() -> Any:
    """``hearts.fast.mlp`` (numpy's forward pass), or ``None`` where numpy is missing or the
    kernel is told to run as Python (``PYHEARTS_PURE``)."""
    from hearts import fast

    return fast.networks()


@cache
def shipped(name: str = CARDS_MODEL) -> Network:
    """A network shipped in the package (``hearts/bots/models/NAME``), loaded once; one made for
    other features than its own (:func:`pass_features` for :data:`PASS_MODEL`, :func:`features`
    for the others) is a :class:`~hearts.errors.HeartsError`."""
    data = resources.files("hearts.bots").joinpath("models", name).read_bytes()
    network = Network.from_bytes(data, name)
    encoding, expected = network.header.get("features"), [ENCODING, FEATURES]
    if name == PASS_MODEL:
        expected = [PASS_ENCODING, PASS_FEATURES]
    if encoding != expected:
        raise HeartsError(f"{name}: made for the features {encoding!r}, not {expected!r}")
    return network


def holders(view: View, network: Network | None = None) -> list[list[float]]:
    """For each card (by id), the probability that each seat (absolute) holds it, by the
    card-location model (``network``: the shipped one by default) from ``view`` alone (R7). A
    card this seat holds, has seen played, or knows where it is, has its holder's 1; a hidden
    card is spread over the seats that may hold it (not void in its suit, with cards to get)."""
    if not applies(view):
        raise HeartsError("the card-location model reads four-player views of play with the full deck")
    network = network or shipped()
    logits = network(*features(view))
    me = view.seat
    out = [[0.0] * N for _ in range(52)]
    for card in view.hand:
        out[card][me] = 1.0
    known = view.known_elsewhere.mask
    hidden = view.unseen.mask & ~known
    room = need_of(view)
    for c in range(52):
        if known >> c & 1 and view.pass_to is not None:
            out[c][view.pass_to] = 1.0
        if not hidden >> c & 1:
            continue
        seats = [s for s in range(N) if s != me and room[s] > 0 and c & 3 not in view.voids[s]]
        if not seats:
            continue
        z = [logits[3 * c + (s - me) % N - 1] + math.log(room[s]) for s in seats]
        top = max(z)
        odds = [math.exp(v - top) for v in z]
        total = sum(odds)
        for s, o in zip(seats, odds, strict=True):
            out[c][s] = o / total
    return out


def need_of(view: View) -> list[int]:
    """How many hidden cards each seat holds (0 for this seat): its hand size less the cards this
    seat passed it, still unplayed."""
    need = list(view.hand_sizes)
    need[view.seat] = 0
    if view.pass_to is not None:
        need[view.pass_to] -= view.known_elsewhere.mask.bit_count()
    return need


ODDS_SCALE: Final = 1 << 20
"""The odds of :func:`card_odds` are whole numbers: a probability times this, over the cards a seat needs."""


def card_odds(view: View, network: Network | None = None) -> list[int]:
    """The card-location model's probabilities as the search's sampler takes them
    (:func:`~hearts.bots.search.sample_deal`): ``odds[n * c + s]``, card ``c`` to seat ``s``, is
    the model's probability over the cards seat ``s`` needs, times :data:`ODDS_SCALE`, plus 1
    where the seat may hold the card (never 0 there: what the hard facts allow stays possible),
    0 where it may not. The sampler deals a card to a seat with odds ``odds × cards it still
    needs``: the model's probability for the first card dealt, less as the seat's hand fills."""
    probabilities = holders(view, network)
    need = need_of(view)
    out = [0] * (52 * N)
    for c in range(52):
        for s in range(N):
            if need[s] > 0 and c & 3 not in view.voids[s] and s != view.seat:
                out[N * c + s] = 1 + int(ODDS_SCALE * probabilities[c][s] / need[s])
    return out

