"""Placeholders, shapes, reshaping, slicing, joining and filling.

The most basic of them (identity, shape, transpose, filling, and the
primitives that undo broadcasting in gradients) are declared in
:mod:`.core_array_ops`, which ``math_ops`` builds on too, and are
re-exported here.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.arguments import refuse, refuse_unless_none
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_conversion_registry import register_tensor_conversion_function
from ..framework.tensor_shape import as_dims, dimension_value, fmt
from . import math_ops
from . import rewrite_rules as rules
from .core_array_ops import (  # noqa: F401 - tf.* and array_ops.* names
    BroadcastTo,
    BroadcastTo_,
    Fill,
    Identity,
    ReduceTo,
    Shape,
    StopGradient,
    Transpose,
    ZerosLike,
    _known_rank,
    broadcast_back,
    fill_with,
    filled,
    identity,
    matrix_transpose,
    ones_like,
    reduce_to,
    shape,
    shape_of,
    stop_gradient,
    transpose,
    zeros_like,
)
from .infer import constant_value, normalize_axes, static_shape_value

_py_slice = builtins.slice  # this module's `slice` is TF's

# -- placeholders, identity ---------------------------------------------------------

Placeholder = Primitive(
    "Placeholder",
    lambda inputs, *, dims, dtype: (dims, dtype),
    None,
    is_placeholder=True,
)


def placeholder(dtype, shape=None, name=None):
    """A tensor whose value must be fed to ``Session.run``.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.placeholder(tf.float32, [None, 784])
    """
    return apply(Placeholder, dims=as_dims(shape), dtype=dtypes.as_dtype(dtype), name=name)


def _pwd_infer(inputs, *, dims):
    return dims, inputs[0].dtype


PlaceholderWithDefault = Primitive(
    "PlaceholderWithDefault", _pwd_infer, lambda xp, x, *, dims: x, lambda op, g: [g], forwards_input=True
)


def placeholder_with_default(input, shape, name=None):  # noqa: A002
    """``input`` unless a value is fed for the result."""
    x = convert_to_tensor(input)
    dims = as_dims(shape)
    x.shape.merge_with(dims)
    return apply(PlaceholderWithDefault, x, dims=dims, name=name)


# -- shapes ---------------------------------------------------------------------------


Size = Primitive(
    "Size",
    lambda inputs, *, out_type: ((), out_type),
    lambda xp, x, *, out_type: xp.asarray(x.size, dtype=out_type.np),
    shape_only=(0,),
    grad=NOT_DIFFERENTIABLE,
)
Rank = Primitive(
    "Rank",
    lambda inputs: ((), dtypes.int32),
    lambda xp, x: xp.asarray(x.ndim, dtype=np.int32),
    shape_only=(0,),
    grad=NOT_DIFFERENTIABLE,
)


def size(input, name=None, out_type=None):  # noqa: A002
    """The number of elements (``out_type``, int32 by default); a constant when the static shape is known."""
    out_type = dtypes.int32 if out_type is None else out_type
    x = convert_to_tensor(input)
    n = x.shape.num_elements()
    if n is not None:
        return constant(n, dtype=out_type, name=name or "Size")
    return apply(Size, x, out_type=dtypes.as_dtype(out_type), name=name)


def rank(input, name=None):  # noqa: A002
    """The number of dimensions."""
    x = convert_to_tensor(input)
    if x.shape.ndims is not None:
        return constant(x.shape.ndims, dtype=dtypes.int32, name=name or "Rank")
    return apply(Rank, x, name=name)


# -- reshaping ----------------------------------------------------------------------------


def _reshape_infer(inputs):
    x, target = inputs
    dims = static_shape_value(target)
    if dims is None:
        return None, x.dtype
    n = x.shape.num_elements()
    if -1 in [d if d is not None else 0 for d in dims] or None in dims:
        return _resolve_minus_one(dims, n, x), x.dtype
    if n is not None and int(np.prod(dims)) != n:
        raise ValueError(f"cannot reshape {x.name} of shape {x.shape} ({n} elements) to {list(dims)}")
    return tuple(dims), x.dtype


def _resolve_minus_one(dims, n, x):
    dims = [None if d == -1 else d for d in dims]
    unknown = [i for i, d in enumerate(dims) if d is None]
    if n is not None and len(unknown) == 1:
        known = int(np.prod([d for d in dims if d is not None]))
        if known == 0 or n % known:
            raise ValueError(f"cannot reshape {x.name} of shape {x.shape} to {dims}")
        dims[unknown[0]] = n // known
    return tuple(dims)


Reshape = Primitive(
    "Reshape",
    _reshape_infer,
    lambda xp, x, s: x.reshape(tuple(int(d) for d in s)),
    lambda op, g: [reshape(g, shape_of(op.inputs[0])), None],
    simplify=rules.reshape_rule,
)


def _as_shape_tensor(shape, packed=None):
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        return convert_to_tensor(shape)
    parts = list(shape)
    if any(isinstance(p, Tensor) for p in parts):
        if packed is None:
            return stack([cast_int32(p) for p in parts])
        with name_scope(packed) as scope:  # TF1's auto-packing: "<scope>/packed", its parts "packed/<i>"
            parts = [cast_int32(p) if isinstance(p, Tensor) else _dim(p, i) for i, p in enumerate(parts)]
            return stack(parts, name=scope)
    for p in parts:  # TF1 truncates a float dimension that fits int32 and refuses the others
        if isinstance(p, float) and not -(2**31) <= p < 2**31:
            raise TypeError(f"Expected int32, but got {p} of type 'float'.")
    dims = [int(-1 if p is None else p) for p in parts]
    wide = any(not -(2**31) <= d < 2**31 for d in dims)  # TF1's shape tensor is int64 then
    return constant(dims, dtype=dtypes.int64 if wide else dtypes.int32)


def _dim(p, i):
    return constant(int(p), dtype=dtypes.int32, name=str(i))


def cast_int32(p):
    return math_ops.cast(p, dtypes.int32) if isinstance(p, Tensor) else constant(int(p), dtype=dtypes.int32)


def reshape(tensor, shape, name=None):
    """Same values, new shape; one dimension may be -1.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.reshape(tf.zeros([4, 6]), [-1, 3]).shape.as_list()
    [8, 3]
    """
    return apply(Reshape, tensor, _as_shape_tensor(shape), name=name)


def _expand_infer(inputs, *, axis):
    dims = inputs[0]._dims
    return (None if dims is None else dims[:axis] + (1,) + dims[axis:]), inputs[0].dtype


def _expand_kernel(xp, x, *, axis):
    at = axis if axis >= 0 else x.ndim + 1 + axis  # a negative axis: unknown rank at build time
    if not 0 <= at <= x.ndim:
        return xp.expand_dims(x, axis)  # numpy's error for an axis out of range
    return xp.reshape(x, x.shape[:at] + (1,) + x.shape[at:])  # a view, without expand_dims' checks


ExpandDims = Primitive(
    "ExpandDims", _expand_infer, _expand_kernel, lambda op, g: [reshape(g, shape_of(op.inputs[0]))]
)


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """Insert a dimension of size 1 at ``axis``."""
    x = convert_to_tensor(input)
    axis = dim if axis is None else axis
    r = x.shape.ndims
    (axis,) = normalize_axes(axis, None if r is None else r + 1)
    return apply(ExpandDims, x, axis=axis, name=name)


def _squeeze_infer(inputs, *, axis):
    dims = inputs[0]._dims
    if dims is None:
        return None, inputs[0].dtype
    if axis is None:
        if None in dims:
            return None, inputs[0].dtype
        return tuple(d for d in dims if d != 1), inputs[0].dtype
    for a in axis:
        if dims[a] not in (1, None):
            raise ValueError(f"cannot squeeze axis {a} of {inputs[0].name}: its size is {dims[a]}")
    return tuple(d for i, d in enumerate(dims) if i not in axis), inputs[0].dtype


Squeeze = Primitive(
    "Squeeze",
    _squeeze_infer,
    lambda xp, x, *, axis: xp.squeeze(x, axis),
    lambda op, g: [reshape(g, shape_of(op.inputs[0]))],
)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Remove dimensions of size 1 (those in ``axis``, or all)."""
    x = convert_to_tensor(input)
    axis = squeeze_dims if axis is None else axis
    if axis is not None:
        axis = normalize_axes(axis, x.shape.ndims)
    return apply(Squeeze, x, axis=axis, name=name)


