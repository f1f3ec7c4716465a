"""``unique`` and ``unique_with_counts``: the distinct entries of a vector, in order of first
appearance, with each entry's position among them (TF1's ``Unique``/``UniqueWithCounts``);
``setdiff1d``: the entries of one vector that another lacks (TF1's ``ListDiff``).

None has a gradient in TF1; here too the ops stop differentiation.
"""

from __future__ import annotations

import collections

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


def _infer_listdiff(inputs, *, out_idx):
    for t in inputs:
        if t._dims is not None and len(t._dims) != 1:
            raise ValueError(f"setdiff1d: {t.name} must be a vector (rank 1), got shape {t.shape}")
    return [((None,), inputs[0].dtype), ((None,), out_idx)]


def _kernel_listdiff(xp, x, y, *, out_idx):
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"setdiff1d expects 1D vectors, got shapes {list(x.shape)} and {list(y.shape)}")
    kept = xp.nonzero(~xp.isin(x, y))[0]
    return x[kept], kept.astype(out_idx.np)


ListDiff = Primitive("ListDiff", _infer_listdiff, _kernel_listdiff, fresh_output=True)
SetDiff1D = collections.namedtuple("ListDiff", ["out", "idx"])


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """The entries of the vector ``x`` that are not in the vector ``y``, in ``x``'s order,
    and their positions in ``x``: ``out == x[idx]``.

    Examples
    --------
    >>> import daskflow as tf
    >>> out, idx = tf.setdiff1d([1, 2, 3, 4, 5, 6], [1, 3, 5])
    >>> [v.tolist() for v in tf.Session().run([out, idx])]
    [[2, 4, 6], [1, 3, 5]]
    """
    x = convert_to_tensor(x, name="x")
    y = convert_to_tensor(y, dtype=x.dtype, name="y")
    index_dtype = dtypes.as_dtype(index_dtype)
    if index_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"setdiff1d: index_dtype must be int32 or int64, got {index_dtype.name}")
    return SetDiff1D(*apply(ListDiff, x, y, out_idx=index_dtype, name=name))
