"""Table-driven tests over the op registry: inference vs kernel, values vs numpy.

Each :class:`Case` builds one op through the public API from placeholders fed
with random numpy inputs, and names the primitive it is about. Every case is
built twice in one graph — with fully known input shapes and with a ``None``
leading (batch) dimension — and run once. For each output the dtype and the
statically known dimensions must equal the kernel's result, and the values
must equal the numpy reference. ``test_table_covers_every_primitive`` fails
when a primitive with a kernel has neither a case nor a stated exemption.

Random and variable ops have their own tests below the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework.apply import apply
from daskflow.framework.primitive import PRIMITIVES
from daskflow.ops import (
    check_ops,
    gradient_helper_ops,
    linalg_ops,
    math_ops,
    rnn_ops,
    script_ops,
    segment_ops,
    segment_reduce_ops,
    sort_ops,
    training_ops,
)
from daskflow.ops.replica_ops import aggregate_replicas
from daskflow.ops.tensor_array_ops import TensorArray

rng = np.random.default_rng(0)
F64, F32, I32, I64 = np.float64, np.float32, np.int32, np.int64


def R(*shape, dtype=F64):
    """Standard normal values."""
    return rng.standard_normal(shape).astype(dtype)


def P(*shape, dtype=F64):
    """Positive values away from zero, for log, sqrt, division."""
    return rng.uniform(0.5, 2.0, shape).astype(dtype)


def Int(*shape, lo=-5, hi=6, dtype=I32):
    return rng.integers(lo, hi, shape).astype(dtype)


def NZ(*shape, dtype=I32):
    """Nonzero integers, for integer division."""
    v = Int(*shape, lo=1, hi=5, dtype=dtype)
    return v * np.where(rng.random(shape) < 0.5, -1, 1).astype(dtype)


def Bool(*shape):
    return rng.random(shape) < 0.5


def _adam_reference(w, m, v, g, b1, b2, lr, eps):
    m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
    return [w - lr * m / (np.sqrt(v) + eps), m, v]


@dataclass
class Case:
    id: str
    op: str | None  # the primitive this case is about (None: a composite op)
    build: Callable  # (*input tensors) -> Tensor or list of Tensors
    inputs: list  # numpy arrays, fed through placeholders of their dtype and shape
    ref: Callable  # (*input arrays) -> array or list of arrays
    batch: tuple | str | None = (
        None  # inputs given a None leading dim (default: rank >= 1); "rank": unknown rank
    )
    static: bool = True  # whether inference knows the whole shape when the inputs' shapes are known


# -- numpy references for convolution and pooling (NHWC, HWIO; TF's geometry) ----------------


def _geometry(size, k, s, padding):
    """(output size, padding before, padding after) for one spatial axis."""
    if padding == "VALID":
        return (size - k) // s + 1, 0, 0
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return out, total // 2, total - total // 2


def _windows(x, ksize, strides, padding, fill):
    """Padded input and a function giving the window at output pixel (a, b)."""
    (oh, t, bo), (ow, left, right) = (
        _geometry(x.shape[i + 1], ksize[i], strides[i], padding) for i in (0, 1)
    )
    xp = np.pad(x, [(0, 0), (t, bo), (left, right), (0, 0)], constant_values=fill)

    def window(a, b):
        return xp[
            :, a * strides[0] : a * strides[0] + ksize[0], b * strides[1] : b * strides[1] + ksize[1], :
        ]

    return oh, ow, window


def np_conv2d(x, w, strides, padding):
    oh, ow, window = _windows(x, w.shape[:2], strides, padding, 0.0)
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]), x.dtype)
    for a in range(oh):
        for b in range(ow):
            out[:, a, b] = np.einsum("nijc,ijco->no", window(a, b), w)
    return out


def np_max_pool(x, ksize, strides, padding):
    oh, ow, window = _windows(x, ksize, strides, padding, -np.inf)
    return np.stack([np.stack([window(a, b).max(axis=(1, 2)) for b in range(ow)], 1) for a in range(oh)], 1)


def np_avg_pool(x, ksize, strides, padding):
    # SAME windows average the real pixels only, as TF does.
    oh, ow, sums = _windows(x, ksize, strides, padding, 0.0)
    _, _, counts = _windows(np.ones_like(x), ksize, strides, padding, 0.0)
    return np.stack(
        [
            np.stack([sums(a, b).sum(axis=(1, 2)) / counts(a, b).sum(axis=(1, 2)) for b in range(ow)], 1)
            for a in range(oh)
        ],
        1,
    )


def np_log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def np_softmax(x, axis=-1):
    return np.exp(np_log_softmax(x, axis))


def _gather_index():
    return np.array([2, 0, 2, 1], I32)  # a repeated index on purpose


# -- numpy references for the array, segment, space and counting ops, by loops --------------------


def np_roll(x, shifts, axes):
    """``x`` rolled by slicing and concatenating, one axis at a time."""
    for s, a in zip(shifts, axes):
        n = x.shape[a]
        s = int(s) % n
        x = np.concatenate([np.take(x, range(n - s, n), a), np.take(x, range(n - s), a)], a)
    return x


def np_repeat(x, repeats, axis):
    counts = np.broadcast_to(repeats, (x.shape[axis],))
    return np.concatenate([np.take(x, [i] * int(r), axis) for i, r in enumerate(counts)], axis)


def np_tile(x, multiples):
    for a, m in enumerate(multiples):
        x = np.concatenate([x] * int(m), a)
    return x


def np_scatter_nd(tensor, indices, updates, combine):
    out = tensor.copy()
    for k in np.ndindex(indices.shape[:-1]):
        at = tuple(indices[k])
        out[at] = combine(out[at], updates[k])
    return out


def np_segments(data, ids, num, combine, empty):
    out = np.full((num,) + data.shape[1:], empty, data.dtype)
    seen = [False] * num
    for row, k in zip(data, ids):
        if k >= 0:
            out[k] = row if not seen[k] else combine(out[k], row)
            seen[k] = True
    return out


def np_space_to_depth(x, b):
    n, h, w, c = x.shape
    out = np.zeros((n, h // b, w // b, b * b * c), x.dtype)
    for i, j, bi, bj in np.ndindex(h // b, w // b, b, b):
        out[:, i, j, (bi * b + bj) * c : (bi * b + bj + 1) * c] = x[:, i * b + bi, j * b + bj]
    return out


def np_depth_to_space(x, b):
    n, h, w, c = x.shape
    d = c // (b * b)
    out = np.zeros((n, h * b, w * b, d), x.dtype)
    for i, j, bi, bj in np.ndindex(h, w, b, b):
        out[:, i * b + bi, j * b + bj] = x[:, i, j, (bi * b + bj) * d : (bi * b + bj + 1) * d]
    return out


def np_space_to_batch(x, block, pads):
    """TF's layout: output batch ``(bi * block[1] + bj) * n + k`` holds the pixels at offset (bi, bj)."""
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    n, h, w = x.shape[:3]
    b0, b1 = block
    out = np.zeros((n * b0 * b1, h // b0, w // b1) + x.shape[3:], x.dtype)
    for bi, bj, k in np.ndindex(b0, b1, n):
        out[(bi * b1 + bj) * n + k] = x[k, bi::b0, bj::b1]
    return out


def np_batch_to_space(x, block, crops):
    b0, b1 = block
    n = x.shape[0] // (b0 * b1)
    h, w = x.shape[1] * b0, x.shape[2] * b1
    out = np.zeros((n, h, w) + x.shape[3:], x.dtype)
    for bi, bj, k in np.ndindex(b0, b1, n):
        out[k, bi::b0, bj::b1] = x[(bi * b1 + bj) * n + k]
    (t, bo), (le, ri) = crops
    return out[:, t : h - bo, le : w - ri]


def np_patches(x, ksizes, strides, rates, padding):
    """Each patch's entries in (row, column, channel) order, zeros outside the image."""
    n, h, w, c = x.shape
    kh, kw = ksizes
    (oh, top, _), (ow, left, _) = (
        _geometry(size, k + (k - 1) * (r - 1), s, padding)
        for size, k, s, r in ((h, kh, strides[0], rates[0]), (w, kw, strides[1], rates[1]))
    )
    out = np.zeros((n, oh, ow, kh * kw * c), x.dtype)
    for a, b, i, j in np.ndindex(oh, ow, kh, kw):
        row, col = a * strides[0] - top + i * rates[0], b * strides[1] - left + j * rates[1]
        if 0 <= row < h and 0 <= col < w:
            out[:, a, b, (i * kw + j) * c : (i * kw + j + 1) * c] = x[:, row, col]
    return out


def np_histogram_bin(v, lo, hi, nbins):
    """The bin of one value: the edges compared one by one, outliers in the end bins."""
    edges = [lo + (hi - lo) * k / nbins for k in range(1, nbins)]
    return sum(v >= e for e in edges)


def np_rint(x):
    """Round half to even, from floor."""
    f = np.floor(x)
    d = x - f
    return np.where(d > 0.5, f + 1, np.where(d < 0.5, f, f + f % 2))


def np_atan2(y, x):
    """The angle from arctan(y / x), moved into the right quadrant."""
    base = np.arctan(y / x)
    return np.where(x > 0, base, base + np.where(y >= 0, np.pi, -np.pi))


def _qr_properties(full_matrices):
    """A qr case's outputs: q @ r, q's Gram matrix, r's part below the diagonal, q and r scaled by 0."""

    def build(x):
        q, r = tf.qr(x, full_matrices=full_matrices)
        return [
            tf.matmul(q, r),
            tf.matmul(q, q, transpose_a=True),
            r - tf.matrix_band_part(r, 0, -1),
            q * 0.0,
            r * 0.0,
        ]

    def ref(x):
        *batch, m, n = x.shape
        cols = m if full_matrices else min(m, n)
        zeros = np.zeros
        return [
            x,
            np.broadcast_to(np.eye(cols), (*batch, cols, cols)),
            zeros((*batch, cols, n)),
            zeros((*batch, m, cols)),
            zeros((*batch, cols, n)),
        ]

    return build, ref


# -- the table -------------------------------------------------------------------------------


def _np_sigmoid(z):
    return 1 / (1 + np.exp(-z))


def np_lstm(x, c, h, w, b, forget_bias, peepholes=None, clip=None):
    """TF1's LSTMCell step: gates i, j, f, o of ``[x, h] @ w + b``; returns (c', h')."""
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ w + b, 4, axis=1)
    wi, wf, wo = peepholes if peepholes is not None else (0, 0, 0)
    c_new = _np_sigmoid(f + forget_bias + wf * c) * c + _np_sigmoid(i + wi * c) * np.tanh(j)
    if clip is not None:
        c_new = np.clip(c_new, -clip, clip)
    return [c_new, np.tanh(c_new) * _np_sigmoid(o + wo * c_new)]


def np_gru(x, h, w_ru, w_c, b_ru, b_c):
    """TF1's GRUCell step."""
    r, u = np.split(_np_sigmoid(np.concatenate([x, h], 1) @ w_ru + b_ru), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ w_c + b_c)
    return u * h + (1 - u) * c


def _hvd():
    """``daskflow.horovod``, initialized: alone, this process is the job's one rank."""
    import daskflow.horovod as hvd

    hvd.init()
    return hvd


def _early_reduce(x):
    """A reduction started and awaited as two ops (hvd.DistributedOptimizer's buckets)."""
    from daskflow.ops.collective_ops import grouped_allreduce_early

    _hvd()
    return grouped_allreduce_early([x])[0]


CASES = [
    # constants and pass-throughs
    Case(
        "const",
        "Const",
        lambda: tf.constant([[1.5, 2.0], [3.0, 4.0]], dtype=tf.float64),
        [],
        lambda: np.array([[1.5, 2], [3, 4]]),
    ),
    Case("const_f32_default", "Const", lambda: tf.constant([1.0, 2.0]), [], lambda: np.array([1, 2], F32)),
    Case("identity", "Identity", tf.identity, [R(3, 2)], lambda x: x),
    Case("check_numerics", "CheckNumerics", lambda x: tf.check_numerics(x, "x"), [R(3, 2)], lambda x: x),
    # Not replicated (embedded), the mean over replicas is the value itself.
    Case(
        "aggregate_replicas",
        "AggregateReplicas",
        lambda x: aggregate_replicas(x, 1, 1),
        [R(3, 2)],
        lambda x: x,
    ),
    # One rank (the test process alone): each collective gives the rank's own value.
    Case("horovod_allreduce", "HorovodAllreduce", lambda x: _hvd().allreduce(x), [R(3, 2)], lambda x: x),
    Case(
        "horovod_allreduce_int_sum",
        "HorovodAllreduce",
        lambda x: _hvd().allreduce(x, op=_hvd().Sum),
        [np.array([[1, -7], [3, 4]], np.int32)],
        lambda x: x,
    ),
    Case(
        "horovod_grouped_allreduce",
        "HorovodGroupedAllreduce",
        lambda x: _hvd().grouped_allreduce([x])[0],
        [R(2, 3)],
        lambda x: x,
    ),
    # Horovod's shape function leaves the gathered first dimension unknown (ranks' rows differ).
    Case(
        "horovod_allgather",
        "HorovodAllgather",
        lambda x: _hvd().allgather(x),
        [R(3, 2)],
        lambda x: x,
        static=False,
    ),
    Case("horovod_broadcast", "HorovodBroadcast", lambda x: _hvd().broadcast(x, 0), [R(3, 2)], lambda x: x),
    Case("horovod_join", "HorovodJoin", lambda: _hvd().join(), [], lambda: np.int32(0)),
    *[
        Case(
            f"horovod_{kind.lower()}", f"HorovodGroupedAllreduce{kind}", _early_reduce, [R(3, 2)], lambda x: x
        )
        for kind in ("Start", "Wait")
    ],
    Case("stop_gradient", "StopGradient", tf.stop_gradient, [R(3, 2)], lambda x: x),
    Case(
        "placeholder_with_default",
        "PlaceholderWithDefault",
        lambda x: tf.placeholder_with_default(x, [None, 2]),
        [R(3, 2)],
        lambda x: x,
        static=False,
    ),
    # elementwise binary, with broadcasting
    Case("add_bcast", "Add", tf.add, [R(3, 1), R(4)], np.add),
    Case("add_int32", "Add", lambda x, y: x + y, [Int(2, 3), Int(2, 3)], np.add),
    Case("add_python_scalar", "Add", lambda x: 2.0 + x, [R(2, 3, dtype=F32)], lambda x: 2 + x),
    Case("sub_bcast", "Sub", lambda x, y: x - y, [R(2, 3), R(3)], np.subtract),
    Case("mul_scalar_matrix", "Mul", tf.multiply, [R(), R(2, 3)], np.multiply),
    Case("mul_rank3_bcast", "Mul", lambda x, y: x * y, [R(2, 1, 3), R(4, 1)], np.multiply),
    Case("div", "RealDiv", lambda x, y: x / y, [R(2, 3), P(2, 3)], np.divide),
    Case("div_f32_scalar", "RealDiv", lambda x: x / 4, [R(2, 3, dtype=F32)], lambda x: x / np.float32(4)),
    Case("div_int32_gives_float64", "RealDiv", tf.truediv, [Int(2, 3), NZ(2, 3)], np.true_divide),
    Case("floordiv_int", "FloorDiv", lambda x, y: x // y, [Int(2, 3), NZ(3)], np.floor_divide),
    Case("floordiv_float", "FloorDiv", tf.floordiv, [R(2, 3), P(2, 3)], np.floor_divide),
    Case("floormod_int", "FloorMod", lambda x, y: x % y, [Int(2, 3), NZ(2, 3)], np.mod),
    Case("floormod_float", "FloorMod", tf.floormod, [R(2, 3), P(3)], np.mod),
    Case("pow", "Pow", tf.pow, [P(2, 3), R(3)], np.power),
    Case("pow_operator_int", "Pow", lambda x: x**2, [Int(2, 3)], lambda x: x**2),
    Case("maximum", "Maximum", tf.maximum, [R(2, 3), R(3)], np.maximum),
    Case("minimum", "Minimum", tf.minimum, [R(2, 3), R(2, 1)], np.minimum),
    Case("maximum_int", "Maximum", tf.maximum, [Int(4), Int(4)], np.maximum),
    # elementwise unary
    Case("neg", "Neg", lambda x: -x, [R(2, 3)], np.negative),
    Case("neg_int", "Neg", tf.negative, [Int(3)], np.negative),
    Case("abs", "Abs", abs, [R(2, 3)], np.abs),
    Case("abs_int", "Abs", tf.abs, [Int(5)], np.abs),
    Case("sign", "Sign", tf.sign, [np.array([-2.0, 0.0, 3.0])], np.sign),
    Case("square", "Square", tf.square, [R(2, 3)], np.square),
    Case("square_int", "Square", tf.square, [Int(4)], np.square),
    Case("exp", "Exp", tf.exp, [R(2, 3)], np.exp),
    Case("exp_f32", "Exp", tf.exp, [R(2, 3, dtype=F32)], np.exp),
    Case("log", "Log", tf.log, [P(2, 3)], np.log),
    Case("sqrt", "Sqrt", tf.sqrt, [P(2, 3)], np.sqrt),
    Case("tanh", "Tanh", tf.tanh, [R(2, 3)], np.tanh),
    Case("cos", "Cos", math_ops.cos, [R(2, 3) * 3], np.cos),
    Case("cos_f32", "Cos", math_ops.cos, [R(2, 3, dtype=F32) * 3], np.cos),
    Case("sin", "Sin", math_ops.sin, [R(2, 3) * 3], np.sin),
    Case("floor", "Floor", tf.floor, [R(2, 3) * 3], np.floor),
    Case("ceil", "Ceil", tf.ceil, [R(2, 3) * 3], np.ceil),
    Case("round_half_to_even", "Round", tf.round, [np.array([-1.5, -0.5, 0.5, 1.5, 2.5, 0.2])], np.round),
    Case(
        "sigmoid",
        "Sigmoid",
        tf.sigmoid,
        [np.array([-800.0, -3.0, 0.0, 2.0, 800.0])],
        lambda x: np.exp(-np.logaddexp(0, -x)),
    ),
    Case("relu", "Relu", tf.nn.relu, [R(2, 3)], lambda x: np.maximum(x, 0)),
    Case("relu_int", "Relu", tf.nn.relu, [Int(5)], lambda x: np.maximum(x, 0)),
    # The remapping rewrite runs the two as one _FusedBiasAddRelu kernel.
    Case(
        "bias_add_relu",
        "Relu",
        lambda x, b: tf.nn.relu(tf.nn.bias_add(x, b)),
        [R(4, 3), R(3)],
        lambda x, b: np.maximum(x + b, 0),
    ),
    # The remapping rewrite runs the four as one _FusedElementwise kernel.
    Case(
        "elementwise_chain",
        "Mul",
        lambda x, y: tf.tanh(x * y + 1.0) * y,
        [R(4, 3), R(3)],
        lambda x, y: np.tanh(x * y + 1.0) * y,
    ),
    # comparisons and logic
    Case("equal", "Equal", tf.equal, [Int(2, 3, lo=0, hi=2), Int(3, lo=0, hi=2)], np.equal),
    Case("not_equal", "NotEqual", tf.not_equal, [Int(2, 3, lo=0, hi=2), Int(2, 3, lo=0, hi=2)], np.not_equal),
    Case("less", "Less", lambda x, y: x < y, [R(2, 3), R(3)], np.less),
    Case("less_equal", "LessEqual", lambda x, y: x <= y, [Int(2, 3), Int(2, 1)], np.less_equal),
    Case("greater", "Greater", lambda x: x > 0.0, [R(2, 3)], lambda x: x > 0),
    Case("greater_equal", "GreaterEqual", tf.greater_equal, [Int(4), Int(4)], np.greater_equal),
    Case("logical_and", "LogicalAnd", lambda a, b: a & b, [Bool(2, 3), Bool(3)], np.logical_and),
    Case("logical_or", "LogicalOr", tf.logical_or, [Bool(2, 3), Bool(2, 3)], np.logical_or),
    Case("logical_not", "LogicalNot", lambda a: ~a, [Bool(2, 3)], np.logical_not),
    # cast and select
    Case(
        "cast_float_to_int_truncates",
        "Cast",
        lambda x: tf.cast(x, tf.int32),
        [R(2, 3) * 4],
        lambda x: x.astype(I32),
    ),
    Case("cast_int_to_f32", "Cast", lambda x: tf.cast(x, tf.float32), [Int(2, 3)], lambda x: x.astype(F32)),
    Case("cast_bool_to_f64", "Cast", lambda x: tf.cast(x, tf.float64), [Bool(4)], lambda x: x.astype(F64)),
    Case("where_select_bcast", "Select", tf.where, [Bool(3, 1), R(3, 4), R(4)], np.where),
    Case(
        "where_python_scalar",
        "Select",
        lambda c, x: tf.where(c, x, 0.0),
        [Bool(2, 3), R(2, 3)],
        lambda c, x: np.where(c, x, 0),
    ),
    Case("where_indices", "Where", tf.where, [Bool(3, 4)], np.argwhere, static=False),
    # matmul
    Case("matmul", "MatMul", tf.matmul, [R(2, 3), R(3, 4)], np.matmul),
    Case(
        "matmul_f32_operator",
        "MatMul",
        lambda a, b: a @ b,
        [R(2, 3, dtype=F32), R(3, 2, dtype=F32)],
        np.matmul,
    ),
    Case(
        "matmul_transpose_a",
        "MatMul",
        lambda a, b: tf.matmul(a, b, transpose_a=True),
        [R(3, 2), R(3, 4)],
        lambda a, b: a.T @ b,
        batch=(1,),
    ),
    Case(
        "matmul_transpose_b",
        "MatMul",
        lambda a, b: tf.matmul(a, b, transpose_b=True),
        [R(2, 3), R(4, 3)],
        lambda a, b: a @ b.T,
    ),
    Case(
        "matmul_transpose_both",
        "MatMul",
        lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
        [R(3, 2), R(4, 3)],
        lambda a, b: a.T @ b.T,
    ),
    Case("matmul_batched", "MatMul", tf.matmul, [R(2, 3, 4), R(2, 4, 5)], np.matmul),
    Case("matmul_broadcast_batch", "MatMul", tf.matmul, [R(3, 4), R(2, 4, 5)], np.matmul),
    # reductions
    Case("reduce_sum_all", "Sum", tf.reduce_sum, [R(2, 3)], np.sum),
    Case(
        "reduce_sum_axis_keepdims",
        "Sum",
        lambda x: tf.reduce_sum(x, axis=1, keepdims=True),
        [R(2, 3)],
        lambda x: x.sum(1, keepdims=True),
    ),
    Case(
        "reduce_sum_neg_axes",
        "Sum",
        lambda x: tf.reduce_sum(x, axis=[0, -1]),
        [R(2, 3, 4)],
        lambda x: x.sum((0, 2)),
    ),
    Case(
        "reduce_sum_reduction_indices",
        "Sum",
        lambda x: tf.reduce_sum(x, reduction_indices=[0], keep_dims=True),
        [R(2, 3)],
        lambda x: x.sum(0, keepdims=True),
    ),
    Case(
        "reduce_sum_numpy_axis", "Sum", lambda x: tf.reduce_sum(x, np.int64(1)), [R(2, 3)], lambda x: x.sum(1)
    ),
    Case("reduce_sum_int", "Sum", lambda x: tf.reduce_sum(x, 0), [Int(3, 2)], lambda x: x.sum(0).astype(I32)),
    Case(
        "reduce_over_fed_axes",
        "ReduceOver",
        lambda x, axes: apply(math_ops.ReduceOver, x, axes, method="sum", keepdims=True),
        [R(2, 3, 4), np.array([0, -1], I32)],
        lambda x, axes: x.sum((0, 2), keepdims=True),
        static=False,
    ),
    Case(
        "reduce_over_mean",
        "ReduceOver",
        lambda x, axes: apply(math_ops.ReduceOver, x, axes, method="mean", keepdims=False),
        [R(2, 3), np.array([1], I32)],
        lambda x, axes: x.mean(1),
        static=False,
    ),
    Case(
        "broadcast_gradient_args",
        "BroadcastGradientArgs",
        lambda a, b: list(apply(gradient_helper_ops.BroadcastGradientArgs, a, b)),
        [np.array([5, 1, 3], I32), np.array([4, 1], I32)],
        lambda a, b: [np.array([1], I32), np.array([0, 2], I32)],
        static=False,
    ),
    Case(
        "concat_offset",
        "ConcatOffset",
        lambda axis, a, b: list(apply(gradient_helper_ops.ConcatOffset, axis, a, b)),
        [np.array(1, I32), np.array([2, 3, 4], I32), np.array([2, 5, 4], I32)],
        lambda axis, a, b: [np.array([0, 0, 0], I32), np.array([0, 3, 0], I32)],
        static=False,
    ),
    Case("reduce_mean", "Mean", lambda x: tf.reduce_mean(x, 0), [R(3, 4)], lambda x: x.mean(0)),
    Case(
        "reduce_mean_f32_keepdims",
        "Mean",
        lambda x: tf.reduce_mean(x, keepdims=True),
        [R(3, 4, dtype=F32)],
        lambda x: x.mean(keepdims=True),
    ),
    Case(
        "reduce_mean_int_truncates",
        "Mean",
        lambda x: tf.reduce_mean(x, 1),
        [Int(3, 4)],
        lambda x: np.trunc(x.mean(1)).astype(I32),
    ),
    Case(
        "reduce_prod_int",
        "Prod",
        lambda x: tf.reduce_prod(x, 0),
        [Int(3, 4)],
        lambda x: x.prod(0).astype(I32),
    ),
    Case("reduce_max", "Max", lambda x: tf.reduce_max(x, -1), [R(3, 4)], lambda x: x.max(-1)),
    Case(
        "reduce_min",
        "Min",
        lambda x: tf.reduce_min(x, [0, 1], keepdims=True),
        [R(3, 4, 2)],
        lambda x: x.min((0, 1), keepdims=True),
    ),
    Case("reduce_prod", "Prod", lambda x: tf.reduce_prod(x, 1), [R(3, 4)], lambda x: x.prod(1)),
    Case("reduce_all", "All", lambda x: tf.reduce_all(x, 1), [Bool(3, 2)], lambda x: x.all(1)),
    Case("reduce_any", "Any", tf.reduce_any, [Bool(3, 2)], np.any),
    Case("argmax", "ArgMax", lambda x: tf.argmax(x, 1), [R(3, 4)], lambda x: x.argmax(1)),
    Case(
        "argmax_int32_out",
        "ArgMax",
        lambda x: tf.argmax(x, axis=0, output_type=tf.int32),
        [R(3, 4)],
        lambda x: x.argmax(0).astype(I32),
    ),
    Case("argmin", "ArgMin", lambda x: tf.argmin(x, -1), [R(3, 4)], lambda x: x.argmin(-1)),
    Case(
        "add_n",
        "AddN",
        lambda a, b, c: tf.add_n([a, b, c]),
        [R(2, 3), R(2, 3), R(2, 3)],
        lambda a, b, c: a + b + c,
    ),
    # shapes
    Case("shape", "Shape", tf.shape, [R(2, 3)], lambda x: np.array(x.shape, I32)),
    Case(
        "shape_int64",
        "Shape",
        lambda x: tf.shape(x, out_type=tf.int64),
        [R(2, 3)],
        lambda x: np.array(x.shape, I64),
    ),
    Case("size", "Size", tf.size, [R(2, 3)], lambda x: np.array(x.size, I32)),
    Case("rank", "Rank", tf.rank, [R(2, 3)], lambda x: np.array(x.ndim, I32), batch="rank"),
    # reshaping
    Case(
        "reshape_minus_one",
        "Reshape",
        lambda x: tf.reshape(x, [-1, 3]),
        [R(4, 6)],
        lambda x: x.reshape(-1, 3),
    ),
    Case(
        "reshape_to_shape_of",
        "Reshape",
        lambda x, y: tf.reshape(x, tf.shape(y)),
        [R(2, 6), R(4, 3)],
        lambda x, y: x.reshape(y.shape),
        batch=(1,),
    ),
    Case("reshape_to_scalar", "Reshape", lambda x: tf.reshape(x, []), [R(1, 1)], lambda x: x.reshape(())),
    Case(
        "transpose_perm",
        "Transpose",
        lambda x: tf.transpose(x, [1, 0, 2]),
        [R(2, 3, 4)],
        lambda x: x.transpose(1, 0, 2),
    ),
    Case("transpose_default", "Transpose", tf.transpose, [R(2, 3, 4)], np.transpose),
    Case(
        "expand_dims_last", "ExpandDims", lambda x: tf.expand_dims(x, -1), [R(2, 3)], lambda x: x[..., None]
    ),
    Case("expand_dims_middle", "ExpandDims", lambda x: tf.expand_dims(x, 1), [R(2, 3)], lambda x: x[:, None]),
    Case("squeeze_axis", "Squeeze", lambda x: tf.squeeze(x, [1]), [R(2, 1, 3, 1)], lambda x: x.squeeze(1)),
    Case("squeeze_all", "Squeeze", tf.squeeze, [R(2, 1, 3, 1)], np.squeeze, batch=()),
    Case(
        "broadcast_to",
        "BroadcastTo",
        lambda x: tf.broadcast_to(x, [2, 3, 4]),
        [R(3, 1)],
        lambda x: np.broadcast_to(x, (2, 3, 4)),
    ),
    # joining and splitting
    Case(
        "concat",
        "ConcatV2",
        lambda a, b: tf.concat([a, b], axis=1),
        [R(2, 3), R(2, 1)],
        lambda a, b: np.concatenate([a, b], 1),
    ),
    Case(
        "concat_neg_axis",
        "ConcatV2",
        lambda a, b: tf.concat([a, b], -1),
        [R(2, 3), R(2, 2)],
        lambda a, b: np.concatenate([a, b], -1),
    ),
    Case(
        "stack",
        "ConcatV2",
        lambda a, b: tf.stack([a, b], axis=1),
        [R(2, 3), R(2, 3)],
        lambda a, b: np.stack([a, b], 1),
    ),
    Case("split_even", "SplitV", lambda x: tf.split(x, 3, axis=1), [R(2, 6)], lambda x: np.split(x, 3, 1)),
    Case("split_one_part", "SplitV", lambda x: tf.split(x, [3], axis=0), [R(3, 2)], lambda x: [x], batch=()),
    Case(
        "split_sizes",
        "SplitV",
        lambda x: tf.split(x, [1, 2, 3], axis=1),
        [R(2, 6)],
        lambda x: np.split(x, [1, 3], 1),
    ),
    Case(
        "split_minus_one",
        "SplitV",
        lambda x: tf.split(x, [2, -1], axis=1),
        [R(2, 6)],
        lambda x: np.split(x, [2], 1),
    ),
    Case(
        "split_dynamic_axis",
        "SplitV",
        lambda x: tf.split(x, 2, axis=0),
        [R(4, 3)],
        lambda x: np.split(x, 2, 0),
    ),
    Case(
        "unstack", "SplitV", lambda x: tf.unstack(x, axis=1), [R(2, 3)], lambda x: list(np.moveaxis(x, 1, 0))
    ),
    # slicing and gathering
    Case("getitem_slices", "StridedSlice", lambda x: x[1:, ::2], [R(3, 5)], lambda x: x[1:, ::2]),
    Case("getitem_int_ellipsis", "StridedSlice", lambda x: x[..., 1], [R(2, 3, 4)], lambda x: x[..., 1]),
    Case("getitem_newaxis_neg", "StridedSlice", lambda x: x[None, -1], [R(3, 4)], lambda x: x[None, -1]),
    Case("getitem_reverse", "StridedSlice", lambda x: x[::-1, 2:0:-1], [R(3, 4)], lambda x: x[::-1, 2:0:-1]),
    Case("slice", "Slice", lambda x: tf.slice(x, [0, 1], [2, -1]), [R(3, 4)], lambda x: x[0:2, 1:]),
    Case(
        "gather_repeated",
        "GatherV2",
        lambda p, i: tf.gather(p, i),
        [R(3, 2), _gather_index()],
        lambda p, i: p[i],
    ),
    Case(
        "gather_axis1_2d_idx",
        "GatherV2",
        lambda p, i: tf.gather(p, i, axis=1),
        [R(2, 3), np.array([[0, 2], [1, 1]], I64)],
        lambda p, i: np.take(p, i, 1),
    ),
    # filling
    Case("fill", "Fill", lambda v: tf.fill([2, 3], v), [R()], lambda v: np.full((2, 3), v)),
    # A shape known only as a tensor: a Fill (a small static one is a Const, as in TF1).
    Case("zeros", "Fill", lambda: tf.zeros(tf.constant([2, 3]), tf.int32), [], lambda: np.zeros((2, 3), I32)),
    Case("ones_like", "Fill", tf.ones_like, [R(2, 3)], np.ones_like),
    Case("zeros_like", "ZerosLike", tf.zeros_like, [R(2, 3)], np.zeros_like),
    Case(
        "zeros_like_dtype",
        "Fill",
        lambda x: tf.zeros_like(x, dtype=tf.int64),
        [R(2, 3)],
        lambda x: np.zeros(x.shape, I64),
    ),
    Case(
        "one_hot",
        "OneHot",
        lambda i: tf.one_hot(i, 4),
        [np.array([[0, 3], [1, 1]], I32)],
        lambda i: np.eye(4, dtype=F32)[i],
    ),
    Case(
        "one_hot_on_off",
        "OneHot",
        lambda i: tf.one_hot(i, 3, 5.0, -1.0, dtype=tf.float64),
        [np.array([2, 0, 1], I64)],
        lambda i: np.eye(3)[i] * 6 - 1,
    ),
    Case("tile", "Tile", lambda x: tf.tile(x, [2, 3]), [R(2, 3)], lambda x: np.tile(x, (2, 3))),
    Case("reverse", "ReverseV2", lambda x: tf.reverse(x, [0, -1]), [R(2, 3)], lambda x: x[::-1, ::-1]),
    Case("cumsum", "Cumsum", lambda x: tf.cumsum(x, 1), [R(2, 3)], lambda x: np.cumsum(x, 1)),
    Case("cumprod", "Cumprod", lambda x: tf.cumprod(x, 1), [R(2, 3)], lambda x: np.cumprod(x, 1)),
    Case(
        "cumprod_exclusive_reverse",
        "Cumprod",
        lambda x: tf.cumprod(x, 1, exclusive=True, reverse=True),
        [R(2, 3)],
        lambda x: np.stack([x[:, 1] * x[:, 2], x[:, 2], np.ones(2)], 1),
    ),
    Case(
        "cumsum_exclusive_reverse",
        "Cumsum",
        lambda x: tf.cumsum(x, 0, exclusive=True, reverse=True),
        [Int(3, 2)],
        lambda x: np.flip(np.cumsum(np.flip(x, 0), 0) - np.flip(x, 0), 0),
    ),
    Case(
        "range",
        "Range",
        lambda a, b: tf.range(a, b, 2),
        [np.array(1, I32), np.array(8, I32)],
        lambda a, b: np.arange(a, b, 2, dtype=I32),
        static=False,
    ),
    Case(
        "pad", "Pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), [R(2, 3)], lambda x: np.pad(x, [(1, 0), (2, 1)])
    ),
    Case(
        "pad_value",
        "Pad",
        lambda x: tf.pad(x, [[0, 1], [1, 1]], constant_values=7),
        [Int(2, 2)],
        lambda x: np.pad(x, [(0, 1), (1, 1)], constant_values=7),
    ),
    # convolution and pooling
    *[
        Case(
            f"conv2d_{padding}_s{s}",
            "Conv2D",
            lambda x, w, s=s, padding=padding: tf.nn.conv2d(x, w, strides=[1, s, s, 1], padding=padding),
            [R(2, 5, 6, 2), R(3, 2, 2, 3)],
            lambda x, w, s=s, padding=padding: np_conv2d(x, w, (s, s), padding),
            batch=(0,),
        )
        for padding in ("SAME", "VALID")
        for s in (1, 2)
    ],
    *[
        Case(
            f"{name}_{padding}",
            op,
            lambda x, fn=fn, padding=padding: fn(
                x, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1], padding=padding
            ),
            [R(2, 5, 6, 3)],
            lambda x, ref=ref, padding=padding: ref(x, (3, 2), (2, 2), padding),
        )
        for name, op, fn, ref in [
            ("max_pool", "MaxPool", tf.nn.max_pool, np_max_pool),
            ("avg_pool", "AvgPool", tf.nn.avg_pool, np_avg_pool),
        ]
        for padding in ("SAME", "VALID")
    ],
    Case(
        "conv2d_f32",
        "Conv2D",
        lambda x, w: tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
        [R(1, 4, 4, 1, dtype=F32), R(2, 2, 1, 2, dtype=F32)],
        lambda x, w: np_conv2d(x, w, (1, 1), "SAME"),
        batch=(0,),
    ),
    # softmax and cross-entropies
    Case("softmax", "Softmax", tf.nn.softmax, [R(3, 4) * 5], np_softmax),
    Case(
        "softmax_axis0", "Softmax", lambda x: tf.nn.softmax(x, axis=0), [R(3, 4)], lambda x: np_softmax(x, 0)
    ),
    Case("softmax_large", "Softmax", tf.nn.softmax, [np.array([[1000.0, 0.0, -1000.0]])], np_softmax),
    Case("log_softmax", "LogSoftmax", tf.nn.log_softmax, [R(3, 4) * 5], np_log_softmax),
    Case(
        "xent_v2",
        "SoftmaxCrossEntropyWithLogits",
        lambda y, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x),
        [np_softmax(R(3, 4)), R(3, 4)],
        lambda y, x: -(y * np_log_softmax(x)).sum(-1),
    ),
    Case(
        "xent_v1",
        "SoftmaxCrossEntropyWithLogits",
        lambda y, x: tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
        [np_softmax(R(3, 4)), R(3, 4, dtype=F64)],
        lambda y, x: -(y * np_log_softmax(x)).sum(-1),
    ),
    Case(
        "sparse_xent",
        "SoftmaxCrossEntropyWithLogits",
        lambda i, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=i, logits=x),
        [np.array([0, 3, 1], I32), R(3, 4, dtype=F32)],
        lambda i, x: -np_log_softmax(x)[np.arange(3), i],
    ),
    Case(
        "adam_update_over_chunks",  # 40,000 elements: two of the kernel's chunks
        "AdamUpdate",
        lambda w, m, v, g, b1, b2, lr, eps: list(training_ops.adam_update(w, m, v, g, b1, b2, lr, eps)),
        [R(200, 200, dtype=F32), R(200, 200, dtype=F32), P(200, 200, dtype=F32), R(200, 200, dtype=F32)]
        + [F32(0.8), F32(0.99), F32(0.01), F32(1e-3)],
        lambda w, m, v, g, b1, b2, lr, eps: _adam_reference(w, m, v, g, b1, b2, lr, eps),
    ),
    # composites: no primitive of their own, but public API with numpy meaning
    Case("rsqrt", None, tf.rsqrt, [P(2, 3)], lambda x: 1 / np.sqrt(x)),
    Case("reciprocal", None, tf.reciprocal, [P(2, 3)], lambda x: 1 / x),
    Case("log1p", None, tf.log1p, [P(2, 3)], np.log1p),
    Case(
        "clip_by_value",
        None,
        lambda x: tf.clip_by_value(x, -0.5, 0.5),
        [R(3, 4)],
        lambda x: np.clip(x, -0.5, 0.5),
    ),
    Case("softplus", "Softplus", tf.nn.softplus, [R(3, 4) * 30], lambda x: np.logaddexp(0, x)),
    Case("relu6", "Relu6", tf.nn.relu6, [R(3, 4) * 5], lambda x: np.clip(x, 0, 6)),
    Case("relu6_int", "Relu6", tf.nn.relu6, [Int(5) * 3], lambda x: np.clip(x, 0, 6)),
    # alpha is TF1's float32 attribute, whatever the input's dtype
    Case(
        "leaky_relu",
        "LeakyRelu",
        tf.nn.leaky_relu,
        [R(3, 4)],
        lambda x: np.where(x > 0, x, np.float32(0.2) * x),
    ),
    Case(
        "leaky_relu_alpha",
        "LeakyRelu",
        lambda x: tf.nn.leaky_relu(x, alpha=np.float64(0.7)),
        [R(3, 4)],
        lambda x: np.where(x > 0, x, np.float32(0.7) * x),
    ),
    Case("elu", "Elu", tf.nn.elu, [R(3, 4)], lambda x: np.where(x > 0, x, np.expm1(x))),
    Case(
        "selu",
        "Selu",
        tf.nn.selu,
        [R(3, 4)],
        lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    ),
    Case("l2_loss", None, tf.nn.l2_loss, [R(3, 4)], lambda x: (x * x).sum() / 2),
    Case("bias_add", None, tf.nn.bias_add, [R(2, 3, 4), R(4)], np.add, batch=(0,)),
    Case("xw_plus_b", None, tf.nn.xw_plus_b, [R(2, 3), R(3, 4), R(4)], lambda x, w, b: x @ w + b, batch=(0,)),
    Case(
        "sigmoid_xent",
        None,
        lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        [rng.random((3, 4)), R(3, 4) * 40],
        lambda z, x: np.logaddexp(0, x) - x * z,
    ),
    Case("moments", None, lambda x: list(tf.nn.moments(x, [0])), [R(5, 3)], lambda x: [x.mean(0), x.var(0)]),
    Case("matrix_transpose", None, tf.matrix_transpose, [R(2, 3, 4)], lambda x: x.swapaxes(1, 2)),
    # TensorArray (daskflow/ops/tensor_array_ops.py): a buffer tensor, written by copy
    Case(
        "tensor_array_preallocated",
        "TensorArrayV3",
        lambda x: TensorArray(tf.float64, size=2, element_shape=[3]).stack() + x,
        [R(2, 3)],
        lambda x: x,
        batch=(),
    ),
    Case(
        "tensor_array_write",
        "TensorArrayWriteV3",
        lambda x: TensorArray(x.dtype, size=2).write(1, x).write(0, x * 2.0).stack(),
        [R(3)],
        lambda x: np.stack([2 * x, x]),
    ),
    Case(
        "tensor_array_scatter_leaves_zeros",
        "TensorArrayScatterV3",
        lambda x: TensorArray(x.dtype, size=4).scatter([3, 0], x).stack(),
        [R(2, 3)],
        lambda x: np.stack([x[1], 0 * x[0], 0 * x[0], x[0]]),
    ),
    Case(
        "tensor_array_read",
        "TensorArrayReadV3",
        lambda x: TensorArray(x.dtype, size=3).unstack(x).read(2),
        [R(3, 2)],
        lambda x: x[2],
    ),
    Case(
        "tensor_array_stack",
        "TensorArrayStack",
        lambda x: TensorArray(x.dtype, size=3).unstack(x).stack(),
        [R(3, 2)],
        lambda x: x,
    ),
    # clip, sort, linalg, segment, check and script ops (their TF1 values: tests/test_more_ops.py)
    Case(
        "top_k",
        "TopKV2",
        lambda x: list(sort_ops.top_k(x, 2)),
        [np.array([[1.0, 3.0, 2.0, 3.0], [0.5, -1.0, 4.0, 2.0], [2.0, 2.0, 2.0, 1.0]])],
        lambda x: [np.array([[3, 3], [4, 2], [2, 2.0]]), np.array([[1, 3], [2, 3], [0, 1]], I32)],
    ),
    Case("diag", "Diag", linalg_ops.diag, [R(2, 3)], lambda x: np.diag(x.ravel()).reshape(2, 3, 2, 3)),
    Case(
        "diag_part",
        "DiagPart",
        linalg_ops.diag_part,
        [R(2, 3, 2, 3)],
        lambda x: x.reshape(6, 6).diagonal().reshape(2, 3),
    ),
    Case(
        "matrix_diag",
        "MatrixDiag",
        linalg_ops.matrix_diag,
        [R(2, 3)],
        lambda x: np.stack([np.diag(r) for r in x]),
    ),
    Case(
        "matrix_diag_part",
        "MatrixDiagPart",
        linalg_ops.matrix_diag_part,
        [R(2, 4, 3)],
        lambda x: np.stack([np.diag(m) for m in x]),
    ),
    Case(
        "matrix_band_part",
        "MatrixBandPart",
        lambda x: linalg_ops.matrix_band_part(x, 1, 0),
        [R(2, 4, 3)],
        lambda x: np.tril(x) - np.tril(x, -2),
    ),
    Case(
        "matrix_inverse",
        "MatrixInverse",
        linalg_ops.matrix_inverse,
        [R(2, 3, 3) + 3 * np.eye(3)],
        lambda x: np.stack([np.linalg.inv(m) for m in x]),
    ),
    Case(
        "matrix_determinant",
        "MatrixDeterminant",
        linalg_ops.matrix_determinant,
        [R(2, 3, 3)],
        lambda x: np.array([np.linalg.det(m) for m in x]),
    ),
    Case(
        "cholesky",
        "Cholesky",
        lambda x: tf.cholesky(x),
        [np.stack([m @ m.T + 3 * np.eye(3) for m in R(2, 3, 3)])],
        lambda x: np.linalg.cholesky(x),
    ),
    Case(
        "matrix_solve_adjoint",
        "MatrixSolve",
        lambda a, b: tf.matrix_solve(a, b, adjoint=True),
        [R(2, 3, 3) + 3 * np.eye(3), R(2, 3, 2)],
        lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), b),
    ),
    Case(
        "matrix_triangular_solve_upper",
        "MatrixTriangularSolve",
        lambda a, b: tf.matrix_triangular_solve(a, b, lower=False),
        [R(2, 3, 3) + 3 * np.eye(3), R(2, 3, 2)],
        lambda a, b: np.linalg.solve(np.triu(a), b),
    ),
    Case(
        "self_adjoint_eig",
        "SelfAdjointEigV2",
        lambda x: list(tf.self_adjoint_eig(x)),
        [R(2, 3, 3)],
        lambda x: list(np.linalg.eigh(x)),
    ),
    Case("cross", "Cross", tf.cross, [R(2, 3), R(2, 3)], np.cross),
    Case("tan", "Tan", tf.tan, [R(2, 3)], np.tan),
    Case(
        "truncatediv",
        "TruncateDiv",
        tf.truncatediv,
        [np.array([7, -7, 7, -7, 6], I32), np.array([2, 2, -2, -2, -3], I32)],
        lambda x, y: np.array([3, -3, -3, 3, -2], I32),
    ),
    Case("truncatemod", "TruncateMod", tf.truncatemod, [R(4), R(4) + 3], np.fmod),
    Case(
        "unique",
        "Unique",
        lambda x: list(tf.unique(x)),
        [np.array([3, 1, 3, 2, 1], I32)],
        lambda x: [np.array([3, 1, 2], I32), np.array([0, 1, 0, 2, 1], I32)],
        static=False,
    ),
    Case(
        "unique_with_counts",
        "UniqueWithCounts",
        lambda x: list(tf.unique_with_counts(x)),
        [np.array([3.0, 1.0, 3.0])],
        lambda x: [np.array([3.0, 1.0]), np.array([0, 1, 0], I32), np.array([2, 1], I32)],
        static=False,
    ),
    # Sparse ops: indices, values and dense shape fed as three placeholders.
    Case(
        "sparse_to_dense",
        "SparseToDense",
        lambda i, v, s: tf.sparse_to_dense(i, s, v, default_value=0.5),
        [np.array([[0, 1], [2, 0]], I64), R(2), np.array([3, 2], I64)],
        lambda i, v, s: np.array([[0.5, v[0]], [0.5, 0.5], [v[1], 0.5]]),
        static=False,
    ),
    Case(
        "sparse_tensor_dense_matmul",
        "SparseTensorDenseMatMul",
        lambda i, v, s, b: tf.sparse_tensor_dense_matmul(tf.SparseTensor(i, v, s), b, adjoint_b=True),
        [np.array([[0, 1], [2, 0], [2, 2]], I64), R(3), np.array([3, 3], I64), R(4, 3)],
        lambda i, v, s, b: np.array([[0, v[0], 0], [0, 0, 0], [v[1], 0, v[2]]]) @ b.T,
        static=False,
    ),
    Case(
        "sparse_add",
        "SparseAdd",
        lambda i, v, s: tf.sparse_add(tf.SparseTensor(i, v, s), tf.SparseTensor(i[:1], v[:1] * 2, s)).values,
        [np.array([[0, 1], [2, 0]], I64), R(2), np.array([3, 2], I64)],
        lambda i, v, s: v * np.array([3.0, 1.0]),
        static=False,
    ),
    Case(
        "sparse_reorder",
        "RowMajorOrder",
        lambda i, v, s: tf.sparse.reorder(tf.SparseTensor(i, v, s)).values,
        [np.array([[2, 0], [0, 1], [1, 1]], I64), R(3), np.array([3, 2], I64)],
        lambda i, v, s: v[[1, 2, 0]],
        static=False,
    ),
    Case(
        "sparse_reshape",
        "SparseReshape",
        lambda i, v, s: tf.sparse_reshape(tf.SparseTensor(i, v, s), [-1]).indices,
        [np.array([[0, 1], [2, 0]], I64), R(2), np.array([3, 2], I64)],
        lambda i, v, s: np.array([[1], [4]], I64),
        static=False,
    ),
    Case(
        "sparse_concat",
        "SparseConcat",
        lambda i, v, s: tf.sparse_concat(0, [tf.SparseTensor(i, v, s), tf.SparseTensor(i, v, s)]).values,
        [np.array([[0, 1], [2, 0]], I64), R(2), np.array([3, 2], I64)],
        lambda i, v, s: np.concatenate([v, v]),
        static=False,
    ),
    Case(
        "sparse_softmax",
        "SparseGroups",
        lambda i, v, s: tf.sparse_softmax(tf.SparseTensor(i, v, s)).values,
        [np.array([[0, 0], [0, 1], [1, 1]], I64), R(3), np.array([2, 2], I64)],
        lambda i, v, s: np.concatenate([np.exp(v[:2]) / np.exp(v[:2]).sum(), [1.0]]),
        static=False,
    ),
    Case("transpose_unknown_rank", "ReverseAxes", tf.transpose, [R(2, 3, 4)], lambda x: x.T, batch="rank"),
    Case(
        "matrix_transpose_unknown_rank",
        "SwapLastAxes",
        tf.matrix_transpose,
        [R(2, 3, 4)],
        lambda x: x.swapaxes(-1, -2),
        batch="rank",
    ),
    Case(
        "expand_dims_unknown_rank",
        "ExpandDims",
        lambda x: tf.expand_dims(x, -1),
        [R(2, 3)],
        lambda x: x[..., None],
        batch="rank",
    ),
    Case(
        "softmax_unknown_rank",
        "Softmax",
        tf.nn.softmax,
        [R(2, 3)],
        lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True),
        batch="rank",
    ),
    Case(
        "einsum",
        "Einsum",
        lambda a, b: linalg_ops.einsum("bij,bjk->bik", a, b),
        [R(2, 3, 4), R(2, 4, 5)],
        lambda a, b: a @ b,
    ),
    Case(
        "unsorted_segment_sum",
        "UnsortedSegmentSum",
        lambda x, i: segment_ops.unsorted_segment_sum(x, i, 4),
        [R(3, 2), np.array([0, 2, 0], I32)],
        lambda x, i: np.stack([x[0] + x[2], 0 * x[0], x[1], 0 * x[0]]),
    ),
    Case(
        "segment_sum",
        "SegmentSum",
        segment_ops.segment_sum,
        [R(3, 2), np.array([0, 0, 2], I32)],
        lambda x, i: np.stack([x[0] + x[1], 0 * x[0], x[2]]),
        static=False,  # the number of segments is the last id + 1, known only when run
    ),
    Case(
        "unsorted_segment_max",
        "UnsortedSegmentMax",
        lambda x, i: segment_ops.unsorted_segment_max(x, i, 3),
        [R(3, 2), np.array([1, 1, 0], I32)],
        lambda x, i: np.stack([x[2], np.maximum(x[0], x[1]), np.full(2, np.finfo(F64).min)]),
    ),
    Case(
        "gather_nd",
        "GatherNd",
        segment_ops.gather_nd,
        [R(3, 4), np.array([[1, 0], [2, 3]], I32)],
        lambda x, i: x[i[:, 0], i[:, 1]],
    ),
    Case(
        "scatter_nd",
        "ScatterNd",
        lambda i, u: segment_ops.scatter_nd(i, u, [4, 2]),
        [np.array([[1], [0], [1]], I32), R(3, 2)],
        lambda i, u: np.stack([u[1], u[0] + u[2], 0 * u[0], 0 * u[0]]),
    ),
    Case(
        "segment_prod",
        "SegmentProd",
        segment_reduce_ops.segment_prod,
        [R(3, 2), np.array([0, 0, 2], I32)],
        lambda x, i: np.stack([x[0] * x[1], 0 * x[0] + 1, x[2]]),  # an empty segment's product is 1
        static=False,
    ),
    Case(
        "segment_min",
        "SegmentMin",
        segment_reduce_ops.segment_min,
        [Int(4, 2), np.array([0, 0, 0, 2], I32)],
        lambda x, i: np.stack([x[:3].min(0), 0 * x[0], x[3]]),  # an empty segment's minimum is 0
        static=False,
    ),
    Case(
        "segment_max",
        "SegmentMax",
        segment_reduce_ops.segment_max,
        [R(4, 2), np.array([1, 1, 3, 3], I32)],
        lambda x, i: np.stack([0 * x[0], x[:2].max(0), 0 * x[0], x[2:].max(0)]),
        static=False,
    ),
    Case(
        "reverse_sequence",
        "ReverseSequence",
        lambda x, n: tf.reverse_sequence(x, n, seq_axis=2, batch_axis=0),
        [R(2, 3, 4), np.array([3, 0], I64)],
        lambda x, n: np.stack([np.concatenate([x[0, :, 2::-1], x[0, :, 3:]], 1), x[1]]),
    ),
    Case(
        "svd",
        "Svd",
        lambda x: (lambda s, u, v: [s, tf.matmul(u * s[..., None, :], v, transpose_b=True)])(*tf.svd(x)),
        [R(2, 4, 3)],
        lambda x: [np.sqrt(np.linalg.eigvalsh(np.swapaxes(x, 1, 2) @ x)[:, ::-1]), x],
    ),
    Case(
        "svd_values_only",
        "Svd",
        lambda x: tf.linalg.svd(x, full_matrices=True, compute_uv=False),
        [R(3, 5)],
        lambda x: np.sqrt(np.linalg.eigvalsh(x @ x.T)[::-1]),
    ),
    Case(
        "dynamic_partition",
        "DynamicPartition",
        lambda x, p: tf.dynamic_partition(x, p, 3),
        [R(4, 2), np.array([2, 0, 2, 2], I32)],
        lambda x, p: [x[[1]], x[:0], x[[0, 2, 3]]],
        static=False,  # each part's size is known only when run
    ),
    Case(
        "dynamic_stitch",
        "DynamicStitch",
        lambda a, b, i: tf.dynamic_stitch([i, [0, 3]], [a, b]),
        [R(3, 2), R(2, 2), np.array([1, 2, 0], I32)],
        lambda a, b, i: np.stack([b[0], a[0], a[1], b[1]]),  # a later input wins index 0
        batch=(0,),
        static=False,  # the size is the largest index + 1, known only when run
    ),
    Case("is_nan", "IsNan", check_ops.is_nan, [np.array([1.0, np.nan, np.inf, -np.inf])], np.isnan),
    Case("is_inf", "IsInf", check_ops.is_inf, [np.array([1.0, np.nan, np.inf, -np.inf])], np.isinf),
    Case(
        "is_finite", "IsFinite", check_ops.is_finite, [np.array([1.0, np.nan, np.inf, -np.inf])], np.isfinite
    ),
    Case("print", "Print", lambda x: check_ops.Print(x, [x], "test_ops print: "), [R(2, 3)], lambda x: x),
    Case(
        "py_func",
        "PyFunc",
        lambda x: script_ops.py_func(np.sin, [x], tf.float64),
        [R(2, 3)],
        np.sin,
        static=False,  # TF1 leaves a py_func's shape unknown
    ),
    Case(
        "py_func_stateless",
        "PyFuncStateless",
        lambda x: script_ops.py_func(lambda a: (a * 2).astype(F32), [x], tf.float32, stateful=False),
        [R(2, 3)],
        lambda x: (x * 2).astype(F32),
        static=False,
    ),
    # TF1's remaining elementwise math (daskflow/ops/special_math_ops.py): references by other
    # formulas, or Python's math module where the kernel calls scipy
    Case(
        "acos",
        "Acos",
        tf.acos,
        [rng.uniform(-0.95, 0.95, (2, 3))],
        lambda x: np.arctan2(np.sqrt(1 - x * x), x),
    ),
    Case(
        "asin",
        "Asin",
        tf.asin,
        [rng.uniform(-0.95, 0.95, (2, 3))],
        lambda x: np.arctan2(x, np.sqrt(1 - x * x)),
    ),
    Case("atan", "Atan", tf.atan, [R(2, 3) * 3], lambda x: np.arcsin(x / np.sqrt(1 + x * x))),
    Case("acosh", "Acosh", tf.acosh, [P(2, 3) + 1], lambda x: np.log(x + np.sqrt(x * x - 1))),
    Case(
        "asinh",
        "Asinh",
        tf.asinh,
        [R(2, 3) * 3],
        lambda x: np.sign(x) * np.log(np.abs(x) + np.sqrt(x * x + 1)),
    ),
    Case(
        "atanh",
        "Atanh",
        tf.atanh,
        [rng.uniform(-0.95, 0.95, (2, 3))],
        lambda x: 0.5 * np.log((1 + x) / (1 - x)),
    ),
    Case("cosh", "Cosh", tf.cosh, [R(2, 3) * 3], lambda x: (np.exp(x) + np.exp(-x)) / 2),
    Case("sinh_f32", "Sinh", tf.sinh, [R(2, 3, dtype=F32) * 3], lambda x: (np.exp(x) - np.exp(-x)) / 2),
    Case(
        "expm1_tiny",
        "Expm1",
        tf.expm1,
        [np.array([[1e-12, -3e-9, 2.0], [-1.5, 1e-5, 0.0]])],
        lambda x: np.where(np.abs(x) < 1e-3, x + x * x / 2 + x**3 / 6, np.exp(x) - 1),
    ),
    Case(
        "rint_half_to_even",
        "Rint",
        tf.rint,
        [np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.2, -2.7])],
        np_rint,
    ),
    Case("atan2_quadrants", "Atan2", tf.atan2, [R(3, 4), np.array([1.5, -0.7, 2.0, -1.2])], np_atan2),
    Case(
        "div_no_nan",
        "DivNoNan",
        tf.div_no_nan,
        [np.array([[1.5, np.nan, -2.0], [np.inf, 3.0, 0.0]]), np.array([2.0, 0.0, -4.0])],
        lambda x, y: np.array([[x[0, 0] / y[0], 0.0, x[0, 2] / y[2]], [np.inf, 0.0, -0.0]]),
    ),
    Case(
        "div_no_nan_int32_gives_float64",
        "DivNoNan",
        tf.div_no_nan,
        [np.array([7, -3, 4], I32), np.array([2, 0, -8], I32)],
        lambda x, y: np.array([3.5, 0.0, -0.5]),
    ),
    Case("erf", "Erf", tf.erf, [R(2, 3) * 2], np.vectorize(math.erf)),
    Case("erfc_tail", "Erfc", tf.erfc, [np.array([-1.0, 0.0, 0.5, 3.0, 8.0])], np.vectorize(math.erfc)),
    Case(
        "lgamma",
        "Lgamma",
        tf.lgamma,
        [np.array([[0.3, 1.0, 2.5], [-0.5, -2.5, 40.0]])],
        np.vectorize(math.lgamma),
    ),
    # linear algebra (daskflow/ops/linalg_qr_ops.py)
    Case("qr_tall_batched", "Qr", _qr_properties(False)[0], [R(2, 4, 3)], _qr_properties(False)[1]),
    Case("qr_wide", "Qr", _qr_properties(False)[0], [R(3, 5)], _qr_properties(False)[1]),
    Case("qr_full_matrices", "Qr", _qr_properties(True)[0], [R(2, 4, 3)], _qr_properties(True)[1]),
    Case(
        "matrix_set_diag_wide",
        "MatrixSetDiag",
        tf.matrix_set_diag,
        [R(2, 3, 4), R(2, 3)],
        lambda x, d: np.stack(
            [[[d[b, i] if i == j else x[b, i, j] for j in range(4)] for i in range(3)] for b in range(2)]
        ),
    ),
    Case(
        "trace", None, tf.trace, [R(2, 4, 3)], lambda x: np.array([sum(m[i, i] for i in range(3)) for m in x])
    ),
    # array functions (daskflow/ops/array_extra_ops.py)
    Case(
        "roll_two_axes",
        "Roll",
        lambda x: tf.roll(x, [1, -2], [0, 1]),
        [R(3, 4)],
        lambda x: np_roll(x, [1, -2], [0, 1]),
    ),
    Case(
        "roll_fed_shift_same_axis_twice",
        "Roll",
        lambda x, s: tf.roll(x, tf.stack([s, s]), [1, 1]),
        [R(2, 5), np.array(3, I32)],
        lambda x, s: np_roll(x, [2 * s], [1]),
    ),
    Case(
        "repeat_scalar", "Repeat", lambda x: tf.repeat(x, 2, axis=1), [R(3, 2)], lambda x: np_repeat(x, 2, 1)
    ),
    Case(
        "repeat_vector_axis0",
        "Repeat",
        lambda x: tf.repeat(x, [2, 0, 3], axis=0),
        [Int(3, 2)],
        lambda x: np_repeat(x, [2, 0, 3], 0),
        static=False,  # TF1 knows the axis' size only for a scalar repeats
    ),
    Case(
        "repeat_flattens",
        "Repeat",
        lambda x: tf.repeat(x, 2),
        [R(2, 3)],
        lambda x: np_repeat(x.reshape(-1), 2, 0),
    ),
    Case(
        "batch_gather",
        "BatchGather",
        tf.batch_gather,
        [R(2, 3, 4), np.array([[2, 0, 2], [1, 1, 0]], I32)],
        lambda p, i: np.stack([np.stack([p[b, k] for k in i[b]]) for b in range(2)]),
    ),
    Case(
        "identity_n", "IdentityN", lambda a, b: tf.identity_n([a, b]), [R(2, 3), Int(4)], lambda a, b: [a, b]
    ),
    Case("ensure_shape", "EnsureShape", lambda x: tf.ensure_shape(x, [None, 3]), [R(2, 3)], lambda x: x),
    Case(
        "where_v2_all_broadcast",
        "SelectV2",
        tf.where_v2,
        [Bool(3, 1), R(4), R(3, 4)],
        lambda c, x, y: c * x + ~c * y,
    ),
    Case(
        "where_v2_vector_condition",
        "SelectV2",
        lambda c, x: tf.where_v2(c, x, 0.0),
        [Bool(4), R(3, 4)],
        lambda c, x: x * c,
        batch=(1,),
    ),
    Case(
        "invert_permutation",
        "InvertPermutation",
        tf.invert_permutation,
        [np.array([3, 4, 0, 2, 1], I64)],
        lambda x: np.array([list(x).index(i) for i in range(5)], I64),
    ),
    Case(
        "unravel_index",
        "UnravelIndex",
        tf.unravel_index,
        [np.array([2, 5, 11, 0], I32), np.array([3, 4], I32)],
        lambda i, d: np.array([i // 4, i % 4], I32),
        batch=(0,),
    ),
    *[
        Case(
            f"searchsorted_{side}",
            "SearchSorted",
            lambda s, v, side=side: tf.searchsorted(s, v, side=side),
            [np.sort(Int(2, 6), axis=1), Int(2, 4)],
            lambda s, v, side=side: np.array(
                [[sum(e < u if side == "left" else e <= u for e in s[b]) for u in v[b]] for b in range(2)],
                I32,
            ),
        )
        for side in ("left", "right")
    ],
    Case(
        "listdiff",
        "ListDiff",
        lambda x, y: list(tf.setdiff1d(x, y)),
        [np.array([1, 2, 3, 4, 5, 6, 3], I32), np.array([1, 3, 5], I32)],
        lambda x, y: [np.array([2, 4, 6], I32), np.array([1, 3, 5], I32)],
        static=False,
    ),
    Case(
        "tile_multiples_from_shape",
        "TileDynamic",
        lambda x: tf.tile(x, [tf.shape(x)[0], 2]),
        [R(3, 2)],
        lambda x: np_tile(x, [3, 2]),
    ),
    Case(
        "tile_fed_multiples",
        "TileDynamic",
        lambda x, m: tf.tile(x, m),
        [R(3, 2), np.array([2, 3], I32)],
        lambda x, m: np_tile(x, m),
        batch=(0,),
        static=False,  # multiples known only when run
    ),
    # segments and scatters (daskflow/ops/segment_extra_ops.py, scatter_extra_ops.py)
    Case(
        "unsorted_segment_min",
        "UnsortedSegmentMin",
        lambda x, i: tf.unsorted_segment_min(x, i, 4),
        [R(5, 2), np.array([1, 3, 1, -1, 1], I32)],
        lambda x, i: np_segments(x, i, 4, np.minimum, np.finfo(F64).max),
    ),
    Case(
        "unsorted_segment_prod_int",
        "UnsortedSegmentProd",
        lambda x, i: tf.unsorted_segment_prod(x, i, 3),
        [Int(5, 2), np.array([2, 0, 2, 2, -1], I64)],
        lambda x, i: np_segments(x, i, 3, np.multiply, 1),
    ),
    *[
        Case(
            f"tensor_scatter_nd_{mode}",
            "TensorScatterNd",
            lambda t, i, u, fn=fn: fn(t, i, u),
            [R(4, 3), np.array([[1], [3], [1]] if mode != "update" else [[1], [3], [0]], I32), R(3, 3)],
            lambda t, i, u, combine=combine: np_scatter_nd(t, i, u, combine),
        )
        for mode, fn, combine in [
            ("update", tf.tensor_scatter_nd_update, lambda old, new: new),
            ("add", tf.tensor_scatter_nd_add, np.add),
            ("sub", tf.tensor_scatter_nd_sub, np.subtract),
            ("min", tf.tensor_scatter_nd_min, np.minimum),
            ("max", tf.tensor_scatter_nd_max, np.maximum),
        ]
    ],
    Case(
        "tensor_scatter_nd_add_elements_int",
        "TensorScatterNd",
        tf.tensor_scatter_nd_add,
        [Int(3, 4), np.array([[0, 1], [2, 3], [0, 1]], I64), Int(3)],
        lambda t, i, u: np_scatter_nd(t, i, u, np.add),
    ),
    # space, counting and patches (daskflow/ops/space_ops.py, counting_ops.py, patches_ops.py)
    Case(
        "space_to_depth",
        "SpaceToDepth",
        lambda x: tf.space_to_depth(x, 2),
        [R(2, 4, 6, 3)],
        lambda x: np_space_to_depth(x, 2),
    ),
    Case(
        "space_to_depth_nchw",
        "SpaceToDepth",
        lambda x: tf.space_to_depth(x, 2, data_format="NCHW"),
        [R(2, 3, 4, 2)],
        lambda x: np_space_to_depth(x.transpose(0, 2, 3, 1), 2).transpose(0, 3, 1, 2),
    ),
    Case(
        "depth_to_space",
        "SpaceToDepth",
        lambda x: tf.depth_to_space(x, 2),
        [R(2, 2, 3, 8)],
        lambda x: np_depth_to_space(x, 2),
    ),
    Case(
        "space_to_batch_nd_padded",
        "SpaceToBatchND",
        lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 1]]),
        [R(2, 4, 5, 3)],
        lambda x: np_space_to_batch(x, (2, 3), [(1, 1), (0, 1)]),
    ),
    Case(
        "batch_to_space_nd_cropped",
        "SpaceToBatchND",
        lambda x: tf.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]),
        [R(8, 2, 3, 1)],
        lambda x: np_batch_to_space(x, (2, 2), [(0, 1), (1, 0)]),
    ),
    Case(
        "bincount",
        "Bincount",
        tf.bincount,
        [np.array([1, 1, 4, 2, 1, 4, 0], I32)],
        lambda a: np.array([sum(v == k for v in a) for k in range(5)], I32),
        static=False,  # the length is max(arr) + 1, known only when run
    ),
    Case(
        "bincount_weights_min_max_length",
        "Bincount",
        lambda a, w: tf.bincount(a, weights=w, minlength=3, maxlength=4),
        [np.array([[1, 5], [1, 0]], I32), R(2, 2)],
        lambda a, w: np.array([sum(w[a == k]) for k in range(4)]),
        static=False,
    ),
    Case(
        "histogram_fixed_width",
        "HistogramFixedWidth",
        lambda v, r: tf.histogram_fixed_width(v, r, nbins=5),
        [rng.uniform(-2.0, 7.0, (3, 8)), np.array([0.0, 5.0])],
        lambda v, r: np.array(
            [sum(np_histogram_bin(e, 0.0, 5.0, 5) == k for e in v.ravel()) for k in range(5)], I32
        ),
    ),
    Case(
        "histogram_fixed_width_bins_int64",
        "HistogramFixedWidth",
        lambda v, r: tf.histogram_fixed_width_bins(v, r, nbins=4, dtype=tf.int64),
        [rng.uniform(-1.0, 3.0, (2, 5)), np.array([0.0, 2.0])],
        lambda v, r: np.vectorize(lambda e: np_histogram_bin(e, 0.0, 2.0, 4))(v).astype(I64),
    ),
    *[
        Case(
            f"extract_image_patches_{padding}",
            "ExtractImagePatches",
            lambda x, padding=padding: tf.extract_image_patches(
                x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], padding
            ),
            [R(2, 5, 6, 2)],
            lambda x, padding=padding: np_patches(x, (3, 2), (2, 1), (1, 2), padding),
        )
        for padding in ("SAME", "VALID")
    ],
    # TF's fused recurrent cells against the cells' arithmetic written out in numpy
    Case(
        "lstm_block_cell",
        "LSTMBlockCell",
        lambda x, c, h, w, b: list(rnn_ops.lstm_block_cell(x, c, h, w, b, forget_bias=0.5)[1::5]),
        [R(3, 2), R(3, 4), R(3, 4), R(6, 16), R(16)],
        lambda x, c, h, w, b: np_lstm(x, c, h, w, b, 0.5),
    ),
    Case(
        "lstm_block_cell_peepholes_clip",
        "LSTMBlockCell",
        lambda x, c, h, w, b, i, f, o: list(
            rnn_ops.lstm_block_cell(x, c, h, w, b, i, f, o, forget_bias=1.0, cell_clip=0.5)[1::5]
        ),
        [R(3, 2), R(3, 4), R(3, 4), R(6, 16), R(16), R(4), R(4), R(4)],
        lambda x, c, h, w, b, i, f, o: np_lstm(x, c, h, w, b, 1.0, (i, f, o), 0.5),
    ),
    Case(
        "gru_block_cell",
        "GRUBlockCell",
        lambda x, h, w_ru, w_c, b_ru, b_c: rnn_ops.gru_block_cell(x, h, w_ru, w_c, b_ru, b_c)[3],
        [R(3, 2), R(3, 4), R(6, 8), R(6, 4), R(8), R(4)],
        np_gru,
    ),
]


