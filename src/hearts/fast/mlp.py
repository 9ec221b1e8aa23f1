"""numpy's forward pass of a :class:`hearts.bots.reader.Network` (loaded by name from
:func:`hearts.fast.mlp`: the core imports no numpy). The same arithmetic as
:meth:`Network.pure <hearts.bots.reader.Network.pure>` on the same half-float weights, in float32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

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