# -- broadcasting and its gradient ------------------------------------------------------


def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcast ``input`` to ``shape`` with numpy's rules."""
    return apply(BroadcastTo, input, _as_shape_tensor(shape), axes=(), mean=False, name=name)


# -- joining and splitting -----------------------------------------------------------------


def _concat_infer(inputs, *, axis):
    first = inputs[0]
    dt = first.dtype
    dims = first._dims
    for t in inputs[1:]:
        if t.dtype is not dt:
            raise TypeError(f"concat inputs differ in dtype: {dt.name} and {t.dtype.name} ({t.name})")
        if dims is None or t._dims is None:
            dims = None
            continue
        if len(dims) != len(t._dims):
            raise ValueError(f"concat inputs differ in rank: {fmt(dims)} and {t.shape} ({t.name})")
        dims = tuple(_concat_dim(a, b, i == axis, t) for i, (a, b) in enumerate(zip(dims, t._dims)))
    return dims, dt


def _concat_dim(a, b, along, t):
    if along:
        return None if a is None or b is None else a + b
    if a is not None and b is not None and a != b:
        raise ValueError(f"concat inputs differ in a non-concatenated dimension: {a} vs {b} ({t.name})")
    return a if a is not None else b


def _concat_grad(op, g):
    axis = op.attrs["axis"]
    known = [x._dims[axis] if x._dims is not None else None for x in op.inputs]
    if None in known:
        sizes = stack([_dim_size(x, axis) for x in op.inputs])
    else:  # one constant: a stacked size hides its value from the split's shape inference
        sizes = constant(known, dtype=dtypes.int32)
    return list(split(g, sizes, axis=axis, num=len(op.inputs)))