# Primitives with a kernel but no case in the table, and why.
EXEMPT = {
    "LSTMBlockCellGrad": "a gradient kernel: finite differences in tests/test_gradients.py",
    "GRUBlockCellGrad": "a gradient kernel: finite differences in tests/test_gradients.py",
    "IteratorGetNext": "stateful dataset iterator: tests/test_data.py",
    # Queues, readers and decoders keep per-session state or take bytes: their own files test them.
    "FIFOQueueV2": "queue resource: tests/test_queues.py, against TF1",
    "PaddingFIFOQueueV2": "queue resource: tests/test_queues.py, against TF1",
    "PriorityQueueV2": "queue resource: tests/test_queues.py, against TF1",
    "RandomShuffleQueueV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueCloseV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueDequeueManyV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueDequeueUpToV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueDequeueV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueEnqueueManyV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueEnqueueV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueIsClosedV2": "queue resource: tests/test_queues.py, against TF1",
    "QueueSizeV2": "queue resource: tests/test_queues.py, against TF1",
    "RefSelect": "queue resource: tests/test_queues.py, against TF1",
    "CountUpTo": "limit_epochs' counter: tests/test_input_queues.py",
    "ParseExampleV2": "feature specs over serialized protos: tests/test_examples.py, against TF1's answers",
    "ParseSequenceExampleV2": "serialized protos: tests/test_examples.py, against TF1's answers",
    "FixedLengthRecordReaderV2": "reader resource: tests/test_readers.py, against TF1",
    "IdentityReaderV2": "reader resource: tests/test_readers.py, against TF1",
    "TFRecordReaderV2": "reader resource: tests/test_readers.py, against TF1",
    "TextLineReaderV2": "reader resource: tests/test_readers.py, against TF1",
    "WholeFileReaderV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderNumRecordsProducedV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderNumWorkUnitsCompletedV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderReadUpToV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderReadV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderResetV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderRestoreStateV2": "reader resource: tests/test_readers.py, against TF1",
    "ReaderSerializeStateV2": "reader resource: tests/test_readers.py, against TF1",
    "ReadFile": "files: tests/test_io_gfile.py, as TF1's; on a cluster, tests/test_unchanged_on_a_cluster.py",
    "WriteFile": "files: tests/test_io_gfile.py, as TF1's",
    "DecodeCSV": "bytes in or out: tests/test_decoders.py, against TF1",
    "DecodeImage": "bytes in or out: tests/test_decoders.py, against TF1",
    "DecodeJpeg": "bytes in or out: tests/test_decoders.py, against TF1",
    "DecodePng": "bytes in or out: tests/test_decoders.py, against TF1",
    "DecodeRaw": "bytes in or out: tests/test_decoders.py, against TF1",
    "EncodeJpeg": "bytes in or out: tests/test_decoders.py, against TF1",
    "EncodePng": "bytes in or out: tests/test_decoders.py, against TF1",
    "IteratorV2": "iterator resource: tests/test_data_iterators.py",
    "OneShotIterator": "one-shot iterator resource: tests/test_data_iterators.py",
    "MakeIterator": "iterator initializer: tests/test_data_iterators.py",
    "Placeholder": "fed, never computed: every case feeds one",
    "VariableV2": "bound from the session's store: test_variable_updates",
    "Assign": "test_variable_updates",
    "AssignAdd": "test_variable_updates",
    "AssignSub": "test_variable_updates",
    "NoOp": "no outputs: test_no_op_and_group",
    "_FusedBiasAddRelu": "made by the remapping rewrite, never by graph building: case bias_add_relu",
    "_FusedElementwise": "made by the remapping rewrite, never by graph building: case elementwise_chain",
    "If": "runs function graphs: tests/test_control_flow.py",
    "While": "runs function graphs: tests/test_control_flow.py",
    "WhileGrad": "gradient of While: tests/test_control_flow.py",
    "AsString": "strings: tests/test_strings.py",
    "StringJoin": "strings: tests/test_strings.py",
    "StringToNumber": "strings: tests/test_strings.py",
    "IsVariableInitialized": "reads the session's store: tests/test_variable_scope.py",
    "ReportUninitializedVariables": "reads the session's store: tests/test_variable_scope.py",
    "RandomStandardNormal": "random: test_random_ops",
    "TruncatedNormal": "random: test_random_ops",
    "RandomUniform": "random: test_random_ops",
    "RandomUniformInt": "random: test_random_ops",
    "RandomShuffle": "random: test_random_shuffle_and_multinomial",
    "Multinomial": "random: test_random_shuffle_and_multinomial",
    "RandomCrop": "random: tests/test_image.py",
    "LogUniformCandidateSampler": "random: tests/test_nn_train_extras.py (distribution, uniqueness, replay)",
    "ResizeBilinear": "tests/test_image.py, against TF1",
    "ResizeBilinearGrad": "gradient of ResizeBilinear: tests/test_image.py, against TF1",
    "ResizeNearestNeighborGrad": "gradient of ResizeNearestNeighbor: tests/test_image.py, against TF1",
    "ResizeNearestNeighbor": "tests/test_image.py, against TF1",
    # Summary ops give serialized protos, not arrays: tests/test_summary.py compares them with TF1's.
    "ScalarSummary": "summary proto: tests/test_summary.py",
    "HistogramSummary": "summary proto: tests/test_summary.py",
    "ImageSummary": "summary proto: tests/test_summary.py",
    "AudioSummaryV2": "summary proto: tests/test_summary.py",
    "TensorSummaryV2": "summary proto: tests/test_summary.py",
    "MergeSummary": "summary proto: tests/test_summary.py",
    "StringSplit": "strings: tests/test_sparse.py, against TF1",
    "EditDistance": "strings and sparse sequences: tests/test_sparse.py, against TF1",
    "SparseAddGrad": "gradient of SparseAdd: tests/test_gradients.py (case sparse_add)",
    # Internal gradient primitives: no public builder; test_gradients checks them
    # against finite differences (first and second order).
    "ReduceTo": "gradient of broadcasting binary ops",
    "ReluGrad": "gradient of Relu",
    "Relu6Grad": "gradient of Relu6",
    "LeakyReluGrad": "gradient of LeakyRelu",
    "StridedSliceGrad": "gradient of StridedSlice",
    "SliceGrad": "gradient of Slice",
    "InitializedValue": "reads the session's store: tests/test_corpus_ops.py",
    "ScatterAddTo": "gradient of GatherV2",
    "TileGrad": "gradient of Tile",
    "Conv2DBackpropInput": "gradient of Conv2D",
    "Conv2DBackpropFilter": "gradient of Conv2D",
    "MaxPoolGrad": "gradient of MaxPool",
    "MaxPoolGradGrad": "gradient of MaxPoolGrad (case max_pool_grad; TF1's values: test_gradient_registry)",
    "AvgPoolGrad": "gradient of AvgPool",
    "TensorArrayWriteGrad": "gradient of TensorArrayWriteV3/ScatterV3",
    "Assert": "no outputs, fails the run: tests/test_more_ops.py",
    "PrintV2": "no outputs, prints: tests/test_more_ops.py",
    "ScatterUpdate": "updates a variable: tests/test_more_ops.py",
    "ScatterAdd": "updates a variable: tests/test_more_ops.py",
    # scipy.special is both these kernels' code and the only reference numpy offers.
    "Digamma": "scipy.special is the kernel: tests/test_math_extra.py, against TF1's stored answers",
    "Polygamma": "scipy.special is the kernel: tests/test_math_extra.py, against TF1's stored answers",
    "Zeta": "scipy.special is the kernel: tests/test_math_extra.py, against TF1's stored answers",
    "Igamma": "scipy.special is the kernel: tests/test_math_extra.py, against TF1's stored answers",
    "Igammac": "scipy.special is the kernel: tests/test_math_extra.py, against TF1's stored answers",
    "Betainc": "scipy.special is the kernel: tests/test_math_extra.py, against TF1's stored answers",
    "IgammaGradA": "gradient of Igamma: tests/test_gradients.py, and tests/test_math_extra.py against TF1",
    "BincountSize": "the length of Bincount, run by cases bincount and bincount_weights_min_max_length",
    "BatchScatterAdd": "gradient of BatchGather",
    "RepeatGrad": "gradient of Repeat",
    "TileDynamicGrad": "gradient of TileDynamic",
    "ExtractImagePatchesGrad": "gradient of ExtractImagePatches",
    "ScatterSub": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterMul": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterDiv": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterMin": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterMax": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterNdUpdate": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterNdAdd": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
    "ScatterNdSub": "updates a variable: test_variable_scatters; against TF1: tests/test_array_extra.py",
}


