"""Shared shape/dtype inference rules used by the op declarations."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.tensor_shape import as_dims, broadcast, fmt


def same(inputs, **_):
    """Output like the first input (elementwise unary ops)."""
    return inputs[0]._dims, inputs[0].dtype


def shaped_like_second(inputs, **_):
    """The first input's dtype in the second's shape (a gradient kernel given its op's input)."""
    return inputs[1]._dims, inputs[0].dtype


def same_float(inputs, **_):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise TypeError(f"expects a floating-point input, got {x.dtype.name} ({x.name})")
    return x._dims, x.dtype


def check_same_dtype(inputs):
    first = inputs[0].dtype
    for t in inputs[1:]:
        if t.dtype is not first:
            raise TypeError(
                f"inputs must share a dtype: {inputs[0].name} is {first.name}, {t.name} is {t.dtype.name}"
            )
    return first


def broadcast_dims(inputs):
    dims = inputs[0]._dims
    for t in inputs[1:]:
        try:
            dims = broadcast(dims, t._dims)
        except ValueError:
            raise ValueError(
                f"incompatible shapes {fmt(inputs[0]._dims)} ({inputs[0].name}) and {fmt(t._dims)} ({t.name})"
            ) from None
    return dims


def binary(inputs, **_):
    """Broadcasting binary op on numbers: both dtypes equal, output of that dtype."""
    return broadcast_dims(inputs), numeric(check_same_dtype(inputs), inputs)


def binary_or_string(inputs, **_):
    """Like :func:`binary`, and strings too (``Add`` concatenates them, as in TF)."""
    return broadcast_dims(inputs), check_same_dtype(inputs)


def numeric(dtype, inputs):
    """``dtype``, unless it is ``string``: TF's numeric kernels have no string form."""
    if dtype is dtypes.string:
        raise TypeError(f"expects numeric inputs, got string ({', '.join(t.name for t in inputs)})")
    return dtype


def numeric_comparison(inputs, **_):
    numeric(check_same_dtype(inputs), inputs)
    return broadcast_dims(inputs), dtypes.bool


def comparison(inputs, **_):
    check_same_dtype(inputs)
    return broadcast_dims(inputs), dtypes.bool


def normalize_axes(axis, rank, what="axis"):
    """Sorted axes, or None for all: non-negative where the rank is known.

    TF1 builds ops on tensors of unknown rank and checks their axes when they run,
    so a negative axis of such a tensor stays negative: kernels resolve it against
    the array they get (numpy's axes count from the end the same way).
    """
    if axis is None:
        return None
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)  # numpy ints too, as TF takes them
    out = []
    for a in axes:
        a = int(a)
        if rank is not None:
            if not -rank <= a < rank:
                raise ValueError(f"{what} {a} is out of range for a tensor of rank {rank}")
            a %= rank
        out.append(a)
    return tuple(sorted(set(out)))


def reduced_dims(dims, axes, keepdims):
    if axes is None and not keepdims:
        return ()  # every axis: a scalar whatever the rank, as TF infers
    if dims is None:
        return None
    if axes is None:
        return (1,) * len(dims)
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(dims))
    return tuple(d for i, d in enumerate(dims) if i not in axes)


def static_shape_value(t):
    """What is known statically of a 1-D shape tensor's *value*: dims or None.

    Follows what TF's shape functions follow (``constant_value_as_shape``):
    ``tf.shape`` of a partly known shape, slices of it, shapes stacked or
    concatenated from parts (``[tf.shape(x)[0], 3]`` keeps the 3), and any
    value :func:`constant_value` can work out (``tf.shape(x)[0] * 2``).
    """
    op = t.op
    value = constant_value(t)
    if value is not None and value.ndim == 1:
        return tuple(int(v) for v in value)
    if op.type == "Shape":
        return op.inputs[0]._dims
    if op.type in ("Cast", "Identity"):
        return static_shape_value(op.inputs[0])
    if op.type == "ConcatV2" and op.attrs["axis"] == 0:
        parts = [static_shape_value(p) for p in op.inputs]
        if None not in parts:
            return tuple(d for p in parts for d in p)
    if op.type == "Pack" and op.attrs.get("axis", 0) == 0 and all(p._dims == () for p in op.inputs):
        return tuple(static_dim(p) for p in op.inputs)
    if op.type == "ExpandDims" and op.attrs["axis"] == 0 and op.inputs[0]._dims == ():
        return (static_dim(op.inputs[0]),)
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        return _sliced_shape(op)
    if t._dims is not None and len(t._dims) == 1 and t._dims[0] is not None:
        return as_dims([None] * t._dims[0])
    return None