def _dim_size(x, axis):
    d = x._dims[axis] if x._dims is not None else None
    return constant(d, dtype=dtypes.int32) if d is not None else shape(x)[axis]


ConcatV2 = Primitive(
    "ConcatV2",
    _concat_infer,
    lambda xp, *xs, axis: xp.concatenate(xs, axis=axis),
    _concat_grad,
)


def concat(values, axis, name="concat"):
    """Join tensors along an existing axis (one tensor alone: that tensor, as in TF1)."""
    values = [convert_to_tensor(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
    if len(values) == 1:
        return identity(values[0], name=name)
    rank_ = values[0].shape.ndims
    (axis,) = normalize_axes(axis, rank_)
    return apply(ConcatV2, *values, axis=axis, name=name)


def stack(values, axis=0, name="stack"):
    """Join tensors along a new axis."""
    if axis == 0 and isinstance(values, Tensor):
        return values  # TF1 converts `values` whole first when axis is 0; a tensor stays itself
    values = [convert_to_tensor(v) for v in values]
    r = values[0].shape.ndims
    (axis,) = normalize_axes(axis, None if r is None else r + 1)
    return concat([expand_dims(v, axis) for v in values], axis, name=name)


def _autopacking_conversion_function(v, dtype=None, name=None, as_ref=False):
    """A list or tuple holding tensors, packed into one tensor (TF1's conversion of that name);
    ``NotImplemented`` for one holding none, which becomes a constant."""
    if as_ref or not _holds_tensors(v):
        return NotImplemented
    return stack([convert_to_tensor(x, dtype=dtype) for x in v], name=name or "packed")


def _holds_tensors(value):
    return any(
        isinstance(v, Tensor)
        or hasattr(v, "_as_tensor")
        or (isinstance(v, (list, tuple)) and _holds_tensors(v))
        for v in value
    )


# convert_to_tensor (framework/) finds this without importing ops/; priority 99, as TF1's.
register_tensor_conversion_function((list, tuple), _autopacking_conversion_function, 99)


def _split_infer(inputs, *, axis, num):
    x, sizes = inputs
    static = static_shape_value(sizes)
    dims = x._dims
    out = []
    for i in range(num):
        size_ = static[i] if static is not None else None
        if size_ == -1:  # the rest of the axis; -1 comes only from a constant, so all sizes are known
            size_ = None if dims is None or dims[axis] is None else dims[axis] - (sum(static) + 1)
        out.append(((None if dims is None else dims[:axis] + (size_,) + dims[axis + 1 :]), x.dtype))
    return out


def _split_kernel(xp, x, sizes, *, axis, num):
    sizes = [int(s) for s in sizes]
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"split sizes {sizes} do not add up to dimension {axis} of size {x.shape[axis]}")
    parts = tuple(xp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis))
    return parts[0] if num == 1 else parts  # a kernel of one output returns its array


def _split_grad(op, *grads):
    grads = [g if g is not None else zeros_like(t) for g, t in zip(grads, op.outputs)]  # unused parts
    return [concat(grads, op.attrs["axis"]), None]