def _tol(dtype):
    return {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}.get(
        np.dtype(dtype).name, dict(rtol=0, atol=0)
    )


def _placeholder_dims(case, i, a):
    """The fed placeholder's shape in the batch variant: None leading dim (or unknown rank)."""
    if case.batch == "rank":
        return None
    batched = case.batch if case.batch is not None else range(len(case.inputs))
    return [None, *a.shape[1:]] if i in batched and a.ndim >= 1 else list(a.shape)


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def assert_agrees(t, value, expected, fully_known):
    """Static dtype and shape of ``t`` match the run ``value``; ``value`` matches ``expected``."""
    value, expected = np.asarray(value), np.asarray(expected)
    assert value.dtype == t.dtype.np, f"{t.name}: inferred {t.dtype.name}, kernel gave {value.dtype}"
    dims = t.shape.as_list() if t.shape.ndims is not None else None
    if dims is not None:
        assert len(dims) == value.ndim and all(d in (None, v) for d, v in zip(dims, value.shape)), (
            f"{t.name}: inferred shape {dims}, kernel gave {value.shape}"
        )
    if fully_known:
        assert t.shape.is_fully_defined(), (
            f"{t.name}: inference lost the shape ({t.shape}), kernel gave {value.shape}"
        )
    assert value.shape == expected.shape, f"{t.name}: shape {value.shape}, numpy gives {expected.shape}"
    np.testing.assert_allclose(value, expected.astype(value.dtype), **_tol(value.dtype), err_msg=t.name)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_matches_numpy_and_inference(case):
    with tf.Graph().as_default() as graph:
        full = [tf.placeholder(tf.as_dtype(a.dtype), a.shape) for a in case.inputs]
        batch = [
            tf.placeholder(tf.as_dtype(a.dtype), _placeholder_dims(case, i, a))
            for i, a in enumerate(case.inputs)
        ]
        outs_full, outs_batch = _as_list(case.build(*full)), _as_list(case.build(*batch))
        feeds = {**dict(zip(full, case.inputs)), **dict(zip(batch, case.inputs))}
        with tf.Session() as sess:
            got_full, got_batch = sess.run([outs_full, outs_batch], feeds)
    expected = _as_list(case.ref(*case.inputs))
    assert len(outs_full) == len(expected)
    for t, v, e in zip(outs_full, got_full, expected):
        assert_agrees(t, v, e, fully_known=case.static)
    for t, v, e in zip(outs_batch, got_batch, expected):
        assert_agrees(t, v, e, fully_known=False)
    if case.op is not None:
        types = {op.type for op in graph.get_operations()}
        assert case.op in types, f"case {case.id} builds no {case.op} op (only {sorted(types)})"


