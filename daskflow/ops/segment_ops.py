"""Segment reductions, ``gather_nd``/``scatter_nd`` and the sparse variable updates.

``UnsortedSegmentSum`` and ``SegmentSum`` take a gather of the output
gradient as their gradient; ``GatherNd`` and ``ScatterNd`` are each other's.
``scatter_update``/``scatter_add`` are ``updates_variable`` primitives like
``Assign``: their kernels get the variable's value and return its new value.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.arguments import refuse
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import fmt
from . import array_ops, math_ops
from .infer import static_dim, static_shape_value
from .state_ops import updated_variable

# -- segment reductions -----------------------------------------------------------------------


def _check_ids(data, ids, what):
    if not ids.dtype.is_integer:
        raise TypeError(f"{what}: segment_ids {ids.name} must be integers, got {ids.dtype.name}")
    d, i = data._dims, ids._dims
    if d is not None and i is not None:
        if len(i) > len(d) or any(a is not None and b is not None and a != b for a, b in zip(d, i)):
            raise ValueError(
                f"{what}: segment_ids {ids.name} of shape {ids.shape} must be a prefix of "
                f"data {data.name}'s shape {data.shape}"
            )


def _segment_dims(data, ids, n):
    if data._dims is None or ids._dims is None:
        return None
    return (n,) + data._dims[len(ids._dims) :]


def _unsorted_infer(inputs):
    data, ids, num = inputs
    _check_ids(data, ids, "unsorted_segment reduction")
    return _segment_dims(data, ids, static_dim(num)), data.dtype


def _check_range(xp, ids, n):
    bad = ids >= n
    if bool(bad.any()):
        raise ValueError(f"segment_ids[{int(xp.argmax(bad))}] = {int(ids[bad][0])} is out of range [0, {n})")


def _unsorted_sum_kernel(xp, data, ids, num):
    n = int(num)
    _check_range(xp, ids.reshape(-1), n)
    out = xp.zeros((n,) + data.shape[ids.ndim :], dtype=data.dtype)
    keep = ids >= 0  # negative ids are dropped, as TF does
    xp.add.at(out, ids[keep], data[keep])
    return out


def _gather_kept(g, ids, like):
    """``g[ids]``, with zeros where an id is negative (a dropped entry)."""
    keep = ids >= 0
    picked = array_ops.gather(g, math_ops.where(keep, ids, array_ops.zeros_like(ids)))
    extra = (
        like.shape.ndims - ids.shape.ndims
        if like.shape.ndims is not None and ids.shape.ndims is not None
        else 0
    )
    mask = (
        array_ops.reshape(keep, array_ops.concat([array_ops.shape(ids), [1] * extra], 0)) if extra else keep
    )
    return math_ops.where(mask, picked, array_ops.zeros_like(picked))


UnsortedSegmentSum = Primitive(
    "UnsortedSegmentSum",
    _unsorted_infer,
    _unsorted_sum_kernel,
    lambda op, g: [_gather_kept(g, op.inputs[1], op.inputs[0]), None, None],
)


def _sorted_infer(inputs):
    data, ids = inputs
    _check_ids(data, ids, "segment reduction")
    if ids._dims is not None and len(ids._dims) != 1:
        raise ValueError(f"segment reduction: segment_ids {ids.name} must be 1-D, got shape {ids.shape}")
    return _segment_dims(data, ids, None), data.dtype


def _segment_sum_kernel(xp, data, ids):
    if ids.size and (bool((ids[1:] < ids[:-1]).any()) or int(ids[0]) < 0):
        raise ValueError("segment ids are not increasing (or are negative)")
    n = int(ids[-1]) + 1 if ids.size else 0
    return _unsorted_sum_kernel(xp, data, ids, n)


SegmentSum = Primitive(
    "SegmentSum", _sorted_infer, _segment_sum_kernel, lambda op, g: [array_ops.gather(g, op.inputs[1]), None]
)


def _unsorted_max_kernel(xp, data, ids, num):
    n = int(num)
    _check_range(xp, ids.reshape(-1), n)
    lowest = np.finfo(data.dtype).min if data.dtype.kind == "f" else np.iinfo(data.dtype).min
    out = xp.full((n,) + data.shape[ids.ndim :], lowest, dtype=data.dtype)  # TF's value for an empty segment
    keep = ids >= 0
    xp.maximum.at(out, ids[keep], data[keep])
    return out


def _unsorted_max_grad(op, g):
    # TF1's rule: the gradient is shared equally among the entries that attain the maximum.
    data, ids, num = op.inputs
    chosen = math_ops.equal(data, _gather_kept(op.outputs[0], ids, data))
    counts = unsorted_segment_sum(math_ops.cast(chosen, g.dtype), ids, num)
    share = _gather_kept(g / math_ops.maximum(counts, 1), ids, data)
    return [math_ops.where(chosen, share, array_ops.zeros_like(share)), None, None]


UnsortedSegmentMax = Primitive(
    "UnsortedSegmentMax", _unsorted_infer, _unsorted_max_kernel, _unsorted_max_grad
)


def _num(num_segments):
    return convert_to_tensor(num_segments, dtype=None if hasattr(num_segments, "dtype") else dtypes.int32)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``out[i] = sum of data[j...] where segment_ids[j...] == i``; negative ids are dropped.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.unsorted_segment_sum([1.0, 2.0, 3.0], [1, 0, 1], 2)).tolist()
    [2.0, 4.0]
    """
    return apply(UnsortedSegmentSum, data, segment_ids, _num(num_segments), name=name)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """Segment maxima; an empty segment gets the dtype's lowest value, as in TF."""
    return apply(UnsortedSegmentMax, data, segment_ids, _num(num_segments), name=name)


