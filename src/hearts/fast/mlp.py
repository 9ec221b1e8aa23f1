"""numpy's forward pass of a :class:`hearts.bots.reader.Network` (loaded by name from
:func:`hearts.fast.mlp`: the core imports no numpy). The same arithmetic as
:meth:`Network.pure <hearts.bots.reader.Network.pure>` on the same half-float weights, in float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hearts.cards import cards_of

_MATRICES: dict[int, tuple[Any, list[tuple[Any, Any]]]] = {}


def _matrices(network: Any) -> tuple[Any, list[tuple[Any, Any]]]:
    """The network's first layer by input (inputs × outputs) and its layers as arrays, made once."""
    key = id(network)
    found = _MATRICES.get(key)
    if found is None or found[0] is not network:
        layers = [(np.array(w, dtype=np.float32), np.array(b, dtype=np.float32))
                  for w, b in zip(network.weights, network.biases, strict=True)]
        found = (network, [(np.ascontiguousarray(layers[0][0].T), layers[0][1]), *layers[1:]])
        _MATRICES[key] = found
    return found[0], found[1]


def forward(network: Any, active: Sequence[int], values: Sequence[float]) -> list[float]:
    """The outputs of ``network`` for the inputs ``values`` at ``active`` (0 elsewhere)."""
    _, layers = _matrices(network)
    first, bias = layers[0]
    h = bias + np.asarray(values, dtype=np.float32) @ first[np.asarray(active, dtype=np.intp)]
    for w, b in layers[1:]:
        h = w @ np.maximum(h, 0.0) + b
    return [float(x) for x in h]


def forward_batch(network: Any, inputs: Any) -> Any:
    """The outputs of ``network`` for a batch of dense inputs (rows): for the measurements."""
    _, layers = _matrices(network)
    first, bias = layers[0]
    h = np.asarray(inputs, dtype=np.float32) @ first + bias
    for w, b in layers[1:]:
        h = np.maximum(h, 0.0) @ w.T + b
    return h


def play_log_likelihoods(network: Any, plays: Sequence[Any], worlds: Sequence[int], count: int, n: int,
                         legal: Sequence[int], floor: float, hand_at: int, hidden_at: int) -> list[float]:
    """``hearts.bots.inference.log_likelihoods``: for each of ``count`` worlds (``worlds[w * n + s]``
    the hidden hand of seat ``s``), the sum over the past ``plays`` of the log of the policy
    ``network``'s probability of the card played (softmax over ``legal[w * P + k]``), at least
    ``floor``. The first layer: each play's features but the hand and hidden cards, then the
    world's hand of the seat (its hidden cards are the play's ``rest`` less its hand)."""
    _, layers = _matrices(network)
    first, bias = layers[0]
    width = first.shape[1]
    swap = first[hand_at : hand_at + 52] - first[hidden_at : hidden_at + 52]  # a card in the hand, not hidden
    count_p = len(plays)
    public = np.empty((count_p, width), dtype=np.float32)
    for k, q in enumerate(plays):
        h = bias + np.asarray(q.values, dtype=np.float32) @ first[np.asarray(q.active, dtype=np.intp)]
        h = h + first[np.asarray([hidden_at + c for c in cards_of(q.rest)], dtype=np.intp)].sum(0)
        public[k] = h + swap[np.asarray(cards_of(q.later), dtype=np.intp)].sum(0)
    cards = np.arange(52, dtype=np.int64)
    hands = np.asarray(worlds, dtype=np.int64).reshape(count, n)
    onehot = ((hands[:, :, None] >> cards) & 1).astype(np.float32)  # count × n × 52
    seats = np.asarray([q.seat for q in plays], dtype=np.intp)
    h = (public[None, :, :] + (onehot @ swap)[:, seats, :]).reshape(count * count_p, width)
    for w, b in layers[1:]:
        h = np.maximum(h, 0.0) @ w.T + b
    logits = h.reshape(count, count_p, -1)[:, :, :52].astype(np.float64)
    allowed = ((np.asarray(legal, dtype=np.int64).reshape(count, count_p)[:, :, None] >> cards) & 1).astype(bool)
    masked = np.where(allowed, logits, -np.inf)
    top = masked.max(axis=2, keepdims=True)
    lse = np.log(np.exp(masked - top).sum(axis=2)) + top[:, :, 0]
    played = np.asarray([q.card for q in plays], dtype=np.intp)
    chosen = logits[:, np.arange(count_p), played]
    ok = allowed[:, np.arange(count_p), played]
    logp = np.where(ok, chosen - lse, -np.inf)
    return [float(x) for x in np.maximum(logp, np.log(floor)).sum(axis=1)]
