"""Parsing ``tf.train.Example`` protos: ``tf.parse_example``, ``tf.parse_single_example``,
``tf.io.parse_single_sequence_example`` and ``tf.io.parse_sequence_example``.

The specs (:mod:`daskflow.ops.parsing_config`) are checked when the graph is built;
when run, one host kernel decodes each serialized proto (protobuf's own parser, see
:mod:`daskflow.core.example.example_pb2`) and gathers every feature's values, so a
batch of records is parsed in one call. A ``FixedLenFeature`` is a dense tensor of
``[batch, *shape]``, a ``FixedLenSequenceFeature`` ``[batch, rows, *shape]`` padded to
the longest, a ``VarLenFeature`` or ``SparseFeature`` a ``SparseTensor``. A record that
does not fit its specs fails the step with TF1's ``InvalidArgumentError`` naming the
feature and the example.

Examples
--------
>>> import daskflow as tf
>>> record = tf.train.Example(features=tf.train.Features(feature={
...     "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0]))})).SerializeToString()
>>> parsed = tf.parse_single_example(record, {"x": tf.FixedLenFeature([2], tf.float32),
...                                           "y": tf.VarLenFeature(tf.int64)})
>>> with tf.Session() as sess:
...     out = sess.run(parsed)
>>> out["x"].tolist(), out["y"].dense_shape.tolist()
([1.0, 2.0], [0])
"""

from __future__ import annotations

import re

import numpy as np

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph, name_scope
from ..framework.primitive import Primitive
from ..framework.sparse_tensor import SparseTensor
from . import array_ops
from .example_parsing import parse_batch, parse_sequences
from .parsing_config import plan_features

# -- the ops ---------------------------------------------------------------------------------------


def _example_infer(inputs, *, plan, single):
    serialized = inputs[0]
    if serialized.dtype is not dtypes.string:
        raise TypeError(
            f"parse_example: serialized {serialized.name} must be strings, got {serialized.dtype.name}"
        )
    batch = () if single else tuple(serialized._dims or (None,))[:1]
    outs = _sparse_outputs(plan.sparse, batch, 1)
    outs += [(batch + ((None,) if d.rows else ()) + d.shape, d.dtype) for d in plan.dense]
    values = {s.key: s.dtype for s in plan.sparse}
    for c in plan.composite:
        rank = len(batch) + len(c.size)
        outs += [((None, rank), dtypes.int64), ((None,), values[c.value_key]), ((rank,), dtypes.int64)]
    return outs


def _sparse_outputs(sparse, batch, inner):
    rank = len(batch) + inner
    outs = []
    for s in sparse:
        outs += [((None, rank), dtypes.int64), ((None,), s.dtype), ((rank,), dtypes.int64)]
    return outs


def _example_kernel(xp, serialized, names, *defaults, plan, single):
    records = np.asarray(serialized, dtype=object).reshape(-1)
    return _outputs(parse_batch(records, _names(names, records), plan, defaults, single))


ParseExample = Primitive("ParseExampleV2", _example_infer, _example_kernel, host_only=True)


def _sequence_infer(inputs, *, context, lists, single):
    batch = () if single else tuple(inputs[0]._dims or (None,))[:1]
    outs = _sparse_outputs(context.sparse, batch, 1)
    outs += [(batch + d.shape, d.dtype) for d in context.dense]
    outs += _sparse_outputs(lists.sparse, batch, 2)
    outs += [(batch + (None,) + d.shape, d.dtype) for d in lists.dense]
    if not single:
        outs += [(batch, dtypes.int64) for _ in lists.dense]
    return outs


def _sequence_kernel(xp, serialized, names, *defaults, context, lists, single):
    records = np.asarray(serialized, dtype=object).reshape(-1)
    return _outputs(parse_sequences(records, _names(names, records), context, lists, defaults, single))


ParseSequenceExample = Primitive("ParseSequenceExampleV2", _sequence_infer, _sequence_kernel, host_only=True)


def _outputs(arrays):
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def _names(names, records):
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size == 0:
        return ["<unknown>"] * len(records)
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


# -- building them ---------------------------------------------------------------------------------


def _defaults(plan, prefix=""):
    """One tensor per dense feature: its default, or an empty one (required)."""
    out = []
    for d in plan.dense:
        name = prefix + "key_" + re.sub(r"[^A-Za-z0-9_.\-/]", "_", d.key)
        if d.default is None:
            out.append(convert_to_tensor(np.zeros(0, dtype=d.dtype.as_numpy_dtype), name=name))
            continue
        value = convert_to_tensor(d.default, dtype=d.dtype, name=name)
        out.append(array_ops.reshape(value, [] if d.rows else list(d.shape)))
    return out


def _sparse_results(outputs, plan):
    results = {}
    for i, s in enumerate(plan.sparse):
        results[s.key] = SparseTensor(*outputs[3 * i : 3 * i + 3])
    return results, outputs[3 * len(plan.sparse) :]