def segment_sum(data, segment_ids, name=None):
    """Sums over runs of sorted ``segment_ids`` (unsorted ids fail the run)."""
    return apply(SegmentSum, data, segment_ids, name=name)


def segment_mean(data, segment_ids, name=None):
    """Means over runs of sorted ``segment_ids`` (an empty segment gives 0)."""
    data, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    sums = segment_sum(data, ids)
    counts = segment_sum(array_ops.ones_like(ids, dtype=data.dtype), ids)
    extra = data.shape.ndims - 1 if data.shape.ndims is not None else None
    if extra is None:
        raise ValueError(f"segment_mean needs data of known rank; {data.name} has unknown rank")
    counts = array_ops.reshape(counts, [-1] + [1] * extra)
    return math_ops.truediv(sums, math_ops.maximum(counts, 1), name=name)


# -- gather_nd and scatter_nd --------------------------------------------------------------------


def _nd_depth(indices, what):
    if not indices.dtype.is_integer:
        raise TypeError(f"{what}: indices {indices.name} must be integers, got {indices.dtype.name}")
    if indices._dims is None:
        return None
    if not indices._dims:
        raise ValueError(f"{what}: indices {indices.name} must have rank >= 1")
    return indices._dims[-1]


def _gather_nd_infer(inputs):
    params, indices = inputs
    depth = _nd_depth(indices, "gather_nd")
    if params._dims is None or depth is None:
        return None, params.dtype
    if depth > len(params._dims):
        raise ValueError(
            f"gather_nd: index depth {depth} of {indices.name} exceeds the rank of "
            f"{params.name} ({params.shape})"
        )
    return indices._dims[:-1] + params._dims[depth:], params.dtype


def _checked_index(xp, indices, shape, what):
    flat = indices.reshape(-1, indices.shape[-1])
    bounds = xp.asarray(shape[: indices.shape[-1]])
    bad = (flat < 0) | (flat >= bounds)
    if bool(bad.any()):
        row = int(xp.argmax(bad.any(axis=1)))
        raise ValueError(
            f"{what}: indices[{row}] = {flat[row].tolist()} does not index into shape {list(shape)}"
        )
    return tuple(xp.moveaxis(indices, -1, 0))


def _gather_nd_kernel(xp, params, indices):
    return xp.array(params[_checked_index(xp, indices, params.shape, "gather_nd")])


def nd_fit(what, tensor_dims, indices, updates):
    """Check ``updates`` has shape ``indices.shape[:-1] + tensor.shape[depth:]``."""
    depth = _nd_depth(indices, what)
    if None in (tensor_dims, depth, indices._dims, updates._dims):
        return
    if depth > len(tensor_dims):
        raise ValueError(
            f"{what}: index depth {depth} of {indices.name} exceeds the rank of shape {fmt(tensor_dims)}"
        )
    expected = indices._dims[:-1] + tuple(tensor_dims[depth:])
    if len(expected) != len(updates._dims) or any(
        a is not None and b is not None and a != b for a, b in zip(expected, updates._dims)
    ):
        raise ValueError(
            f"{what}: updates {updates.name} of shape {updates.shape} do not fit indices "
            f"{indices.name} of shape {indices.shape} into shape {fmt(tensor_dims)} "
            f"(expected {fmt(expected)})"
        )