def test_table_covers_every_primitive():
    with_kernel = {name for name, prim in PRIMITIVES.items() if prim.kernel is not None}
    in_table = {c.op for c in CASES if c.op is not None}
    assert set(EXEMPT) <= set(PRIMITIVES), f"stale exemptions: {sorted(set(EXEMPT) - set(PRIMITIVES))}"
    assert not in_table & set(EXEMPT), "a primitive is both in the table and exempt"
    missing = with_kernel - in_table - set(EXEMPT)
    assert not missing, f"primitives with a kernel but no case in tests/test_ops.py: {sorted(missing)}"


# -- random ops -------------------------------------------------------------------------------

RANDOM = [
    (
        "RandomStandardNormal",
        lambda shape, **kw: tf.random_normal(shape, mean=1.0, stddev=2.0, **kw),
        tf.float32,
    ),
    (
        "TruncatedNormal",
        lambda shape, **kw: tf.truncated_normal(shape, stddev=0.5, dtype=tf.float64, **kw),
        tf.float64,
    ),
    (
        "RandomUniform",
        lambda shape, **kw: tf.random_uniform(shape, -2, 3, dtype=tf.float64, **kw),
        tf.float64,
    ),
    ("RandomUniformInt", lambda shape, **kw: tf.random_uniform(shape, -3, 4, dtype=tf.int32, **kw), tf.int32),
]
RANDOM_IDS = [r[0] for r in RANDOM]


