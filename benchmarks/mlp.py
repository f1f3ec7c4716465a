"""The benchmarks' MLP layers, for daskflow or TF1 (any module with TF1's API)."""

from __future__ import annotations

import numpy as np


def dense_layers(tf, x, shapes, initial):
    """``x`` through dense layers of ``shapes`` (ReLU between, none after the last): the
    logits. ``initial(k, rows, columns)``: layer ``k``'s initial weights (a value or a
    tensor); biases start at zero. Variables are made weight, then bias, layer by layer."""
    h = x
    for k, (a, b) in enumerate(zip(shapes, shapes[1:])):
        h = tf.matmul(h, tf.Variable(initial(k, a, b))) + tf.Variable(tf.zeros([b]))
        if k < len(shapes) - 2:
            h = tf.nn.relu(h)
    return h


def drawn_from(rng, scale=0.01):
    """``initial`` for :func:`dense_layers`: float32 normal weights times ``scale``, drawn
    from the numpy generator ``rng`` in layer order."""
    return lambda k, rows, columns: (rng.standard_normal((rows, columns)) * scale).astype(np.float32)
