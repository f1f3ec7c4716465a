"""TF1's other segment reductions: ``unsorted_segment_min``/``_prod`` (primitives, with
TF1's gradients), ``unsorted_segment_mean``/``_sqrt_n`` (TF1's compositions of segment
sums) and ``sparse_segment_sum``/``_mean``/``_sqrt_n`` (a gather of rows, then a
segment sum scaled by the segment's count, as TF1's kernels compute).

Shape inference and id checks are :mod:`.segment_ops`' own. An empty segment gets
TF1's value: the dtype's largest value for a minimum, 1 for a product, 0 for the rest.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .segment_ops import (
    _check_range,
    _gather_kept,
    _num,
    _unsorted_infer,
    _unsorted_max_grad,
    segment_sum,
    unsorted_segment_sum,
)


def _unsorted_kernel(ufunc, empty):
    def kernel(xp, data, ids, num):
        n = int(num)
        _check_range(xp, ids.reshape(-1), n)
        out = xp.full((n,) + data.shape[ids.ndim :], empty(data.dtype), dtype=data.dtype)
        keep = ids >= 0  # negative ids are dropped, as TF does
        at = getattr(getattr(xp, ufunc), "at", None)
        if at is not None:
            try:
                at(out, ids[keep], data[keep])
                return out
            except NotImplementedError:  # cupy has multiply.at, but it refuses to run
                pass
        for k, row in zip(ids[keep].tolist(), data[keep]):  # an array library without ufunc.at
            out[k] = getattr(xp, ufunc)(out[k], row)
        return out

    return kernel


def _largest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def _unsorted_prod_grad(op, g):
    # TF1's rule: prod / x, a zero entry getting the product of the others and a
    # segment of two or more zeros a zero gradient; dropped (negative-id) entries get 0.
    data, ids, num = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    zeros = unsorted_segment_sum(math_ops.cast(is_zero, g.dtype), ids, num)
    g = math_ops.where(math_ops.greater(zeros, 1), array_ops.zeros_like(g), g)
    nonzero = math_ops.where(is_zero, array_ops.ones_like(data), data)
    nonzero_prod = _gather_kept(unsorted_segment_prod(nonzero, ids, num), ids, data)
    by_entry = _gather_kept(op.outputs[0], ids, data) / nonzero  # a zero entry takes the other branch
    partial = math_ops.where(is_zero, nonzero_prod, by_entry)
    return [_gather_kept(g, ids, data) * partial, None, None]


UnsortedSegmentMin = Primitive(
    "UnsortedSegmentMin", _unsorted_infer, _unsorted_kernel("minimum", _largest), _unsorted_max_grad
)
UnsortedSegmentProd = Primitive(
    "UnsortedSegmentProd", _unsorted_infer, _unsorted_kernel("multiply", lambda dt: 1), _unsorted_prod_grad
)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """Segment minima; an empty segment gets the dtype's largest value, as in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.unsorted_segment_min([3, 1, 2], [0, 0, 1], 2)).tolist()
    [1, 2]
    """
    return apply(UnsortedSegmentMin, data, segment_ids, _num(num_segments), name=name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """Segment products; an empty segment gets 1, as in TF1."""
    return apply(UnsortedSegmentProd, data, segment_ids, _num(num_segments), name=name)


def _segment_counts(data, ids, num):
    """How many entries each segment has, shaped to divide the segment sums (at least 1)."""
    n = unsorted_segment_sum(array_ops.ones_like(ids, dtype=data.dtype), ids, num)
    d, i = data.shape.ndims, ids.shape.ndims
    if d is not None and i is not None:
        n = array_ops.reshape(n, [-1] + [1] * (d - i))
    else:
        extra = array_ops.ones(
            array_ops.expand_dims(array_ops.rank(data) - array_ops.rank(ids), 0), dtypes.int32
        )
        n = array_ops.reshape(n, array_ops.concat([[-1], extra], 0))
    return math_ops.maximum(n, array_ops.ones_like(n))


def _unsorted_scaled(data, segment_ids, num_segments, name, default, scale):
    with name_scope(name, default):
        data = convert_to_tensor(data, name="data")
        ids = convert_to_tensor(segment_ids, name="segment_ids")
        num = _num(num_segments)
        summed = unsorted_segment_sum(data, ids, num)
        return summed / scale(_segment_counts(data, ids, num))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """Segment means (an empty segment gives 0); negative ids are dropped.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.unsorted_segment_mean([1.0, 3.0, 5.0], [0, 0, 1], 2)).tolist()
    [2.0, 5.0]
    """
    return _unsorted_scaled(data, segment_ids, num_segments, name, "UnsortedSegmentMean", lambda n: n)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Segment sums divided by the square root of each segment's count (0 when empty)."""
    return _unsorted_scaled(data, segment_ids, num_segments, name, "UnsortedSegmentSqrtN", math_ops.sqrt)