def _draws(make, graph_seed=None, op_seed=None, runs=2, shape=(2, 3)):
    """Values of ``runs`` runs in each of two fresh sessions of one graph."""
    with tf.Graph().as_default() as g:
        tf.set_random_seed(graph_seed)
        t = make(list(shape), seed=op_seed)
        out = []
        for _ in range(2):
            with tf.Session(graph=g) as sess:
                out.append([sess.run(t) for _ in range(runs)])
    return out


@pytest.mark.parametrize("name,make,dtype", RANDOM, ids=RANDOM_IDS)
def test_random_op_inference_and_distribution(name, make, dtype):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [None, 3])
        static = make([2000, 5], seed=1)
        dynamic = make(tf.shape(x), seed=2)
        assert name in {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            a, b = sess.run([static, dynamic], {x: np.zeros((4, 3))})
    assert static.dtype is dtype and dynamic.dtype is dtype
    assert static.shape.as_list() == [2000, 5] and dynamic.shape.as_list() == [None, 3]
    assert a.dtype == dtype.np and a.shape == (2000, 5) and b.dtype == dtype.np and b.shape == (4, 3)
    if name == "RandomStandardNormal":
        assert abs(a.mean() - 1) < 0.1 and abs(a.std() - 2) < 0.1
    elif name == "TruncatedNormal":
        assert np.abs(a).max() <= 1.0 and abs(a.mean()) < 0.05 and 0.4 < a.std() < 0.46  # 0.5 * 0.880
    elif name == "RandomUniform":
        assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.1
    else:
        assert set(np.unique(a)) == set(range(-3, 4))


@pytest.mark.parametrize("name,make,dtype", RANDOM, ids=RANDOM_IDS)
def test_random_op_determinism(name, make, dtype):
    seeded = _draws(make, graph_seed=1, op_seed=5)
    # A session replays the op's sequence from the start; successive runs differ.
    np.testing.assert_array_equal(seeded[0], seeded[1])
    assert not np.array_equal(seeded[0][0], seeded[0][1])
    # The same graph and seeds built again give the same numbers; another op seed does not.
    np.testing.assert_array_equal(_draws(make, graph_seed=1, op_seed=5)[0], seeded[0])
    assert not np.array_equal(_draws(make, graph_seed=1, op_seed=6)[0][0], seeded[0][0])
    assert not np.array_equal(_draws(make, graph_seed=2, op_seed=5)[0][0], seeded[0][0])
    # A graph seed alone, or an op seed alone, is enough to be reproducible.
    np.testing.assert_array_equal(_draws(make, graph_seed=3)[0], _draws(make, graph_seed=3)[1])
    np.testing.assert_array_equal(_draws(make, op_seed=3)[0], _draws(make, op_seed=3)[1])
    # With neither, two sessions draw different numbers.
    unseeded = _draws(make, runs=1, shape=(20, 20))
    assert not np.array_equal(unseeded[0][0], unseeded[1][0])


def test_random_ops_with_graph_seed_differ_from_each_other():
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        a, b = tf.random_normal([3, 3]), tf.random_normal([3, 3])
        with tf.Session() as sess:
            va, vb = sess.run([a, b])
    assert not np.array_equal(va, vb)


def test_random_shuffle_and_multinomial():
    with tf.Graph().as_default():
        rows = tf.constant(np.arange(12).reshape(6, 2))
        shuffled = tf.random_shuffle(rows, seed=3)
        draws = tf.multinomial(tf.log([[0.2, 0.8], [0.7, 0.3]]), 4000, seed=5)
        assert shuffled.shape.as_list() == [6, 2] and draws.shape.as_list() == [2, 4000]
        with tf.Session() as sess:
            first, second, picks = sess.run(shuffled), sess.run(shuffled), sess.run(draws)
        with tf.Session() as sess:
            replay = sess.run(shuffled)
    # The same rows, each row kept whole; a new order every run; a new session replays the first.
    assert sorted(map(tuple, first)) == sorted(map(tuple, np.arange(12).reshape(6, 2)))
    assert not np.array_equal(first, second) and np.array_equal(first, replay)
    assert picks.dtype == np.int64 and set(np.unique(picks)) == {0, 1}
    np.testing.assert_allclose(picks.mean(axis=1), [0.8, 0.3], atol=0.03)
    with pytest.raises(ValueError, match="scalar"):
        tf.random_shuffle(tf.constant(1.0))


def test_dropout_keeps_and_scales():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 50])
        kept = tf.nn.dropout(x, keep_prob=0.5, seed=1)
        rate = tf.nn.dropout(x, rate=0.25, seed=2)
        assert kept.shape.as_list() == [None, 50] and kept.dtype is tf.float64
        with tf.Session() as sess:
            a, b = sess.run([kept, rate], {x: np.ones((200, 50))})
            again = sess.run(kept, {x: np.ones((200, 50))})
    assert set(np.unique(a)) == {0.0, 2.0} and abs((a == 0).mean() - 0.5) < 0.03
    np.testing.assert_allclose(np.unique(b), [0.0, 1 / 0.75])
    assert abs((b == 0).mean() - 0.25) < 0.03
    assert not np.array_equal(a, again)


