"""Sorted segment products, minima and maxima (``tf.segment_prod``/``_min``/``_max``).

Their shape inference and id checks are :mod:`.segment_ops`' sorted ones. An
empty segment (an id skipped between two present ones) gets TF1's value: 1 for
a product, 0 for a minimum or maximum. The gradients are TF1's rules.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .segment_ops import _sorted_infer, segment_sum


def _segment_kernel(reduce, empty):
    def kernel(xp, data, ids):
        if ids.size and (bool((ids[1:] < ids[:-1]).any()) or int(ids[0]) < 0):
            raise ValueError("segment ids are not increasing (or are negative)")
        n = int(ids[-1]) + 1 if ids.size else 0
        out = xp.full((n,) + data.shape[1:], empty, dtype=data.dtype)
        for k in range(n):  # ids are sorted: each segment is one run; cupy has no multiply.at
            rows = data[ids == k]
            if rows.shape[0]:
                out[k] = getattr(xp, reduce)(rows, axis=0)
        return out

    return kernel


def _min_or_max_grad(op, g):
    # TF1's rule: the gradient is shared equally among the entries that attain the extremum.
    data, ids = op.inputs
    chosen = math_ops.equal(data, array_ops.gather(op.outputs[0], ids))
    counts = segment_sum(math_ops.cast(chosen, g.dtype), ids)
    share = array_ops.gather(g / math_ops.maximum(counts, 1), ids)  # 0 entries: an empty segment
    return [math_ops.where(chosen, share, array_ops.zeros_like(share)), None]


def _prod_grad(op, g):
    # TF1's rule: prod / x, with a zero entry getting the product of the others and a
    # segment of two or more zeros a zero gradient.
    data, ids = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    zeros = segment_sum(math_ops.cast(is_zero, g.dtype), ids)
    g = math_ops.where(math_ops.greater(zeros, 1), array_ops.zeros_like(g), g)
    nonzero = math_ops.where(is_zero, array_ops.ones_like(data), data)
    nonzero_prod = array_ops.gather(segment_prod(nonzero, ids), ids)
    by_entry = array_ops.gather(op.outputs[0], ids) / nonzero
    partial = math_ops.where(is_zero, nonzero_prod, by_entry)
    return [array_ops.gather(g, ids) * partial, None]


SegmentProd = Primitive("SegmentProd", _sorted_infer, _segment_kernel("prod", 1), _prod_grad)
SegmentMin = Primitive("SegmentMin", _sorted_infer, _segment_kernel("min", 0), _min_or_max_grad)
SegmentMax = Primitive("SegmentMax", _sorted_infer, _segment_kernel("max", 0), _min_or_max_grad)


def segment_prod(data, segment_ids, name=None):
    """Products over runs of sorted ``segment_ids``; an empty segment gives 1.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.segment_prod([2, 3, 4], [0, 0, 2])).tolist()
    [6, 1, 4]
    """
    return apply(SegmentProd, data, segment_ids, name=name)


def segment_min(data, segment_ids, name=None):
    """Minima over runs of sorted ``segment_ids``; an empty segment gives 0."""
    return apply(SegmentMin, data, segment_ids, name=name)


def segment_max(data, segment_ids, name=None):
    """Maxima over runs of sorted ``segment_ids``; an empty segment gives 0."""
    return apply(SegmentMax, data, segment_ids, name=name)
