"""TF1's smaller array functions: ``roll``, ``repeat``, ``batch_gather``, ``ensure_shape``,
``identity_n`` and ``where_v2`` (differentiable, with TF1's gradients), and the index
helpers ``invert_permutation``, ``unravel_index`` and ``searchsorted`` (not
differentiable in TF1, so here they stop the gradient).

Static shapes follow TF1's shape functions, checked against TF1's answers
(``tests/fixtures/scenarios_array_extra.py``): ``repeat`` knows an axis' size only
for a scalar ``repeats`` known when the graph is built, as TF1 does.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import as_dims, fmt, merge
from . import array_ops, math_ops
from .infer import constant_value, same, shaped_like_second


def _int_tensor(v, what, fn):
    t = convert_to_tensor(v, dtype=None if isinstance(v, Tensor) else dtypes.int32, name=what)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{fn}: {what} {t.name} must be int32 or int64, got {t.dtype.name}")
    return t


# -- roll ------------------------------------------------------------------------------------------


def _roll_infer(inputs):
    x, shift, axis = inputs
    s, a = shift._dims, axis._dims
    if s is not None and a is not None and len(s) == len(a) == 1 and None not in (s[0], a[0]) and s != a:
        raise ValueError(
            f"roll: shift {shift.name} ({fmt(s)}) and axis {axis.name} ({fmt(a)}) must have the same size"
        )
    for t in (shift, axis):
        if t._dims is not None and len(t._dims) > 1:
            raise ValueError(f"roll: {t.name} must be a scalar or a vector, got shape {t.shape}")
    return x._dims, x.dtype


def _roll_kernel(xp, x, shift, axis):
    shift, axis = shift.reshape(-1), axis.reshape(-1)
    if shift.shape != axis.shape:
        raise ValueError(f"roll: shift and axis must have the same size, got {shift.size} and {axis.size}")
    return xp.roll(x, tuple(int(s) for s in shift), tuple(int(a) for a in axis))


Roll = Primitive(
    "Roll", _roll_infer, _roll_kernel, lambda op, g: [apply(Roll, g, -op.inputs[1], op.inputs[2]), None, None]
)


def roll(input, shift, axis, name=None):  # noqa: A002 - TF1's name
    """Shift the entries of ``input`` by ``shift`` places along ``axis`` (each a scalar or
    a vector of the same size), wrapping around; an axis named twice is shifted by the sum.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.roll([0, 1, 2, 3, 4], 2, 0)).tolist()
    [3, 4, 0, 1, 2]
    """
    return apply(
        Roll, input, _int_tensor(shift, "shift", "roll"), _int_tensor(axis, "axis", "roll"), name=name
    )


# -- repeat ----------------------------------------------------------------------------------------


def _repeat_infer(inputs, *, axis):
    x, repeats = inputs
    if x._dims is None:
        return None, x.dtype
    if not -len(x._dims) <= axis < len(x._dims):
        raise ValueError(f"repeat: axis {axis} is out of range for {x.name} of shape {x.shape}")
    if repeats._dims is not None and len(repeats._dims) > 1:
        raise ValueError(f"repeat: repeats {repeats.name} must be a scalar or a vector, got {repeats.shape}")
    r = constant_value(repeats) if repeats._dims == () else None
    d = x._dims[axis]
    dims = list(x._dims)
    dims[axis] = None if r is None or d is None else d * int(r)
    return tuple(dims), x.dtype


def _repeat_kernel(xp, x, repeats, *, axis):
    return xp.repeat(x, repeats, axis=axis)


def _repeat_grad_kernel(xp, g, x, repeats, *, axis):
    n = x.shape[axis]
    ids = xp.repeat(xp.arange(n), xp.broadcast_to(repeats, (n,)))
    out = xp.zeros(x.shape, dtype=g.dtype)
    xp.add.at(xp.moveaxis(out, axis, 0), ids, xp.moveaxis(g, axis, 0))  # each copy's gradient adds up
    return out


RepeatGrad = Primitive(
    "RepeatGrad",
    shaped_like_second,
    _repeat_grad_kernel,
    lambda op, g: [apply(Repeat, g, op.inputs[2], axis=op.attrs["axis"]), None, None],
    shape_only=(1,),
)
Repeat = Primitive(
    "Repeat",
    _repeat_infer,
    _repeat_kernel,
    lambda op, g: [apply(RepeatGrad, g, op.inputs[0], op.inputs[1], axis=op.attrs["axis"]), None],
)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeat each entry of ``input`` along ``axis`` ``repeats`` times (a scalar, or one
    count per entry); with ``axis=None`` the flattened input is repeated.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.repeat([[1, 2], [3, 4]], [2, 1], axis=0)).tolist()
    [[1, 2], [1, 2], [3, 4]]
    """
    x = convert_to_tensor(input, name="input")
    if axis is None or x._dims == ():
        x, axis = array_ops.reshape(x, [-1]), 0  # TF1 flattens the input (a scalar becomes a vector)
    r = _int_tensor(repeats, "repeats", "repeat")
    axis = int(axis)
    if x._dims is not None and -len(x._dims) <= axis < 0:
        axis += len(x._dims)
    return apply(Repeat, x, r, axis=axis, name=name)