SplitV = Primitive("SplitV", _split_infer, _split_kernel, _split_grad)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split into ``num_or_size_splits`` equal parts, or parts of given sizes."""
    x = convert_to_tensor(value)
    (axis,) = normalize_axes(axis, x.shape.ndims)
    if isinstance(num_or_size_splits, int):
        n = num_or_size_splits
        d = x._dims[axis] if x._dims is not None else None
        if d is None:
            return _split_even_dynamic(x, n, axis, name)
        if d % n:
            raise ValueError(f"dimension {axis} of {x.name} (size {d}) does not split into {n} equal parts")
        sizes = constant([d // n] * n, dtype=dtypes.int32)
    else:
        sizes = convert_to_tensor(num_or_size_splits, dtype=dtypes.int32)
        n = num if num is not None else sizes.shape[0]
        if n is None:
            raise ValueError("split with a dynamic size_splits needs num=")
    return list(apply(SplitV, x, sizes, axis=axis, num=n, name=name))


def _split_even_dynamic(x, n, axis, name):
    part = math_ops.floordiv(shape(x)[axis], n)
    return list(apply(SplitV, x, stack([part] * n), axis=axis, num=n, name=name))


def unstack(value, num=None, axis=0, name="unstack"):
    """Split along ``axis`` into tensors of one rank less."""
    x = convert_to_tensor(value)
    (axis,) = normalize_axes(axis, x.shape.ndims)
    num = num if num is not None or x._dims is None else x._dims[axis]
    if num is None:
        raise ValueError(f"unstack of {x.name} needs num=: dimension {axis} is unknown")
    return [squeeze(p, [axis]) for p in split(x, num, axis=axis, name=name)]


# -- slicing and gathering ---------------------------------------------------------------


def _slice_infer(inputs, *, spec):
    x = inputs[0]
    return _sliced_dims(x, spec), x.dtype


def _sliced_dims(x, spec):
    dims = x._dims
    if dims is None:
        return None
    out, i = [], 0
    n_real = sum(1 for s in spec if s is not None and s is not Ellipsis)
    for s in spec:
        if s is Ellipsis:
            out.extend(dims[i : i + len(dims) - n_real])
            i += len(dims) - n_real
        elif s is None:
            out.append(1)
        elif isinstance(s, _py_slice):
            out.append(None if dims[i] is None else len(range(*s.indices(dims[i]))))
            i += 1
        else:
            if dims[i] is not None and not -dims[i] <= s < dims[i]:
                raise ValueError(f"index {s} is out of bounds for dimension {i} of {x.name} (size {dims[i]})")
            i += 1
    if i > len(dims):
        raise ValueError(f"too many indices for {x.name} of rank {len(dims)}")
    return tuple(out) + tuple(dims[i:])


StridedSlice = Primitive(
    "StridedSlice",
    _slice_infer,
    lambda xp, x, *, spec: x[spec],
    lambda op, g: [apply(StridedSliceGrad, g, shape_of(op.inputs[0]), spec=op.attrs["spec"])],
)


def _slice_grad_kernel(xp, g, s, *, spec):
    out = xp.zeros(tuple(int(d) for d in s), dtype=g.dtype)
    out[spec] = g
    return out


StridedSliceGrad = Primitive(
    "StridedSliceGrad",
    lambda inputs, *, spec: (static_shape_value(inputs[1]), inputs[0].dtype),
    _slice_grad_kernel,
    lambda op, g: [strided_slice_spec(g, op.attrs["spec"]), None],
)


def strided_slice_spec(x, spec, name=None):
    """``x[spec]`` for a static index (ints, slices, None, Ellipsis)."""
    return apply(StridedSlice, x, spec=spec, name=name)


def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
):
    """TF1's ``tf.strided_slice``: ``input_[begin:end:strides]`` per axis, with TF's bit masks.

    ``begin``, ``end`` and ``strides`` must be known while building (lists, or
    tensors whose value the graph alone fixes).
    """
    spec = slice_spec(
        begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask
    )
    return strided_slice_spec(convert_to_tensor(input_), spec, name=name or "StridedSlice")


def slice_spec(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """TF's strided-slice bounds and bit masks as a static index (ints, slices, None,
    Ellipsis); the bounds must be known while building."""
    begin, end = _static_vector(begin, "begin"), _static_vector(end, "end")
    strides = [1] * len(begin) if strides is None else _static_vector(strides, "strides")
    spec = []
    for i, (b, e, st) in enumerate(zip(begin, end, strides)):
        if ellipsis_mask >> i & 1:
            spec.append(Ellipsis)
        elif new_axis_mask >> i & 1:
            spec.append(None)
        elif shrink_axis_mask >> i & 1:
            spec.append(b)
        else:
            spec.append(_py_slice(None if begin_mask >> i & 1 else b, None if end_mask >> i & 1 else e, st))
    return tuple(spec)


def _static_vector(v, what):
    value = constant_value(v) if isinstance(v, Tensor) else np.asarray(v)
    if value is None:
        raise NotImplementedError(f"strided_slice: {what} ({v.name}) must be known while building")
    return [int(x) for x in np.reshape(value, -1)]


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shape of each tensor of ``input`` (a list)."""
    with name_scope(name or "ShapeN"):
        return [shape(t, out_type=out_type) for t in input]


def _normalize_index(index):
    index = index if isinstance(index, tuple) else (index,)
    out = []
    for s in index:
        if isinstance(s, _py_slice):
            # _py_slice: this module's `slice` is TF's, not the builtin.
            out.append(_py_slice(*(None if v is None else _static_int(v) for v in (s.start, s.stop, s.step))))
        elif s is None or s is Ellipsis:
            out.append(s)
        else:
            out.append(_static_int(s))
    return tuple(out)