# -- variables and grouping ---------------------------------------------------------------------


def test_variable_updates():
    init = R(2, 3)
    delta = R(2, 3)
    with tf.Graph().as_default() as g:
        v = tf.Variable(init, name="v")
        d = tf.placeholder(tf.float64, [2, 3])
        assign, add, sub = v.assign(d * 2), tf.assign_add(v, d), v.assign_sub(d)
        for t in (assign, add, sub):
            assert t.dtype is tf.float64 and t.shape.as_list() == [2, 3]
        assert {"VariableV2", "Assign", "AssignAdd", "AssignSub"} <= {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), init)
            np.testing.assert_array_equal(sess.run(assign, {d: delta}), delta * 2)
            np.testing.assert_array_equal(sess.run(add, {d: delta}), delta * 2 + delta)
            np.testing.assert_array_equal(sess.run(sub, {d: delta}), delta * 2 + delta - delta)
            got = sess.run(v)
    assert got.dtype == F64 and got.shape == (2, 3)
    np.testing.assert_array_equal(got, delta * 2 + delta - delta)


VARIABLE_SCATTERS = [
    # (primitive, builder, indices, updates, how a repeated index combines)
    ("ScatterSub", tf.scatter_sub, [2, 0, 2], R(3, 2), np.subtract),
    ("ScatterMul", tf.scatter_mul, [1, 1, 0], R(3, 2), np.multiply),
    ("ScatterDiv", tf.scatter_div, [0, 2, 0], P(3, 2), np.divide),
    ("ScatterMin", tf.scatter_min, [2, 2, 1], R(3, 2), np.minimum),
    ("ScatterMax", tf.scatter_max, [0, 1, 0], R(3, 2), np.maximum),
    ("ScatterNdUpdate", tf.scatter_nd_update, [[1, 0], [2, 1]], R(2), lambda old, new: new),
    ("ScatterNdAdd", tf.scatter_nd_add, [[1], [1], [0]], R(3, 2), np.add),
    ("ScatterNdSub", tf.scatter_nd_sub, [[2, 1], [0, 0], [2, 1]], R(3), np.subtract),
]