# -- batch_gather ----------------------------------------------------------------------------------


def _batch_gather_infer(inputs):
    params, indices = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"batch_gather: indices {indices.name} must be integers, got {indices.dtype.name}")
    p, i = params._dims, indices._dims
    if p is None or i is None:
        return None, params.dtype
    if len(i) > len(p) or not i:
        raise ValueError(
            f"batch_gather: indices {indices.name} of shape {indices.shape} must have rank 1 to "
            f"{len(p)}, the rank of params {params.name}"
        )
    try:
        batch = merge(p[: len(i) - 1], i[:-1])
    except ValueError:
        raise ValueError(
            f"batch_gather: the batch dimensions of params {params.name} {params.shape} and "
            f"indices {indices.name} {indices.shape} differ"
        ) from None
    return batch + i[-1:] + p[len(i) :], params.dtype


def _batch_flat(xp, params, indices):
    lead = indices.shape[:-1]
    b = 1
    for d in lead:
        b *= d
    p = params.reshape((b,) + params.shape[len(lead) :])
    i = indices.reshape(b, indices.shape[-1])
    n = p.shape[1]
    if bool(((i < 0) | (i >= n)).any()):
        raise ValueError(f"batch_gather: an index is out of range [0, {n})")
    return p, i, xp.arange(b)[:, None]


def _batch_gather_kernel(xp, params, indices):
    p, i, rows = _batch_flat(xp, params, indices)
    return p[rows, i].reshape(indices.shape + params.shape[indices.ndim :])


def _batch_scatter_kernel(xp, g, params, indices):
    p, i, rows = _batch_flat(xp, params, indices)
    out = xp.zeros(p.shape, dtype=g.dtype)
    xp.add.at(out, (rows, i), g.reshape(i.shape + p.shape[2:]))
    return out.reshape(params.shape)


BatchScatterAdd = Primitive(
    "BatchScatterAdd",
    shaped_like_second,
    _batch_scatter_kernel,
    lambda op, g: [apply(BatchGather, g, op.inputs[2]), None, None],
    shape_only=(1,),
)
BatchGather = Primitive(
    "BatchGather",
    _batch_gather_infer,
    _batch_gather_kernel,
    lambda op, g: [apply(BatchScatterAdd, g, *op.inputs), None],
    fresh_output=True,
)


def batch_gather(params, indices, name=None):
    """For each batch entry (the leading ``rank(indices) - 1`` axes), the entries of
    ``params`` at ``indices`` along the next axis (TF1's ``tf.batch_gather``).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.batch_gather([[1, 2, 3], [4, 5, 6]], [[2], [0]])).tolist()
    [[3], [4]]
    """
    params = convert_to_tensor(params, name="params")
    return apply(BatchGather, params, _int_tensor(indices, "indices", "batch_gather"), name=name)


# -- ensure_shape, identity_n, where_v2 ------------------------------------------------------------