def _static_int(v):
    if isinstance(v, Tensor):
        raise TypeError(f"indexing with a tensor ({v.name}) is not supported; use tf.gather")
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"indices must be integers, slices, None or Ellipsis, got {v!r}")
    return int(v)


def getitem(tensor, index):
    """``tensor[index]`` (``Tensor.__getitem__``): static integer/slice indexing."""
    return strided_slice_spec(tensor, _normalize_index(index), name="strided_slice")


def _slice_vector(t, x, what):
    if t._dims is not None and len(t._dims) != 1:
        raise ValueError(f"slice: {what} {t.name} must be rank 1, got shape {t.shape}")
    n = t._dims[0] if t._dims is not None else None
    if n is not None and x._dims is not None and n != len(x._dims):
        raise ValueError(f"slice: {what} {t.name} has {n} entries but {x.name} has rank {len(x._dims)}")


def _slice_op_infer(inputs):
    """TF's Slice shape: a known size entry is that dimension, -1 the rest of a known one
    (constant or folded begin/size count, as in TF's constant-evaluating inference)."""
    x, begin, size = inputs
    _slice_vector(begin, x, "begin")
    _slice_vector(size, x, "size")
    sizes = static_shape_value(size)
    if sizes is None:
        n = len(x._dims) if x._dims is not None else None
        return (None if n is None else (None,) * n), x.dtype
    starts = static_shape_value(begin) or (None,) * len(sizes)
    dims = x._dims or (None,) * len(sizes)
    out = []
    for d, b, s in zip(dims, starts, sizes):
        if s is not None and s != -1:
            out.append(s)
        else:
            out.append(None if s is None or d is None or b is None else d - b)
    return tuple(out), x.dtype


def _slices(x, begin, size):
    if not len(begin) == len(size) == x.ndim:
        raise ValueError(
            f"Expected begin and size arguments to be 1-D tensors of size {x.ndim}, "
            f"but got shapes [{len(begin)}] and [{len(size)}] instead."
        )
    out = []
    for i, (d, b, s) in enumerate(zip(x.shape, begin.tolist(), size.tolist())):
        s = d - b if s == -1 else s
        if not (0 <= b <= d and 0 <= s <= d - b):
            raise ValueError(f"Expected size[{i}] in [0, {d - b}], but got {s} (begin[{i}] = {b})")
        out.append(_py_slice(b, b + s))
    return tuple(out)


def _slice_op_grad_kernel(xp, g, s, begin, size):
    out = xp.zeros(tuple(int(d) for d in s), dtype=g.dtype)
    out[_slices(out, begin, size)] = g
    return out


SliceGrad = Primitive(
    "SliceGrad",
    lambda inputs: (static_shape_value(inputs[1]), inputs[0].dtype),
    _slice_op_grad_kernel,
    lambda op, g: [apply(Slice, g, *op.inputs[2:]), None, None, None],  # the same window of g
    fresh_output=True,
)
Slice = Primitive(
    "Slice",
    _slice_op_infer,
    lambda xp, x, begin, size: x[_slices(x, begin, size)],
    lambda op, g: [apply(SliceGrad, g, shape_of(op.inputs[0]), *op.inputs[1:]), None, None],
)


def slice(input_, begin, size, name=None):  # noqa: A001 - TF1's public name
    """``input_[begin : begin + size]`` per axis; a size of -1 takes the rest.

    ``begin`` and ``size`` may be tensors; what the graph fixes of them
    (constants, ``tf.shape`` of known dimensions) makes the static shape, as TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.slice(tf.placeholder(tf.uint8, [None]), [0], [1]).shape.as_list()
    [1]
    """
    x = convert_to_tensor(input_)
    begin = _index_vector(begin)
    size = _index_vector(size, begin.dtype)
    if begin.dtype is not size.dtype:
        raise TypeError(f"slice: begin {begin.name} and size {size.name} must share a dtype")
    return apply(Slice, x, begin, size, name=name or "Slice")


def _index_vector(v, dtype=None):
    t = v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype or dtypes.int32)
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"slice: {t.name} must be int32 or int64, got {t.dtype.name}")
    return t


def _gather_infer(inputs, *, axis):
    params, indices = inputs
    if not indices.dtype.is_integer:
        raise TypeError(f"gather indices {indices.name} must be integers, got {indices.dtype.name}")
    p, i = params._dims, indices._dims
    if p is None or i is None:
        return None, params.dtype
    return p[:axis] + i + p[axis + 1 :], params.dtype


