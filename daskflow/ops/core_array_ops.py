"""The array ops every other op module builds on: identity, shape, transpose, filling,
and the two internal primitives that undo broadcasting in gradients.

``BroadcastTo`` and ``ReduceTo`` are each the other's gradient, so gradients
of gradients work through broadcasts too. This module imports no other op
module, so ``math_ops`` (whose gradients need these) and ``array_ops`` (which
re-exports them) both build on it without importing each other.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.arguments import refuse
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.tensor_shape import fmt
from .infer import same, static_shape_value
from .rewrite_rules import inverse_permutations

Identity = Primitive("Identity", same, lambda xp, x: x, lambda op, g: [g], forwards_input=True)
StopGradient = Primitive("StopGradient", same, lambda xp, x: x, NOT_DIFFERENTIABLE, forwards_input=True)


def identity(input, name=None):  # noqa: A002
    """The same value, as a new tensor (useful with control dependencies)."""
    return apply(Identity, input, name=name)


def stop_gradient(input, name=None):  # noqa: A002
    """The same value; ``gradients`` treats it as a constant."""
    return apply(StopGradient, input, name=name)


def _int_out(inputs, *, out_type):
    dims = inputs[0]._dims
    return (None if dims is None else len(dims),), out_type


Shape = Primitive(
    "Shape",
    _int_out,
    lambda xp, x, *, out_type: xp.asarray(x.shape, dtype=out_type.np),
    shape_only=(0,),
    grad=NOT_DIFFERENTIABLE,
)


def shape(input, name=None, out_type=None):  # noqa: A002
    """The dynamic shape of ``input`` as a 1-D integer tensor (``out_type``, int32 by default)."""
    out_type = dtypes.int32 if out_type is None else out_type
    return apply(Shape, input, out_type=dtypes.as_dtype(out_type), name=name)


def shape_of(x) -> Tensor:
    """``shape(x)``, folded to a constant when the static shape is fully known."""
    if x.shape.is_fully_defined():
        return constant(list(x._dims), dtype=dtypes.int32, name="Shape")
    return shape(x)


def _transpose_infer(inputs, *, perm):
    dims = inputs[0]._dims
    if dims is not None and sorted(perm) != list(range(len(dims))):
        raise ValueError(
            f"perm {list(perm)} is not a permutation of the {len(dims)} axes of {inputs[0].name}"
        )
    return (None if dims is None else tuple(dims[p] for p in perm)), inputs[0].dtype


Transpose = Primitive(
    "Transpose",
    _transpose_infer,
    lambda xp, x, *, perm: xp.transpose(x, perm),
    lambda op, g: [transpose(g, tuple(np.argsort(op.attrs["perm"])))],
    simplify=inverse_permutations,
)


# TF1 reverses the axes of a tensor of unknown rank too (its perm is computed in the
# graph): the reversal is a primitive of its own, its own inverse.
ReverseAxes = Primitive(
    "ReverseAxes",
    lambda inputs: (None if inputs[0]._dims is None else inputs[0]._dims[::-1], inputs[0].dtype),
    lambda xp, x: xp.transpose(x),
    lambda op, g: [apply(ReverseAxes, g)],
)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permute the axes (reverse them when ``perm`` is None); ``conjugate`` is a no-op
    on real tensors, as in TF1."""
    a = convert_to_tensor(a)
    _real_only(a, conjugate, "transpose")
    if perm is None and a.shape.ndims is None:
        return apply(ReverseAxes, a, name=name)
    if perm is None:
        perm = tuple(reversed(range(_known_rank(a, "transpose"))))
    return apply(Transpose, a, perm=tuple(int(p) for p in perm), name=name)


def _swap_last_infer(inputs):
    dims = inputs[0]._dims
    if dims is not None and len(dims) < 2:
        raise ValueError(f"matrix_transpose needs rank 2 or more; {inputs[0].name} is {fmt(dims)}")
    return (None if dims is None else dims[:-2] + dims[:-3:-1]), inputs[0].dtype