def _ensure_infer(inputs, *, dims):
    x = inputs[0]
    try:
        return merge(x._dims, dims), x.dtype
    except ValueError:
        raise ValueError(
            f"ensure_shape: {x.name} of shape {x.shape} is not compatible with {fmt(dims)}"
        ) from None


def _ensure_kernel(xp, x, *, dims):
    if dims is not None and (
        x.ndim != len(dims) or any(d is not None and d != s for d, s in zip(dims, x.shape))
    ):
        raise ValueError(
            f"ensure_shape: shape of tensor {list(x.shape)} is not compatible with expected shape {fmt(dims)}"
        )
    return x


# Not forwards_input: the kernel must run to check the shape.
EnsureShape = Primitive("EnsureShape", _ensure_infer, _ensure_kernel, lambda op, g: [g])


def ensure_shape(x, shape, name=None):
    """``x``, checked to have ``shape`` (``None`` entries match any size) when it runs;
    its static shape becomes the more specific of the two.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.ensure_shape(tf.placeholder(tf.float32, [None, None]), [None, 3]).shape.as_list()
    [None, 3]
    """
    return apply(EnsureShape, x, dims=as_dims(shape), name=name)


IdentityN = Primitive(
    "IdentityN",
    lambda inputs: [(t._dims, t.dtype) for t in inputs],
    lambda xp, *xs: tuple(xs),
    lambda op, *gs: list(gs),
)


def identity_n(input, name=None):  # noqa: A002
    """Each tensor of the list ``input``, passed through (TF1's ``IdentityN``)."""
    return list(apply(IdentityN, *input, name=name))


def _select_v2_grad(op, g):
    # Each of x and y gets g where it was chosen; broadcasting is undone centrally.
    cond = op.inputs[0]
    zeros = array_ops.zeros_like(g)
    return [None, apply(SelectV2, cond, g, zeros), apply(SelectV2, cond, zeros, g)]


# TF2's SelectV2: condition, x and y broadcast together (TF1's tf.where reshapes a vector
# condition instead).
SelectV2 = Primitive(
    "SelectV2",
    math_ops._select_infer,
    lambda xp, c, x, y: xp.where(c, x, y),
    _select_v2_grad,
    broadcasting=True,
)