def _gather_grad(op, g):
    """For rows of a variable (an embedding lookup), TF1's sparse gradient: the rows of
    ``g``, one per index (:class:`~daskflow.framework.indexed_slices.IndexedSlices`); else
    dense. (TF1 gives rows for any gather along axis 0; daskflow's own ops gather inside
    where TF1's do not, so only a variable's rows are kept sparse.)"""
    from ..framework.indexed_slices import (
        IndexedSlices,  # local import: a cycle, indexed_slices builds on this module
    )

    params, indices = op.inputs
    axis, known = op.attrs["axis"], params.shape.is_fully_defined()
    shape = constant(params.shape.as_list(), dtype=dtypes.int32) if known else shape_of(params)
    if axis != 0 or params.shape.ndims is None or not params.op.primitive.is_variable:
        return [apply(ScatterAddTo, g, indices, shape, axis=axis), None]
    if indices.shape.ndims == 1:  # already one row per index
        return [IndexedSlices(g, indices, shape), None]
    tail = params.shape.as_list()[1:] if known else strided_slice_spec(shape, (slice(1, None),))
    rows = [-1, *tail] if known else concat([constant([-1], dtype=dtypes.int32), tail], 0)
    return [IndexedSlices(reshape(g, rows), reshape(indices, [-1]), shape), None]


def dense_rows(values, indices, dense_shape):
    """``values`` (``[n, ...]``) added into zeros of ``dense_shape`` at rows ``indices``."""
    return apply(ScatterAddTo, values, indices, convert_to_tensor(dense_shape), axis=0)


Gather = Primitive(
    "GatherV2",
    _gather_infer,
    lambda xp, p, i, *, axis: xp.take(p, i, axis=axis),  # take copies: a new array
    _gather_grad,
    fresh_output=True,
)


def _scatter_add_kernel(xp, g, indices, s, *, axis):
    out = xp.zeros(tuple(int(d) for d in s), dtype=g.dtype)
    moved = xp.moveaxis(out, axis, 0)
    g = xp.moveaxis(g, list(range(axis, axis + indices.ndim)), list(range(indices.ndim)))
    xp.add.at(moved, indices, g)  # repeated indices accumulate, as the gradient needs
    return out


ScatterAddTo = Primitive(
    "ScatterAddTo",
    lambda inputs, *, axis: (static_shape_value(inputs[2]), inputs[0].dtype),
    _scatter_add_kernel,
    lambda op, g: [gather(g, op.inputs[1], axis=op.attrs["axis"]), None, None],
)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Entries of ``params`` at ``indices`` along ``axis`` (0 by default).

    ``validate_indices`` is ignored, as in TF1 (indices are always checked).
    """
    if batch_dims != 0:
        raise refuse("gather", "batch_dims", batch_dims, "gather per batch entry with tf.map_fn")
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    (axis,) = normalize_axes(0 if axis is None else axis, params.shape.ndims)
    return apply(Gather, params, indices, axis=axis, name=name)


# -- filling -------------------------------------------------------------------------------


_NO_LAYOUT = "leave layout=None (DTensor layouts have no meaning here)"


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with ``value``."""
    refuse_unless_none("fill", "layout", layout, _NO_LAYOUT)
    return apply(Fill, _as_shape_tensor(dims), value, name=name)