def _scatter_nd_infer(inputs):
    indices, updates, shape = inputs
    dims = static_shape_value(shape)
    if dims is not None and None not in dims:
        nd_fit("scatter_nd", dims, indices, updates)
    return dims, updates.dtype


def _scatter_nd_kernel(xp, indices, updates, shape):
    shape = tuple(int(d) for d in shape)
    out = xp.zeros(shape, dtype=updates.dtype)
    xp.add.at(out, _checked_index(xp, indices, shape, "scatter_nd"), updates)  # duplicates add up, as TF
    return out


GatherNd = Primitive(
    "GatherNd",
    _gather_nd_infer,
    _gather_nd_kernel,
    lambda op, g: [scatter_nd(op.inputs[1], g, array_ops.shape(op.inputs[0])), None],
)
ScatterNd = Primitive(
    "ScatterNd",
    _scatter_nd_infer,
    _scatter_nd_kernel,
    lambda op, g: [None, gather_nd(g, op.inputs[0]), None],
)


def gather_nd(params, indices, name=None, batch_dims=0, bad_indices_policy=""):
    """``params[indices[..., :]]``: the last axis of ``indices`` indexes the leading axes of ``params``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]])).tolist()
    [3, 2]
    """
    if batch_dims:
        raise refuse("gather_nd", "batch_dims", batch_dims, "gather per batch entry with tf.map_fn")
    _default_policy("gather_nd", bad_indices_policy)
    return apply(GatherNd, params, indices, name=name)


def _default_policy(fn, policy):
    # TF's default ("" or "DEFAULT") is what daskflow does: an out-of-range index is an error.
    if policy not in ("", "DEFAULT"):
        raise refuse(
            fn, "bad_indices_policy", policy, "leave bad_indices_policy='' (bad indices are an error)"
        )


def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeats add up)."""
    _default_policy("scatter_nd", bad_indices_policy)
    indices = convert_to_tensor(indices)
    return apply(ScatterNd, indices, updates, array_ops._as_shape_tensor(shape), name=name)


# -- sparse updates of variables -----------------------------------------------------------------


def _scatter_var_infer(inputs, **_):
    ref, indices, updates = inputs
    var = updated_variable(ref, "scatter updates need a variable")
    if not indices.dtype.is_integer:
        raise TypeError(f"scatter update: indices {indices.name} must be integers, got {indices.dtype.name}")
    if updates.dtype is not ref.dtype:
        raise TypeError(
            f"cannot scatter {updates.dtype.name} updates into the {ref.dtype.name} variable {var.name}"
        )
    if None not in (ref._dims, indices._dims, updates._dims):
        expected = indices._dims + ref._dims[1:]
        if len(expected) != len(updates._dims) or any(
            a is not None and b is not None and a != b for a, b in zip(expected, updates._dims)
        ):
            raise ValueError(
                f"scatter update of {var.name}: updates {updates.name} of shape {updates.shape} "
                f"do not fit indices of shape {indices.shape} (expected {fmt(expected)})"
            )
    return ref._dims, ref.dtype


def _scatter_var_kernel(accumulate):
    def kernel(xp, old, indices, updates, *, donate=False):
        bad = (indices < 0) | (indices >= old.shape[0])
        if bool(bad.any()):
            raise ValueError(
                f"indices[{int(xp.argmax(bad.reshape(-1)))}] is out of range [0, {old.shape[0]})"
            )
        new = xp.array(old, copy=True)  # the old value may still be read elsewhere in the step
        if accumulate:
            xp.add.at(new, indices, updates)
        else:
            new[indices] = updates
        return new

    return kernel


ScatterUpdate = Primitive(
    "ScatterUpdate", _scatter_var_infer, _scatter_var_kernel(False), stateful=True, updates_variable=True
)
ScatterAdd = Primitive(
    "ScatterAdd",
    _scatter_var_infer,
    _scatter_var_kernel(True),
    stateful=True,
    updates_variable=True,
    grad=NOT_DIFFERENTIABLE,
)


def _scatter_var(prim, ref, indices, updates, name):
    ref = convert_to_tensor(ref)
    updates = convert_to_tensor(updates, dtype=None if hasattr(updates, "op") else ref.dtype)
    with get_default_graph().colocate_with(ref.op):
        return apply(prim, ref, indices, updates, name=name)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """Set rows ``indices`` of the variable ``ref`` to ``updates``; returns the new value."""
    return _scatter_var(ScatterUpdate, ref, indices, updates, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """Add ``updates`` to rows ``indices`` of the variable ``ref`` (repeats add up); returns the new value."""
    return _scatter_var(ScatterAdd, ref, indices, updates, name)