# TF1 swaps the last two axes of a tensor of unknown rank too (its perm is computed in
# the graph from the rank): like ReverseAxes, a primitive of its own, its own inverse.
SwapLastAxes = Primitive(
    "SwapLastAxes",
    _swap_last_infer,
    lambda xp, x: xp.swapaxes(x, -1, -2),
    lambda op, g: [apply(SwapLastAxes, g)],
)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swap the last two axes (``conjugate`` is a no-op on real tensors, as in TF1)."""
    a = convert_to_tensor(a)
    _real_only(a, conjugate, "matrix_transpose")
    if a.shape.ndims is None:
        return apply(SwapLastAxes, a, name=name)
    r = _known_rank(a, "matrix_transpose")
    return transpose(a, tuple(range(r - 2)) + (r - 1, r - 2), name=name)


def _real_only(t, conjugate, fn):
    if conjugate and t.dtype.is_complex:
        raise refuse(fn, "conjugate", conjugate, "daskflow has no complex conjugate: leave conjugate=False")


def _known_rank(t, what):
    if t.shape.ndims is None:
        raise ValueError(f"{what} needs a tensor of known rank; {t.name} has unknown rank")
    return t.shape.ndims


def _to_shape_infer(inputs, *, axes, mean=False):
    return static_shape_value(inputs[1]), inputs[0].dtype


def _broadcast_to_kernel(xp, g, s, *, axes, mean=False):
    shape = tuple(s.tolist())
    if g.size == 1:  # the gradient of a reduction to a scalar (a mean loss's)
        out = xp.empty(shape, dtype=g.dtype)
        out[...] = g.reshape(())
        if mean and out.size:
            out /= g.dtype.type(out.size)
        return out
    if mean:
        g = g / g.dtype.type(max(math.prod(shape) // max(g.size, 1), 1))
    if axes:  # negative axes come from an input of unknown rank at build time
        axes = tuple(sorted(a % len(shape) for a in axes))
        g = g.reshape(_inserted_ones(g.shape, axes))
    out = xp.empty(shape, dtype=g.dtype)
    out[...] = g  # materialising beats numpy's broadcast_to view on small arrays
    return out


BLAS_SUM_MIN = 1 << 14  # elements; measured: 1,000 take 2.9 µs summed, 6.7 µs by BLAS


def _blas_summable(xp, y, summed):
    """Whether numpy ``y``'s sum over ``summed`` is one over its leading axes, as for a bias gradient."""
    return (
        y.size >= BLAS_SUM_MIN  # below it, the product's set-up costs more than it saves
        and xp is np
        and y.dtype.kind == "f"
        and y.dtype.itemsize >= 4
        and summed == tuple(range(len(summed)))
        and len(summed) < y.ndim  # a full sum is numpy's own fast (pairwise) case
        and y.flags.c_contiguous
    )


def _sum_leading(y, lead):
    """Sum C-contiguous ``y`` over its first ``lead`` axes as a product with ones.

    A bias gradient sums many rows of a few channels: numpy's reduction then
    runs one short inner loop per row, while BLAS's matrix-vector product
    streams through the rows about ten times faster (and more accurately).
    """
    rows = y.reshape(-1, int(np.prod(y.shape[lead:], dtype=np.int64)))
    return np.ones(rows.shape[0], dtype=y.dtype) @ rows


def _inserted_ones(shape, axes):
    """``shape`` with size-1 dimensions at ``axes`` (positions in the result)."""
    dims = iter(shape)
    return tuple(1 if i in axes else next(dims) for i in range(len(shape) + len(axes)))


def _reduce_to_kernel(xp, y, s, *, axes, mean=False):
    size = y.size
    if axes:
        y = y.sum(axis=axes)
    target = tuple(s.tolist())
    if y.shape != target:
        summed = _summed_axes(y.shape, target)
        y = _sum_leading(y, len(summed)) if _blas_summable(xp, y, summed) else y.sum(axis=summed)
        y = y.reshape(target)
    if mean and y.size:
        y = y / y.dtype.type(size // y.size)
    return y


@functools.lru_cache(maxsize=256)
def _summed_axes(shape, target):
    """The axes along which ``target`` was broadcast up to ``shape``."""
    lead = len(shape) - len(target)
    return tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(target) if d == 1 and shape[lead + i] != 1
    )


def _broadcast_to_grad(op, g):
    return [reduce_to(g, op.inputs[0], op.attrs["axes"], op.attrs.get("mean", False)), None]


def _reduce_to_grad(op, g):
    return [BroadcastTo_(g, op.inputs[0], op.attrs["axes"], op.attrs.get("mean", False)), None]