def zeros(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of zeros (one Const when its shape is known and small, as TF1's)."""
    refuse_unless_none("zeros", "layout", layout, _NO_LAYOUT)
    with name_scope(name, "zeros", []) as scope:
        return _filled(shape, 0, dtype, scope)


def ones(shape, dtype=dtypes.float32, name=None, layout=None):
    """A tensor of ones (one Const when its shape is known and small, as TF1's)."""
    refuse_unless_none("ones", "layout", layout, _NO_LAYOUT)
    with name_scope(name, "ones", []) as scope:
        return _filled(shape, 1, dtype, scope)


def _filled(shape, value, dtype, scope):
    if hasattr(shape, "dims") and not shape.is_fully_defined():  # TF1's words for both
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    if isinstance(shape, (list, tuple)) and any(p is None for p in shape):
        raise TypeError("Expected int32, but got None of type 'NoneType'.")
    dims = _static_dims(shape)
    if dims is not None:
        return filled(dims, value, dtype, scope)
    return fill_with(_as_shape_tensor(shape, packed="packed"), value, dtype, scope)


def _static_dims(shape):
    """``shape``'s dimensions when it is no tensor and holds none (nor an unknown one), else None."""
    if isinstance(shape, Tensor) or hasattr(shape, "_as_tensor"):
        return None
    shape = getattr(shape, "dims", shape)  # a TensorShape's
    parts = [shape] if isinstance(shape, int) else list(shape)
    if any(isinstance(p, (Tensor, float)) for p in parts):
        return None
    dims = [int(dimension_value(p)) for p in parts]
    return None if any(d < 0 for d in dims) else dims


# -- one_hot, tile, pad ---------------------------------------------------------------------


def _one_hot_infer(inputs, *, depth, dtype):
    dims = inputs[0]._dims
    if not inputs[0].dtype.is_integer:
        raise TypeError(f"one_hot indices {inputs[0].name} must be integers, got {inputs[0].dtype.name}")
    return (None if dims is None else dims + (depth,)), dtype


def _one_hot_kernel(xp, i, on, off, *, depth, dtype):
    hit = i[..., None] == xp.arange(depth)
    return xp.where(hit, on, off).astype(dtype.np)


OneHot = Primitive("OneHot", _one_hot_infer, _one_hot_kernel, grad=NOT_DIFFERENTIABLE)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length ``depth`` along a new last axis."""
    if axis not in (None, -1):
        raise NotImplementedError("one_hot supports only axis=-1")
    dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
    on = constant(1 if on_value is None else on_value, dtype=dtype)
    off = constant(0 if off_value is None else off_value, dtype=dtype)
    return apply(OneHot, indices, on, off, depth=int(depth), dtype=dtype, name=name)


def _tile_infer(inputs, *, multiples):
    dims = inputs[0]._dims
    if dims is not None and len(dims) != len(multiples):
        raise ValueError(f"tile multiples {list(multiples)} do not match the rank of {inputs[0].name}")
    return (
        None if dims is None else tuple(None if d is None else d * m for d, m in zip(dims, multiples))
    ), inputs[0].dtype


def _tile_grad_kernel(xp, g, s, *, multiples):
    interleaved = [v for m, d in zip(multiples, s) for v in (m, int(d))]
    return g.reshape(interleaved).sum(axis=tuple(range(0, len(interleaved), 2)))


Tile = Primitive(
    "Tile",
    _tile_infer,
    lambda xp, x, *, multiples: xp.tile(x, multiples),
    lambda op, g: [apply(TileGrad, g, shape_of(op.inputs[0]), multiples=op.attrs["multiples"])],
)
TileGrad = Primitive(
    "TileGrad",
    lambda inputs, *, multiples: (static_shape_value(inputs[1]), inputs[0].dtype),
    _tile_grad_kernel,
    lambda op, g: [tile(g, op.attrs["multiples"]), None],
)


def _tile_dynamic_infer(inputs):
    dims, multiples = inputs[0]._dims, static_shape_value(inputs[1])
    if dims is None or multiples is None:
        return (None if multiples is None else (None,) * len(multiples)), inputs[0].dtype
    if len(dims) != len(multiples):
        raise ValueError(f"tile multiples {inputs[1].name} do not match the rank of {inputs[0].name}")
    return tuple(None if d is None or m is None else d * m for d, m in zip(dims, multiples)), inputs[0].dtype


def _tile_dynamic_grad_kernel(xp, g, s, multiples):
    return _tile_grad_kernel(xp, g, s, multiples=tuple(int(m) for m in multiples))


# Multiples known only when the graph runs (``[tf.shape(x)[0], 1]``): a second input.
TileDynamic = Primitive(
    "TileDynamic",
    _tile_dynamic_infer,
    lambda xp, x, multiples: xp.tile(x, tuple(int(m) for m in multiples)),
    lambda op, g: [apply(TileDynamicGrad, g, shape_of(op.inputs[0]), op.inputs[1]), None],
)
TileDynamicGrad = Primitive(
    "TileDynamicGrad",
    lambda inputs: (static_shape_value(inputs[1]), inputs[0].dtype),
    _tile_dynamic_grad_kernel,
    lambda op, g: [tile(g, op.inputs[2]), None, None],
)


def tile(input, multiples, name=None):  # noqa: A002
    """Repeat ``input`` ``multiples[i]`` times along axis i (``multiples`` a list of ints, a
    list holding scalar tensors, or an int32 vector tensor)."""
    packed = _as_shape_tensor(multiples)
    known = static_shape_value(packed)
    if known is not None and None not in known:
        return apply(Tile, input, multiples=tuple(int(m) for m in known), name=name)
    return apply(TileDynamic, input, packed, name=name)


def _pad_infer(inputs, *, paddings, constant_values):
    dims = inputs[0]._dims
    if dims is not None and len(dims) != len(paddings):
        raise ValueError(f"paddings {list(paddings)} do not match the rank of {inputs[0].name}")
    return (
        None if dims is None else tuple(None if d is None else d + a + b for d, (a, b) in zip(dims, paddings))
    ), inputs[0].dtype


def _pad_grad(op, g):
    spec = tuple(_py_slice(a, -b if b else None) for a, b in op.attrs["paddings"])
    return [strided_slice_spec(g, spec)]


Pad = Primitive(
    "Pad",
    _pad_infer,
    lambda xp, x, *, paddings, constant_values: xp.pad(x, paddings, constant_values=constant_values),
    _pad_grad,
)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pad with ``constant_values``: ``paddings[i] = [before, after]``."""
    if str(mode).upper() != "CONSTANT":
        raise NotImplementedError(f"pad mode {mode!r} is not supported (only CONSTANT)")
    paddings = tuple((int(a), int(b)) for a, b in paddings)
    return apply(Pad, tensor, paddings=paddings, constant_values=constant_values, name=name)


# -- ranges, masks, reversal -------------------------------------------------------------


def _range_infer(inputs, *, dtype):
    values = [static_scalar(t) for t in inputs]
    if None in values:
        return (None,), dtype
    start, limit, delta = values
    return (max(0, int(np.ceil((limit - start) / delta))),), dtype


def static_scalar(t):
    """A scalar tensor's value when it is a constant, else None."""
    if t.op.type == "Const" and t.op.attrs["value"].size == 1:
        return t.op.attrs["value"].reshape(()).item()
    return None


def _range_kernel(xp, start, limit, delta, *, dtype):
    # Host numbers: cupy.arange takes its bounds as Python scalars, not device arrays.
    return xp.arange(start.item(), limit.item(), delta.item(), dtype=dtype.np)


Range = Primitive("Range", _range_infer, _range_kernel, grad=NOT_DIFFERENTIABLE)


def range_(start, limit=None, delta=1, dtype=None, name="range"):
    """``[start, start + delta, ...]`` up to, not including, ``limit`` (``tf.range``; ``range(n)``: 0..n-1).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.range(3, 10, 2).shape.as_list()
    [4]
    """
    if limit is None:
        start, limit = 0, start
    parts = [convert_to_tensor(v) if isinstance(v, Tensor) else v for v in (start, limit, delta)]
    if dtype is None:
        floating = any(
            (p.dtype.is_floating if isinstance(p, Tensor) else isinstance(p, float)) for p in parts
        )
        tensor_dtypes = [p.dtype for p in parts if isinstance(p, Tensor)]
        dtype = max(tensor_dtypes, key=lambda d: d.size) if tensor_dtypes else None
        dtype = dtype or (dtypes.float32 if floating else dtypes.int32)
    dtype = dtypes.as_dtype(dtype)
    tensors = [math_ops.cast(convert_to_tensor(p), dtype) for p in parts]
    return apply(Range, *tensors, dtype=dtype, name=name)


def _reverse_infer(inputs, *, axis):
    return inputs[0]._dims, inputs[0].dtype


ReverseV2 = Primitive(
    "ReverseV2",
    _reverse_infer,
    lambda xp, x, *, axis: xp.flip(x, axis=axis),
    lambda op, g: [reverse(g, op.attrs["axis"])],
)


def reverse(tensor, axis, name=None):
    """Reverse ``tensor`` along each axis of ``axis``."""
    x = convert_to_tensor(tensor)
    axes = normalize_axes(axis, x.shape.ndims)
    return apply(ReverseV2, x, axis=axes, name=name)


reverse_v2 = reverse


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[i, j] = j < lengths[i]`` (``maxlen`` defaults to the largest length)."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = math_ops.reduce_max(lengths)
    maxlen = math_ops.cast(convert_to_tensor(maxlen), lengths.dtype)
    row = range_(0, maxlen, 1, dtype=lengths.dtype)
    mask = math_ops.less(row, expand_dims(lengths, -1))
    dtype = dtypes.as_dtype(dtype)
    return mask if dtype is dtypes.bool else math_ops.cast(mask, dtype, name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """The identity matrix (``num_rows`` by ``num_columns``)."""
    if batch_shape is not None:
        raise NotImplementedError("eye with batch_shape is not supported")
    cols = num_rows if num_columns is None else num_columns
    return constant(np.eye(int(num_rows), int(cols)), dtype=dtype, name=name or "eye")


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of ``tensor`` where ``mask`` (of its leading dimensions) is true, flattened
    over those dimensions."""
    x = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    k = _known_rank(mask, "boolean_mask")
    lead = x._dims[:k] if x._dims is not None else None
    rest = shape(x)[k:] if x._dims is None or None in x._dims[k:] else list(x._dims[k:])
    flat = reshape(x, concat([[-1], rest], 0) if isinstance(rest, Tensor) else [-1, *rest])
    if (
        lead is not None
        and mask._dims is not None
        and not all(a is None or b is None or a == b for a, b in zip(lead, mask._dims))
    ):
        raise ValueError(f"mask {mask.name} of shape {mask.shape} does not fit {x.name} of shape {x.shape}")
    picked = reshape(math_ops.where(reshape(mask, [-1])), [-1])
    return gather(flat, picked, name=name)
