"""``top_k``, ``sort``, ``argsort`` and a general ``nn.in_top_k``.

One primitive, ``TopKV2``; ``sort`` and ``argsort`` are composed from it
(moving the sorted axis last), as TF1 composes them. Ties go to the lower
index, as in TF.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .infer import normalize_axes, static_dim


def _top_k_infer(inputs, *, sorted):  # noqa: A002 - TF1's attr name
    x, k = inputs
    if not k.dtype.is_integer or (k._dims is not None and k._dims != ()):
        raise TypeError(f"top_k: k ({k.name}) must be an integer scalar")
    dims = x._dims
    if dims is not None and not dims:
        raise ValueError(f"top_k: input {x.name} must have rank >= 1, got a scalar")
    kv = static_dim(k)
    if kv is not None and kv < 0:
        raise ValueError(f"top_k: k must be non-negative, got {kv}")
    if dims is not None and kv is not None and dims[-1] is not None and kv > dims[-1]:
        raise ValueError(
            f"top_k: input {x.name} of shape {x.shape} has fewer than k={kv} entries in its last dimension"
        )
    out = None if dims is None else dims[:-1] + (kv,)
    return [(out, x.dtype), (out, dtypes.int32)]


def _top_k_kernel(xp, x, k, *, sorted):  # noqa: A002
    k = int(k)
    if k > x.shape[-1]:
        raise ValueError(f"input must have at least k={k} columns, has {x.shape[-1]}")
    # A stable sort of the negated values: the lower index wins a tie, as in TF.
    order = xp.argsort(-x if x.dtype.kind != "b" else ~x, axis=-1, kind="stable")[..., :k]
    return xp.take_along_axis(x, order, axis=-1), order.astype("int32")


def _top_k_grad(op, g_values, g_indices):
    """Scatter the values' gradient back to the entries they came from."""
    if g_values is None:
        return [None, None]
    x, idx = op.inputs[0], op.outputs[1]
    n = array_ops.shape(x)[-1]
    rows = array_ops.reshape(idx, array_ops.stack([-1, array_ops.shape(idx)[-1]]))
    offsets = array_ops.expand_dims(array_ops.range_(0, array_ops.shape(rows)[0]) * n, 1)
    flat = array_ops.reshape(rows + offsets, [-1])
    out = apply(
        array_ops.ScatterAddTo,
        array_ops.reshape(g_values, [-1]),
        flat,
        array_ops.stack([array_ops.size(x)]),
        axis=0,
    )
    return [array_ops.reshape(out, array_ops.shape_of(x)), None]


TopKV2 = Primitive("TopKV2", _top_k_infer, _top_k_kernel, _top_k_grad)


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002 - TF1's names
    """The ``k`` largest entries along the last axis and their indices (int32).

    Examples
    --------
    >>> import daskflow as tf
    >>> values, indices = tf.nn.top_k([[1.0, 3.0, 2.0]], k=2)
    >>> tf.Session().run(indices).tolist()
    [[1, 2]]
    """
    x = convert_to_tensor(input)
    k = convert_to_tensor(k, dtype=dtypes.int32)
    values, indices = apply(TopKV2, x, k, sorted=bool(sorted), name=name)
    index_type = dtypes.as_dtype(index_type)
    if index_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"top_k: index_type must be int32 or int64, got {index_type.name}")
    return values, math_ops.cast(indices, index_type)


def _last_axis_first(x, axis, what):
    """``(x with axis moved last, the permutation that undoes it)``."""
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{what} needs a tensor of known rank; {x.name} has unknown rank")
    if rank == 0:
        raise ValueError(f"{what}: {x.name} must have rank >= 1, got a scalar")
    (axis,) = normalize_axes(axis, rank)
    perm = [i for i in range(rank) if i != axis] + [axis]
    if axis == rank - 1:
        return x, None
    inverse = [perm.index(i) for i in range(rank)]
    return array_ops.transpose(x, perm), inverse


def _sorted_along(x, axis, direction, what):
    direction = str(direction).upper()
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{what}: direction must be 'ASCENDING' or 'DESCENDING', got {direction!r}")
    moved, inverse = _last_axis_first(x, axis, what)
    n = moved._dims[-1] if moved._dims[-1] is not None else array_ops.shape(moved)[-1]
    if direction == "ASCENDING":
        # Negating keeps ties in index order, as TF's ascending argsort does.
        values, indices = top_k(-moved if not x.dtype.is_bool else math_ops.logical_not(moved), n)
        values = -values if not x.dtype.is_bool else math_ops.logical_not(values)
    else:
        values, indices = top_k(moved, n)
    if inverse is not None:
        values, indices = array_ops.transpose(values, inverse), array_ops.transpose(indices, inverse)
    return values, indices


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``."""
    x = convert_to_tensor(values)
    return array_ops.identity(_sorted_along(x, axis, direction, "sort")[0], name=name)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort ``values`` along ``axis`` (ties in index order)."""
    x = convert_to_tensor(values)
    return array_ops.identity(_sorted_along(x, axis, direction, "argsort")[1], name=name)


def in_top_k(predictions, targets, k, name=None):
    """Whether ``targets[i]`` is among the ``k`` largest of ``predictions[i]``.

    As TF: ties count in the target's favour (only strictly larger entries
    push it out), and a non-finite prediction or an out-of-range target is False.
    """
    predictions = convert_to_tensor(predictions)
    targets = convert_to_tensor(targets)
    if predictions.shape.ndims not in (None, 2):
        raise ValueError(
            f"in_top_k: predictions {predictions.name} must be 2-D, got shape {predictions.shape}"
        )
    if targets.shape.ndims not in (None, 1):
        raise ValueError(f"in_top_k: targets {targets.name} must be 1-D, got shape {targets.shape}")
    if not targets.dtype.is_integer:
        raise TypeError(f"in_top_k: targets {targets.name} must be integers, got {targets.dtype.name}")
    n = math_ops.cast(array_ops.shape(predictions)[1], targets.dtype)
    valid = math_ops.logical_and(targets >= 0, targets < n)
    safe = math_ops.where(valid, targets, array_ops.zeros_like(targets))
    rows = math_ops.cast(array_ops.range_(0, array_ops.shape(predictions)[0]), targets.dtype)
    picked = array_ops.gather(array_ops.reshape(predictions, [-1]), rows * n + safe)
    larger = math_ops.reduce_sum(
        math_ops.cast(predictions > array_ops.expand_dims(picked, 1), dtypes.int32), 1
    )
    finite = math_ops.logical_not(
        math_ops.logical_or(
            math_ops.not_equal(picked, picked), math_ops.equal(math_ops.abs(picked), float("inf"))
        )
    )
    hit = math_ops.logical_and(larger < int(k), finite)
    return math_ops.logical_and(hit, valid, name=name)