def where_v2(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` holds, else ``y``, all three broadcast together; with
    ``condition`` alone, the int64 coordinates of its true entries.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.where_v2([True, False], [[1.0], [2.0]], 0.0)).tolist()
    [[1.0, 0.0], [2.0, 0.0]]
    """
    if x is None and y is None:
        return apply(math_ops.WhereIndices, condition, name=name)
    if x is None or y is None:
        raise ValueError("where_v2 needs both x and y, or neither")
    x, y = math_ops._coerce_pair(x, y)
    return apply(SelectV2, condition, x, y, name=name)


# -- invert_permutation, unravel_index, searchsorted ------------------------------------------------


def _invert_infer(inputs):
    x = inputs[0]
    if x.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"invert_permutation: {x.name} must be int32 or int64, got {x.dtype.name}")
    if x._dims is not None and len(x._dims) != 1:
        raise ValueError(f"invert_permutation: {x.name} must be a vector (rank 1), got shape {x.shape}")
    return same(inputs)


def _invert_kernel(xp, x):
    n = x.shape[0]
    if bool(((x < 0) | (x >= n)).any()) or xp.unique(x).shape[0] != n:
        raise ValueError(
            f"invert_permutation: {x.tolist() if n < 20 else 'x'} is not a permutation of 0..{n - 1}"
        )
    out = xp.empty_like(x)
    out[x] = xp.arange(n, dtype=x.dtype)
    return out


InvertPermutation = Primitive(
    "InvertPermutation", _invert_infer, _invert_kernel, fresh_output=True, grad=NOT_DIFFERENTIABLE
)


def invert_permutation(x, name=None):
    """The inverse permutation ``y`` of the vector ``x``: ``y[x[i]] = i``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.invert_permutation([3, 4, 0, 2, 1])).tolist()
    [2, 4, 3, 0, 1]
    """
    return apply(InvertPermutation, x, name=name)


def _unravel_infer(inputs):
    idx, dims = inputs
    for t in inputs:
        if t.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"unravel_index: {t.name} must be int32 or int64, got {t.dtype.name}")
    if dims.dtype is not idx.dtype:
        raise TypeError(f"unravel_index: dims {dims.name} must be {idx.dtype.name} like indices {idx.name}")
    if idx._dims is not None and len(idx._dims) > 1:
        raise ValueError(f"unravel_index: indices {idx.name} must be a scalar or a vector, got {idx.shape}")
    if dims._dims is not None and len(dims._dims) != 1:
        raise ValueError(f"unravel_index: dims {dims.name} must be a vector, got {dims.shape}")
    k = None if dims._dims is None else dims._dims[0]
    if idx._dims is None:
        return None, idx.dtype
    return (k,) + idx._dims, idx.dtype


def _unravel_kernel(xp, idx, dims):
    total = 1
    for d in dims.tolist():
        total *= d
    if bool(((idx < 0) | (idx >= total)).any()):
        raise ValueError(f"unravel_index: an index is out of bounds for dims {dims.tolist()}")
    return xp.stack(xp.unravel_index(idx, tuple(int(d) for d in dims))).astype(idx.dtype)


UnravelIndex = Primitive("UnravelIndex", _unravel_infer, _unravel_kernel, fresh_output=True)


def unravel_index(indices, dims, name=None):
    """The coordinates in an array of shape ``dims`` of each flat index in ``indices``:
    shape ``[len(dims)]`` for a scalar, ``[len(dims), n]`` for a vector.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.unravel_index([2, 5, 7], [3, 3])).tolist()
    [[0, 1, 2], [2, 2, 1]]
    """
    indices = convert_to_tensor(indices, dtype=None if isinstance(indices, Tensor) else dtypes.int32)
    dims = convert_to_tensor(dims, dtype=None if isinstance(dims, Tensor) else indices.dtype)
    return apply(UnravelIndex, indices, dims, name=name)


def _search_infer(inputs, *, side, out_type):
    seq, values = inputs
    if seq.dtype is not values.dtype:
        raise TypeError(f"searchsorted: values {values.name} must be {seq.dtype.name} like {seq.name}")
    s, v = seq._dims, values._dims
    if s is not None and v is not None:
        if len(s) != len(v) or any(
            a is not None and b is not None and a != b for a, b in zip(s[:-1], v[:-1])
        ):
            raise ValueError(
                f"searchsorted: the leading dimensions of sorted_sequence {seq.name} {seq.shape} and "
                f"values {values.name} {values.shape} must match"
            )
        return merge(s[:-1], v[:-1]) + v[-1:], out_type
    return v, out_type


def _search_kernel(xp, seq, values, *, side, out_type):
    if seq.shape[:-1] != values.shape[:-1]:
        raise ValueError(
            f"searchsorted: leading dimensions differ: {list(seq.shape)} and {list(values.shape)}"
        )
    s = seq.reshape(-1, seq.shape[-1])
    v = values.reshape(-1, values.shape[-1])
    rows = [xp.searchsorted(s[k], v[k], side=side) for k in range(s.shape[0])]
    out = xp.stack(rows) if rows else xp.zeros(v.shape, dtype=out_type.np)
    return out.astype(out_type.np).reshape(values.shape)


SearchSorted = Primitive("SearchSorted", _search_infer, _search_kernel, fresh_output=True)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each of ``values[..., j]``, where it goes in the sorted ``sorted_sequence[..., :]``
    (the leading dimensions match): before equal entries with ``side="left"``, after them
    with ``"right"``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.searchsorted([0, 3, 9, 9, 10], [9, 4], side="right")).tolist()
    [4, 2]
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"searchsorted: out_type must be int32 or int64, got {out_type.name}")
    seq = convert_to_tensor(sorted_sequence, name="sorted_sequence")
    values = convert_to_tensor(values, dtype=None if isinstance(values, Tensor) else seq.dtype, name="values")
    return apply(SearchSorted, seq, values, side=side, out_type=out_type, name=name)