def _example_op(serialized, features, names, single, name):
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    plan = plan_features(features)
    with name_scope(name, "ParseExample" if not single else "ParseSingleExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        _check_rank(serialized, 0 if single else 1)
        names = convert_to_tensor([] if names is None else names, dtype=dtypes.string, name="names")
        op = get_default_graph().create_op(
            ParseExample,
            [serialized, names, *_defaults(plan)],
            {"plan": plan, "single": single},
            name="ParseExampleV2",
        )
        results, rest = _sparse_results(list(op.outputs), plan)
        results.update((d.key, t) for d, t in zip(plan.dense, rest))
        rest = rest[len(plan.dense) :]
        for i, c in enumerate(plan.composite):
            results[c.key] = SparseTensor(*rest[3 * i : 3 * i + 3])
    return {key: results[key] for key in features}


def _check_rank(serialized, rank):
    if serialized.shape.ndims is not None and serialized.shape.ndims != rank:
        raise ValueError(
            f"Shape must be rank {rank} but is rank {serialized.shape.ndims} for serialized "
            f"{serialized.name} ({'a scalar: one record' if rank == 0 else 'a vector of records'})"
        )


def parse_example(serialized, features, name=None, example_names=None):
    """Parse a batch of serialized ``Example`` protos (TF1's ``tf.parse_example``).

    Parameters
    ----------
    serialized : string Tensor of shape ``[batch]``
    features : dict
        Feature key to ``FixedLenFeature``, ``VarLenFeature``, ``SparseFeature`` or
        ``FixedLenSequenceFeature`` (``allow_missing=True``).
    name : str, optional
    example_names : string Tensor of shape ``[batch]``, optional
        Names the errors give each example.

    Returns
    -------
    dict
        Feature key to a ``Tensor`` (``[batch, *shape]``; ``[batch, rows, *shape]`` for a
        sequence feature) or a ``SparseTensor`` (``[batch, longest]``; ``[batch, *size]``).

    Raises
    ------
    ValueError
        For an empty ``features``, a spec of another dtype than float32, int64 or string,
        an unknown shape, a default that does not fit its shape.
    tf.errors.InvalidArgumentError
        When run, for a record that is no ``Example``, or a feature that is missing
        (without default), of another type, or of another length than its shape.
    """
    return _example_op(serialized, features, example_names, False, name)


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parse one serialized ``Example`` (TF1's ``tf.parse_single_example``): as
    :func:`parse_example` without the batch dimension.

    Parameters
    ----------
    serialized : scalar string Tensor
    features : dict
        Feature key to spec, as :func:`parse_example`'s.
    name : str, optional
    example_names : scalar string Tensor, optional

    Returns
    -------
    dict
        Feature key to a ``Tensor`` of the spec's shape, or a ``SparseTensor``.
    """
    return _example_op(serialized, features, example_names, True, name)


def _sequence_op(serialized, context_features, sequence_features, names, single, name):
    context = plan_features(context_features or {}, "context")
    lists = plan_features(sequence_features or {}, "lists")
    if not (context_features or sequence_features):
        raise ValueError("Missing features.")
    with name_scope(name, "ParseSingleSequenceExample" if single else "ParseSequenceExample"):
        serialized = convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        _check_rank(serialized, 0 if single else 1)
        names = convert_to_tensor([] if names is None else names, dtype=dtypes.string, name="debug_name")
        defaults = _defaults(context, "context_") + _defaults(lists, "feature_list_")
        attrs = {"context": context, "lists": lists, "single": single}
        op = get_default_graph().create_op(
            ParseSequenceExample, [serialized, names, *defaults], attrs, name="ParseSequenceExampleV2"
        )
        outputs = list(op.outputs)
        context_out, outputs = _sparse_results(outputs, context)
        context_out.update((d.key, t) for d, t in zip(context.dense, outputs))
        lists_out, outputs = _sparse_results(outputs[len(context.dense) :], lists)
        lists_out.update((d.key, t) for d, t in zip(lists.dense, outputs))
        lengths = {d.key: t for d, t in zip(lists.dense, outputs[len(lists.dense) :])}
    return context_out, lists_out, lengths


def parse_single_sequence_example(
    serialized, context_features=None, sequence_features=None, example_name=None, name=None
):
    """Parse one serialized ``SequenceExample`` (TF1's ``tf.io.parse_single_sequence_example``).

    Parameters
    ----------
    serialized : scalar string Tensor
    context_features : dict, optional
        Key to ``FixedLenFeature`` or ``VarLenFeature``, read from the context.
    sequence_features : dict, optional
        Key to ``FixedLenSequenceFeature`` (``[steps, *shape]``; ``allow_missing``: an
        absent list has no steps) or ``VarLenFeature`` (a ``SparseTensor`` of
        ``[steps, longest]``), read from the feature lists.
    example_name : scalar string Tensor, optional
    name : str, optional

    Returns
    -------
    tuple of dict
        The context's features and the sequence's.
    """
    context, lists, _ = _sequence_op(
        serialized, context_features, sequence_features, example_name, True, name
    )
    return context, lists


def parse_sequence_example(
    serialized, context_features=None, sequence_features=None, example_names=None, name=None
):
    """Parse a batch of serialized ``SequenceExample`` protos (TF1's
    ``tf.io.parse_sequence_example``): as :func:`parse_single_sequence_example` with a
    batch dimension, the sequences padded to the longest.

    Returns
    -------
    tuple of dict
        The context's features, the sequence's, and each dense sequence feature's lengths
        (``[batch]`` int64).
    """
    return _sequence_op(serialized, context_features, sequence_features, example_names, False, name)