# Each is the other's gradient; with `mean`, both divide by the broadcast
# factor, which makes the pair the gradient of reduce_mean and its adjoint.
BroadcastTo = Primitive("BroadcastTo", _to_shape_infer, _broadcast_to_kernel, _broadcast_to_grad)
ReduceTo = Primitive("ReduceTo", _to_shape_infer, _reduce_to_kernel, _reduce_to_grad)


def BroadcastTo_(g, like, axes=(), mean=False):  # noqa: N802 - mirrors the primitive it applies
    return apply(BroadcastTo, g, shape_of(like), axes=tuple(axes), mean=mean)


def reduce_to(g, like, axes=(), mean=False):
    """Sum (or average) ``g`` down to ``like``'s shape: the gradient of a broadcast."""
    if not axes and not mean and g._dims == like._dims and like.shape.is_fully_defined():
        return g
    return apply(ReduceTo, g, shape_of(like), axes=tuple(axes), mean=mean)


def broadcast_back(g, x, axis, keepdims, mean=False):
    """Broadcast a reduction's gradient ``g`` back to the reduced input ``x``
    (divided by the number of reduced elements when ``mean``)."""
    if keepdims or axis is None:
        return BroadcastTo_(g, x, (), mean)  # a kept dim, or a scalar, broadcasts as it is
    return BroadcastTo_(g, x, axis, mean)


def _fill_infer(inputs):
    dims, value = inputs
    return static_shape_value(dims), value.dtype


Fill = Primitive(
    "Fill",
    _fill_infer,
    lambda xp, s, v: xp.full(tuple(int(d) for d in s), v, dtype=v.dtype),
    lambda op, g: [None, reduce_to(g, op.inputs[1])],  # the sum of g: the value is a scalar
)


SMALL = 1000  # TF1 writes a filled tensor of fewer elements as one Const (its _constant_if_small)


def filled(dims, value, dtype, name):
    """``value`` in the static shape ``dims``, as TF1's ``zeros`` / ``ones`` build it inside
    their name scope ``name`` (a scope's ``"x/"``): one Const when small, else a Fill."""
    dtype = dtypes.as_dtype(dtype)
    if math.prod(dims) < SMALL:
        return constant(fill_value(value, dtype), dtype=dtype, shape=list(dims), name=name)
    wide = any(d >= 2**31 for d in dims)  # TF1's shape tensor is int64 then
    shape_tensor = constant(list(dims), dtype=dtypes.int64 if wide else dtypes.int32, name="shape_as_tensor")
    return fill_with(shape_tensor, value, dtype, name)


def fill_with(shape_tensor, value, dtype, name):
    """TF1's ``value`` of ``dtype`` (see :func:`fill_value`) in the shape ``shape_tensor`` holds."""
    dtype = dtypes.as_dtype(dtype)
    return apply(Fill, shape_tensor, constant(fill_value(value, dtype), dtype=dtype), name=name)


def fill_value(value, dtype):
    """TF1's zero or one of ``dtype``: False / True for bool, "" for strings (which have no one)."""
    if dtype is dtypes.bool:
        return bool(value)
    if dtype is dtypes.string:
        if value:
            raise TypeError("strings have no one: ones of a string dtype")
        return ""
    return value


def _like(value, x, dtype, name, optimize):
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    if dtype is dtypes.string and value:  # TF1: zeros_like of strings is empty strings
        raise TypeError(f"ones_like: {x.name} is a string tensor; strings have no one")
    known = optimize and x.shape.is_fully_defined()  # then no edge from x: its shape is a constant
    if known and value == 0:
        return filled(x._dims, value, dtype, name)
    if value == 0 and dtype is x.dtype:
        return apply(ZerosLike, x, name=name)
    if known:  # TF1's ones_like: a Fill of the shape as a constant
        with name_scope("Shape"):
            dims = constant(list(x._dims), dtype=dtypes.int32, name="shape_as_tensor")
    else:
        dims = shape(x, name="Shape")
    return fill_with(dims, value, dtype, name)


# Reads only its input's shape and dtype; no gradient, as in TF1.
ZerosLike = Primitive(
    "ZerosLike", same, lambda xp, x: xp.zeros_like(x), shape_only=(0,), grad=NOT_DIFFERENTIABLE
)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape of ``tensor`` (a Const when its shape is known, as TF1's)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        return _like(0, tensor, dtype, scope, optimize)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape of ``tensor`` (a Const when its shape is known, as TF1's)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        return _like(1, tensor, dtype, scope, optimize)
