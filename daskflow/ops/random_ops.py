"""Random tensors, deterministic under ``set_random_seed`` and op seeds.

TF1's seed rules: with a graph seed and no op seed, the op seed is derived
from the graph's op count; with an op seed and no graph seed, the graph seed
is a fixed default; with neither, numbers differ between sessions. Each
session replays an op's sequence from the start, as TF1 sessions do.

Numbers are drawn on the host with numpy's ``Generator`` and uploaded with
``xp.asarray``, also when the op runs on a GPU: so a seeded program draws the
same sequence on every device, and cupy's generators (which lack some of
numpy's methods) are never needed.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.replica import current_replica
from .array_ops import _as_shape_tensor
from .infer import static_shape_value

DEFAULT_GRAPH_SEED = 87654321


def set_random_seed(seed):
    """Set the graph-level seed of the default graph."""
    get_default_graph().seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """The (graph seed, op seed) pair for a new random op, or None."""
    graph = get_default_graph()
    graph_seed = graph.seed
    if graph_seed is None and op_seed is None:
        return None
    if graph_seed is None:
        graph_seed = DEFAULT_GRAPH_SEED
    if op_seed is None:
        op_seed = len(graph._ops)
    return (int(graph_seed), int(op_seed))


def _random_infer(inputs, *, dtype, seed, **_):
    return static_shape_value(inputs[0]), dtype


def _shape(s):
    return tuple(int(d) for d in s)


def _normal(xp, streams, s, *, dtype, seed):
    rng = streams.generator()
    return xp.asarray(rng.standard_normal(_shape(s), dtype=np.float64).astype(dtype.np))


def _truncated(xp, streams, s, *, dtype, seed):
    # Redraw values beyond two standard deviations, as TF's TruncatedNormal does.
    rng = streams.generator()
    out = rng.standard_normal(_shape(s))
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return xp.asarray(out.astype(dtype.np))


def _uniform(xp, streams, s, *, dtype, seed):
    return xp.asarray(streams.generator().random(_shape(s)).astype(dtype.np))


def _uniform_int(xp, streams, s, lo, hi, *, dtype, seed):
    return xp.asarray(streams.generator().integers(int(lo), int(hi), _shape(s)).astype(dtype.np))


class _Streams:
    """A session's generators for a random op, seeded by the op's (graph, op) seeds.

    One per replica (see ``framework.replica``): replicas draw different
    numbers — dropout masks differ across workers — and replica 0 draws what
    an unreplicated run draws.
    """

    def __init__(self, op):
        self.seed = op.attrs["seed"]
        self._generators: dict = {}

    def generator(self):
        index = current_replica()[0]
        rng = self._generators.get(index)
        if rng is None:
            seed = self.seed if index == 0 else np.random.SeedSequence(self.seed, spawn_key=(index,))
            rng = self._generators[index] = np.random.default_rng(seed)
        return rng


def _rand(name, kernel, grad=NOT_DIFFERENTIABLE):
    return Primitive(name, _random_infer, kernel, grad, stateful=True, make_state=_Streams)


RandomStandardNormal = _rand("RandomStandardNormal", _normal)
TruncatedNormal = _rand("TruncatedNormal", _truncated)
RandomUniform = _rand("RandomUniform", _uniform)
RandomUniformInt = _rand("RandomUniformInt", _uniform_int, None)  # TF1 registers none


def _draw(prim, shape, dtype, seed, name, *extra):
    dtype = dtypes.as_dtype(dtype)
    return apply(prim, _as_shape_tensor(shape), *extra, dtype=dtype, seed=get_seed(seed), name=name)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normally distributed values.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.random_normal([2, 3], stddev=0.1, seed=1).shape.as_list()
    [2, 3]
    """
    return _draw(RandomStandardNormal, shape, dtype, seed, name) * stddev + mean


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values, redrawn when more than two standard deviations out."""
    return _draw(TruncatedNormal, shape, dtype, seed, name) * stddev + mean


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("random_uniform with an integer dtype needs maxval")

        lo, hi = constant(minval, dtype=dtype), constant(maxval, dtype=dtype)
        return _draw(RandomUniformInt, shape, dtype, seed, name, lo, hi)
    maxval = 1.0 if maxval is None else maxval
    return _draw(RandomUniform, shape, dtype, seed, name) * (maxval - minval) + minval


# -- shuffling and sampling ---------------------------------------------------------------


def _shuffle_kernel(xp, streams, x, *, seed):
    return xp.asarray(x)[streams.generator().permutation(len(x))]


RandomShuffle = Primitive(
    "RandomShuffle",
    lambda inputs, *, seed: (inputs[0]._dims, inputs[0].dtype),
    _shuffle_kernel,
    stateful=True,
    make_state=_Streams,
    grad=NOT_DIFFERENTIABLE,
)


def random_shuffle(value, seed=None, name=None):
    """``value`` with its first dimension in a random order (a new order every run)."""
    value = convert_to_tensor(value)
    if value.shape.ndims == 0:
        raise ValueError(f"random_shuffle needs a tensor of rank >= 1; {value.name} is a scalar")
    return apply(RandomShuffle, value, seed=get_seed(seed), name=name)


def _multinomial_infer(inputs, *, num_samples, output_dtype, seed):
    logits = inputs[0]
    if logits._dims is not None and len(logits._dims) != 2:
        raise ValueError(f"logits {logits.name} must be 2-D [batch, classes], got shape {logits.shape}")
    batch = None if logits._dims is None else logits._dims[0]
    return (batch, num_samples), output_dtype


def _multinomial_kernel(xp, streams, logits, *, num_samples, output_dtype, seed):
    z = logits.astype(np.float64, copy=False)
    p = xp.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = xp.asarray(streams.generator().random((p.shape[0], num_samples)))  # drawn on the host
    picks = (u[:, :, None] > xp.cumsum(p, axis=1)[:, None, :]).sum(axis=2)
    return xp.minimum(picks, p.shape[1] - 1).astype(output_dtype.np)


Multinomial = Primitive(
    "Multinomial",
    _multinomial_infer,
    _multinomial_kernel,
    stateful=True,
    make_state=_Streams,
    grad=NOT_DIFFERENTIABLE,
)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """``num_samples`` class indices per row, drawn with probabilities ``softmax(logits)``."""
    output_dtype = dtypes.as_dtype(output_dtype or dtypes.int64)
    return apply(
        Multinomial,
        logits,
        num_samples=int(num_samples),
        output_dtype=output_dtype,
        seed=get_seed(seed),
        name=name,
    )


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """TF 1.13+'s name for :func:`multinomial`."""
    return multinomial(logits, num_samples, seed=seed, name=name, output_dtype=dtype)