@pytest.mark.parametrize(
    "name,fn,indices,updates,combine", VARIABLE_SCATTERS, ids=[s[0] for s in VARIABLE_SCATTERS]
)
def test_variable_scatters(name, fn, indices, updates, combine):
    init = R(3, 2)
    expected = init.copy()
    for at, u in zip(indices, updates):  # one update after another, by hand
        at = tuple(at) if isinstance(at, list) else at
        expected[at] = combine(expected[at], u)
    with tf.Graph().as_default() as g:
        v = tf.Variable(init, name="v")
        u = tf.placeholder(tf.float64, updates.shape)
        new = fn(v, indices, u)
        assert name in {op.type for op in g.get_operations()}
        assert new.dtype is tf.float64 and new.shape.as_list() == [3, 2]
        with tf.Session() as sess:
            sess.run(v.initializer)
            got, after = sess.run(new, {u: updates}), sess.run(v)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_array_equal(after, got)


def test_no_op_and_group():
    with tf.Graph().as_default() as g:
        v = tf.Variable(1.0)
        step = tf.group(v.assign_add(2.0), tf.no_op())
        assert "NoOp" in {op.type for op in g.get_operations()}
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(step) is None
            assert sess.run(v) == 3.0


def test_aggregate_replicas_averages_the_replicas_it_is_given():
    from daskflow.framework.replica import PerReplica
    from daskflow.ops.replica_ops import AggregateReplicas

    values = [np.full((2, 2), v, np.float32) for v in (1.0, 2.0, 6.0)]
    kernel = AggregateReplicas.kernel
    mean = kernel(np, PerReplica(values), replicas_to_aggregate=3, total_num_replicas=3)
    np.testing.assert_array_equal(mean, np.full((2, 2), 3.0))
    assert mean.dtype == np.float32
    first_two = kernel(np, PerReplica(values[:2]), replicas_to_aggregate=2, total_num_replicas=3)
    np.testing.assert_array_equal(first_two, np.full((2, 2), 1.5))
    one = kernel(np, PerReplica(values[2:]), replicas_to_aggregate=1, total_num_replicas=3)
    np.testing.assert_array_equal(one, values[2])
    for value, v in zip(values, (1.0, 2.0, 6.0)):  # the mean is made in its own array
        np.testing.assert_array_equal(value, np.full((2, 2), v))


