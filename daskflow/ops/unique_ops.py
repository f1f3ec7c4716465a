"""``unique`` and ``unique_with_counts``: the distinct entries of a vector, in order of first
appearance, with each entry's position among them (TF1's ``Unique``/``UniqueWithCounts``).

Neither has a gradient in TF1; here too the op stops differentiation.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import Primitive


def _infer(inputs, *, out_idx, counts):
    x = inputs[0]
    if x._dims is not None and len(x._dims) != 1:
        raise ValueError(f"unique: {x.name} must be a vector (rank 1), got shape {x.shape}")
    n = x._dims[0] if x._dims is not None else None
    outs = [((None,), x.dtype), ((n,), out_idx)]
    return outs + [((None,), out_idx)] if counts else outs


def _kernel(xp, x, *, out_idx, counts):
    if x.ndim != 1:
        raise ValueError(f"unique expects a 1D vector, got shape {list(x.shape)}")
    values, first, inverse, count = xp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    # numpy sorts the distinct values; TF keeps them in order of first appearance.
    order = xp.argsort(first, kind="stable")
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    y, idx = values[order], rank[inverse.reshape(-1)].astype(out_idx.np)
    return (y, idx, count[order].astype(out_idx.np)) if counts else (y, idx)


Unique = Primitive("Unique", lambda inputs, **a: _infer(inputs, **a), _kernel, fresh_output=True)
UniqueWithCounts = Primitive(
    "UniqueWithCounts", lambda inputs, **a: _infer(inputs, **a), _kernel, fresh_output=True
)


def _apply(prim, x, out_idx, counts, name):
    x = convert_to_tensor(x)
    out_idx = dtypes.as_dtype(out_idx)
    if out_idx not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{prim.name}: out_idx must be int32 or int64, got {out_idx.name}")
    return apply(prim, x, out_idx=out_idx, counts=counts, name=name)


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct entries of the vector ``x`` in order of first appearance, and for each
    entry of ``x`` its index among them: ``y[idx] == x``.

    Examples
    --------
    >>> import daskflow as tf
    >>> y, idx = tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    >>> [v.tolist() for v in tf.Session().run([y, idx])]
    [[1, 2, 4, 7, 8], [0, 0, 1, 2, 2, 2, 3, 4, 4]]
    """
    return _apply(Unique, x, out_idx, False, name)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """:func:`unique`, and how many times each distinct entry appears (``out_idx`` typed)."""
    return _apply(UniqueWithCounts, x, out_idx, True, name)