# -- sparse segment reductions --------------------------------------------------------------------


def _sparse_segment(data, indices, segment_ids, name, num_segments, default, scale):
    with name_scope(name, default):
        data = convert_to_tensor(data, name="data")
        indices = convert_to_tensor(indices, name="indices")
        ids = convert_to_tensor(segment_ids, name="segment_ids")
        for t, what in ((indices, "indices"), (ids, "segment_ids")):
            if t.dtype not in (dtypes.int32, dtypes.int64):
                raise TypeError(f"{default}: {what} {t.name} must be int32 or int64, got {t.dtype.name}")
            if t._dims is not None and len(t._dims) != 1:
                raise ValueError(f"{default}: {what} {t.name} must be a vector (rank 1), got shape {t.shape}")
        rows = array_ops.gather(data, indices)
        if scale is not None:
            # Each row is scaled by its segment's count before the sum, so the sum's static
            # shape stays TF1's ([None, ...] without num_segments) even for constant ids.
            rows = rows * _row_weights(data, ids, num_segments, scale)
        if num_segments is None:
            return segment_sum(rows, ids)  # sorted ids; the last one fixes the count
        return unsorted_segment_sum(rows, ids, _num(num_segments))


def _row_weights(data, ids, num_segments, scale):
    """``1 / scale(count of the row's segment)`` for each row, shaped to multiply the rows."""
    if not data.dtype.is_floating:
        raise TypeError(
            f"sparse segment mean/sqrt_n: data {data.name} must be floating-point, got {data.dtype.name}"
        )
    if data.shape.ndims is None:
        raise ValueError(f"sparse segment mean/sqrt_n needs data of known rank; {data.name} has unknown rank")
    ones = array_ops.ones_like(ids, dtype=data.dtype)
    if num_segments is None:
        counts = segment_sum(ones, ids)
    else:
        counts = unsorted_segment_sum(ones, ids, _num(num_segments))
    weights = 1.0 / scale(array_ops.gather(counts, ids))
    return array_ops.reshape(weights, [-1] + [1] * (data.shape.ndims - 1))


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
    """Sums of the rows ``data[indices]`` over runs of sorted ``segment_ids``.

    ``sparse_gradient`` chooses TF's gradient type (``IndexedSlices``); daskflow's
    gradient is the same values, dense.

    Examples
    --------
    >>> import daskflow as tf
    >>> data = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    >>> tf.Session().run(tf.sparse_segment_sum(data, [0, 2, 1], [0, 0, 1])).tolist()
    [[6.0, 8.0], [3.0, 4.0]]
    """
    return _sparse_segment(data, indices, segment_ids, name, num_segments, "SparseSegmentSum", None)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
    """Means of the rows ``data[indices]`` over runs of sorted ``segment_ids`` (0 when empty)."""
    return _sparse_segment(data, indices, segment_ids, name, num_segments, "SparseSegmentMean", lambda n: n)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
    """Sums of the rows ``data[indices]`` over each segment, divided by the square root
    of its count (0 when empty)."""
    return _sparse_segment(
        data, indices, segment_ids, name, num_segments, "SparseSegmentSqrtN", math_ops.sqrt
    )