def _sliced_shape(op):
    """``tf.shape(x)[a:b]`` of a partly known shape: the known entries stay known."""
    dims = op.inputs[0].op.inputs[0]._dims
    spec = op.attrs["spec"]
    if dims is None or len(spec) != 1 or not isinstance(spec[0], slice):
        return None
    return tuple(dims[spec[0]])


def static_dim(t):
    """A scalar shape entry's value when it is known statically (a constant, a
    known dimension read off ``tf.shape``, or arithmetic :func:`constant_value`
    folds), else None."""
    op = t.op
    value = constant_value(t)
    if value is not None and value.size == 1:
        return int(value.reshape(()))  # -1 stays -1, as in a constant shape
    if op.type in ("Cast", "Identity"):
        return static_dim(op.inputs[0])
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        (index,) = op.attrs["spec"] if len(op.attrs["spec"]) == 1 else (None,)
        dims = op.inputs[0].op.inputs[0]._dims
        if isinstance(index, int) and dims is not None and -len(dims) <= index < len(dims):
            return dims[index]
    return None


# Values larger than this are data, not shapes: folding them at graph-building time
# would only cost memory (TF's C++ shape inference bounds its constant evaluation too).
_FOLD_LIMIT = 1 << 12
# Feedable though they compute from constants: their value is the feed's when fed.
_NOT_CONSTANT = frozenset({"PlaceholderWithDefault"})


def constant_value(t, depth=16):
    """``t``'s value when the graph alone fixes it, else None.

    TF's ``tensor_util.constant_value`` and its C++ shape inference's constant
    evaluation: a constant; the shape, size or rank of a tensor of fully
    known shape (``shape_only`` inputs need no value); and any deterministic
    op whose inputs all have constant values, evaluated with its own numpy
    kernel (``tf.stack([2, 3])``, ``tf.shape(x)[0] * 2``). ``depth`` bounds the
    walk up the graph.
    """
    op = t.op
    if op.type == "Const":
        return op.attrs["value"]
    prim = op.primitive
    if depth <= 0 or not _foldable(op, t):
        return None
    args = []
    for k, x in enumerate(op.inputs):
        if k in prim.shape_only and x.shape.is_fully_defined():
            args.append(np.broadcast_to(np.zeros((), x.dtype.np), x._dims))  # a shape, no memory
            continue
        value = constant_value(x, depth - 1)
        if value is None or value.size > _FOLD_LIMIT:
            return None
        args.append(value)
    try:
        out = prim.kernel(np, *args, **op.attrs)
    except Exception:  # noqa: BLE001 - a run would fail the same way; inference just knows less
        return None
    out = out[t.value_index] if isinstance(out, (tuple, list)) else out
    return np.asarray(out)


def _foldable(op, t):
    prim = op.primitive
    if prim.kernel is None or not op.inputs or op.type in _NOT_CONSTANT:
        return False
    if prim.stateful or prim.make_state or prim.is_variable or prim.is_placeholder or prim.updates_variable:
        return False
    if prim.host_only or prim.accepts_uninitialized or prim.aggregates_replicas:
        return False
    dims = t._dims
    return dims is None or None in dims or int(np.prod(dims)) <= _FOLD_LIMIT