def test_aggregate_replicas_sums_into_only_its_own_copies_and_only_when_told_its_input_is_dead():
    from daskflow.framework.replica import PerReplica
    from daskflow.ops.replica_ops import AggregateReplicas

    def mean(own, donate, read_only=()):
        values = [np.full((2, 2), v, np.float32) for v in (1.0, 2.0, 6.0)]
        for i in read_only:
            values[i].flags.writeable = False
        out = AggregateReplicas.kernel(
            np, PerReplica(values, own), replicas_to_aggregate=3, total_num_replicas=3, donate=donate
        )
        np.testing.assert_array_equal(out, np.full((2, 2), 3.0))
        return [i for i, v in enumerate(values) if v is out], [v[0, 0] for v in values]

    assert mean([True] * 3, donate=True) == ([0], [3.0, 2.0, 6.0])  # written into the first
    assert mean([False, True, True], donate=True) == ([1], [1.0, 3.0, 6.0])
    assert mean([True] * 3, donate=True, read_only=[0]) == ([1], [1.0, 3.0, 6.0])
    untouched = ([], [1.0, 2.0, 6.0])
    assert mean([True] * 3, donate=False) == untouched  # another op reads them
    assert mean([False] * 3, donate=True) == untouched  # this process's values may be held elsewhere
    assert mean(None, donate=True) == untouched
    whole = np.ones((2, 4), np.float32)
    view_first = [whole[:, :2], np.full((2, 2), 2.0, np.float32)]  # a view may share its buffer
    out = AggregateReplicas.kernel(
        np, PerReplica(view_first, [True, True]), replicas_to_aggregate=2, total_num_replicas=2, donate=True
    )
    assert out is view_first[1] and (whole == 1.0).all() and (out == 1.5).all()
    odd = [np.ones((2, 2), np.float32), np.ones((1, 2), np.float32)]  # broadcasting: a new array
    out = AggregateReplicas.kernel(
        np, PerReplica(odd, [True, True]), replicas_to_aggregate=2, total_num_replicas=2, donate=True
    )
    assert out.shape == (2, 2) and not any(out is v for v in odd)


@pytest.mark.parametrize(
    "shape,target,transpose",
    [
        ((32, 16, 16, 3), (3,), False),  # a bias gradient (>= BLAS_SUM_MIN elements): BLAS path
        ((32, 16, 16, 3), (1, 16, 3), False),
        ((6, 5, 4, 3), (3,), False),  # small: numpy's sum
        ((6, 5, 4, 3), (5, 1, 3), False),  # an inner axis too: numpy's sum
        ((4, 7), (4,), True),  # not C-contiguous: numpy's sum
        ((6, 5), (), False),  # a full sum: numpy's sum
    ],
)
@pytest.mark.parametrize("dtype", [F32, F64, I32])
def test_reduce_to_kernel_sums_broadcast_axes(shape, target, transpose, dtype):
    from daskflow.ops.core_array_ops import _reduce_to_kernel

    y = (rng.integers(-50, 50, shape) + (rng.standard_normal(shape) if dtype != I32 else 0)).astype(dtype)
    if transpose:
        y = y.T
    got = _reduce_to_kernel(np, y, np.array(target, dtype=np.int64), axes=())
    lead = y.ndim - len(target)
    want = y.astype(np.float64).sum(axis=tuple(range(lead)))
    kept_ones = tuple(i for i, d in enumerate(target) if d == 1 and want.shape[i] != 1)
    want = want.sum(axis=kept_ones, keepdims=True)
    assert got.shape == target
    assert got.dtype == dtype or dtype == I32  # numpy sums int32 as int64 (as before this path)
    # float32 sums of terms that cancel: bound the error by the terms' magnitude, not the sum's
    atol = 1e-6 * np.abs(y.astype(np.float64)).sum() if dtype == F32 else 0
    np.testing.assert_allclose(got, want.reshape(target), rtol=1e-5 if dtype == F32 else 1e-12, atol=atol)
