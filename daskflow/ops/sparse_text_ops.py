"""Sparse sequences of tokens: ``string_split`` and ``edit_distance``.

Both read or make :class:`~daskflow.framework.sparse_tensor.SparseTensor`
values whose last dimension runs along a sequence. Neither is
differentiable (TF1 declares neither a gradient).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.apply import apply
from ..framework.arguments import argument_lookup, refuse
from ..framework.constant import convert_to_tensor
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.sparse_tensor import SparseTensor
from .sparse_ops import _shape_dims, _sparse

# -- string_split -----------------------------------------------------------------------------


def _split_one(text, delimiter, skip_empty):
    if not delimiter:  # an empty delimiter splits into single characters (bytes), as TF1
        return [text[i : i + 1] for i in range(len(text))]
    tokens, start = [], 0
    for i, byte in enumerate(text):
        if byte in delimiter:  # each byte of the delimiter is a separator of its own
            tokens.append(text[start:i])
            start = i + 1
    tokens.append(text[start:])
    return [t for t in tokens if t] if skip_empty else tokens


def _split_kernel(xp, source, delimiter, *, skip_empty):
    sep = delimiter.item() if isinstance(delimiter, np.ndarray) else delimiter
    sep = sep.encode() if isinstance(sep, str) else sep
    rows = [_split_one(s.encode() if isinstance(s, str) else s, sep, skip_empty) for s in source.tolist()]
    indices = [[i, j] for i, row in enumerate(rows) for j in range(len(row))]
    values = np.empty(len(indices), dtype=object)
    values[:] = [t for row in rows for t in row]
    width = max((len(row) for row in rows), default=0)
    return np.asarray(indices, np.int64).reshape(-1, 2), values, np.asarray([len(rows), width], np.int64)


def _split_infer(inputs, **_):
    source, delimiter = inputs
    if source.dtype is not dtypes.string or delimiter.dtype is not dtypes.string:
        raise TypeError(f"string_split takes string tensors, got {source.dtype.name} ({source.name})")
    if source._dims is not None and len(source._dims) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(source._dims)} for {source.name}")
    if delimiter._dims not in (None, ()):
        raise ValueError(f"Shape must be rank 0 but is rank {len(delimiter._dims)} for {delimiter.name}")
    return [((None, 2), dtypes.int64), ((None,), dtypes.string), ((2,), dtypes.int64)]


StringSplit = Primitive("StringSplit", _split_infer, _split_kernel, host_only=True, grad=NOT_DIFFERENTIABLE)


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """Split each string of the vector ``source`` at any byte of ``sep`` (a space by default;
    an empty one splits into characters); a ``SparseTensor`` with row ``i`` holding the
    tokens of ``source[i]`` (``delimiter`` is ``sep``'s older name).

    Examples
    --------
    >>> import daskflow as tf
    >>> st = tf.Session().run(tf.string_split(["a b", "c"]))
    >>> st.values.tolist(), st.dense_shape.tolist()
    ([b'a', b'b', b'c'], [2, 2])
    """
    sep = argument_lookup("sep", sep, "delimiter", delimiter)
    if result_type != "SparseTensor":
        raise refuse("string_split", "result_type", result_type, "daskflow returns a SparseTensor")
    source = convert_to_tensor(source, dtype=dtypes.string)
    sep = convert_to_tensor(" " if sep is None else sep, dtype=dtypes.string)
    parts = apply(StringSplit, source, sep, skip_empty=bool(skip_empty), name=name or "StringSplit")
    return SparseTensor(*parts)


# -- edit_distance ------------------------------------------------------------------------------


def _levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _sequences(indices, values, name):
    """``{location: values in the order given}``, the location being all coordinates but the last."""
    groups: dict = {}
    for row, v in zip(np.asarray(indices).tolist(), values.tolist()):
        groups.setdefault(tuple(row[:-1]), []).append(v)
    return groups


def _check(indices, values, shape, name):
    if indices.ndim != 2:
        raise InvalidArgumentError(
            None, None, f"{name}_indices should be a matrix, but got shape: {list(indices.shape)}"
        )
    if values.shape[0] != indices.shape[0]:
        raise InvalidArgumentError(
            None,
            None,
            f"Expected {name}_values.NumElements == #rows({name}_indices), their shapes are: "
            f"{list(values.shape)} and {list(indices.shape)}",
        )
    if shape.shape[0] != indices.shape[1]:
        raise InvalidArgumentError(
            None,
            None,
            f"Expected {name}_shape.NumElements == #cols({name}_indices), their shapes are: "
            f"{list(shape.shape)} and {list(indices.shape)}",
        )


def _edit_distance_kernel(xp, h_indices, h_values, h_shape, t_indices, t_values, t_shape, *, normalize):
    _check(h_indices, h_values, h_shape, "hypothesis")
    _check(t_indices, t_values, t_shape, "truth")
    if len(h_shape) != len(t_shape):
        raise InvalidArgumentError(
            None,
            None,
            f"hypothesis and truth must have the same rank: {h_shape.tolist()} vs {t_shape.tolist()}",
        )
    out_shape = tuple(int(d) for d in np.maximum(h_shape, t_shape)[:-1])
    out = np.zeros(out_shape, dtype=np.float32)
    hyp, truth = _sequences(h_indices, h_values, "hypothesis"), _sequences(t_indices, t_values, "truth")
    for loc in hyp.keys() | truth.keys():
        if any(not 0 <= c < d for c, d in zip(loc, out_shape)):
            raise InvalidArgumentError(
                None, None, f"Invalid location {list(loc)} for output of shape {out_shape}"
            )
        h, t = hyp.get(loc), truth.get(loc)
        if h is None:  # nothing hypothesised: every truth token is an insertion
            out[loc] = 1.0 if normalize else len(t)
        elif t is None:  # nothing true: normalizing divides by an empty truth
            out[loc] = np.inf if normalize else len(h)
        else:
            out[loc] = _levenshtein(h, t) / (len(t) if normalize else 1)
    return out


def _edit_distance_infer(inputs, *, normalize):
    h_values, h_shape, t_values, t_shape = inputs[1], inputs[2], inputs[4], inputs[5]
    if h_values.dtype is not t_values.dtype:
        raise TypeError(
            f"edit_distance: hypothesis {h_values.name} is {h_values.dtype.name}, "
            f"truth {t_values.name} is {t_values.dtype.name}"
        )
    h_value, t_value = _constant_shape(h_shape), _constant_shape(t_shape)
    if h_value is None or t_value is None:
        return None, dtypes.float32  # TF1: the output shape needs both dense shapes' values
    if len(h_value) != len(t_value):
        raise ValueError(
            f"Inconsistent rank in hypothesis_shape vs. truth_shape: {len(h_value)} vs. {len(t_value)}"
        )
    return tuple(max(a, b) for a, b in zip(h_value[:-1], t_value[:-1])), dtypes.float32


def _constant_shape(shape):
    dims = _shape_dims(shape)
    return None if dims is None or None in dims else dims


EditDistance = Primitive(
    "EditDistance", _edit_distance_infer, _edit_distance_kernel, host_only=True, grad=NOT_DIFFERENTIABLE
)


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences along the last dimension of two
    ``SparseTensor`` values, per location of the other dimensions.

    ``normalize`` divides by the truth's length (a location with no truth gives ``inf``,
    one with no hypothesis 1). The result is float32, of shape the larger of the two
    dense shapes without their last dimension.

    Examples
    --------
    >>> import daskflow as tf
    >>> h = tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
    >>> t = tf.SparseTensor([[0, 0]], ["a"], [1, 1])
    >>> tf.Session().run(tf.edit_distance(h, t, normalize=False)).tolist()
    [1.0]
    """
    if not isinstance(hypothesis, SparseTensor) and not hasattr(hypothesis, "dense_shape"):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, SparseTensor) and not hasattr(truth, "dense_shape"):
        raise TypeError("Truth must be a SparseTensor.")
    h, t = _sparse(hypothesis, "edit_distance"), _sparse(truth, "edit_distance")
    parts = (h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape)
    return apply(EditDistance, *parts, normalize=bool(normalize), name=name)
