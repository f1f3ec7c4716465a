"""Symbolic gradients against central finite differences, in float64.

Each :class:`GradCase` builds ``ys`` from placeholders. The symbolic vector-
Jacobian product ``gradients(ys, xs, grad_ys=w)`` for random weights ``w``
must equal the central difference of ``sum(w * ys)``, computed by running the
forward graph in the same session with perturbed feeds. Every case is also
built with a ``None`` leading (batch) dimension, whose symbolic gradient must
give the same numbers (that exercises the dynamic-shape paths of the rules).
Second-order cases differentiate a first-order gradient graph the same way,
so the gradient rules of the internal gradient primitives are checked too.
``test_every_gradient_rule_is_checked`` fails when a primitive with a gradient
rule lies on no checked path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import daskflow as tf
from daskflow.framework.primitive import PRIMITIVES
from daskflow.gradients import _between
from daskflow.ops import check_ops, clip_ops, linalg_ops, rnn_ops, segment_ops, segment_reduce_ops, sort_ops
from daskflow.ops.higher_order_ops import map_fn, scan
from daskflow.ops.tensor_array_ops import TensorArray

rng = np.random.default_rng(1)
EPS = 1e-6
TOL = dict(rtol=1e-6, atol=1e-7)


def R(*shape):
    return rng.standard_normal(shape)


def P(*shape):
    """Positive, away from zero (log, sqrt, division, pow's base)."""
    return rng.uniform(0.5, 2.0, shape)


def Away(*shape, margin=0.1):
    """Normal values at least ``margin`` from zero (kinks of relu, abs, sign...)."""
    v = rng.standard_normal(shape)
    return np.where(v >= 0, v + margin, v - margin)


def U(*shape, lo, hi):
    """Uniform values in ``(lo, hi)``: inside a domain such as acos' (-1, 1)."""
    return rng.uniform(lo, hi, shape)


def Distinct(*shape):
    """A permutation of spread-out values: no ties for max, min and pooling."""
    n = int(np.prod(shape))
    return rng.permutation(np.linspace(-2, 2, n)).reshape(shape) + rng.uniform(-0.01, 0.01, shape)


@dataclass
class GradCase:
    id: str
    build: Callable  # (*input tensors) -> Tensor or list of Tensors
    inputs: list  # float arrays are differentiated; others are fed and held fixed
    batch: tuple | None = None  # inputs given a None leading dim (default: all of rank >= 1)
    eps: float = EPS
    tol: dict | None = None


def grad_of(f):
    """A builder for the first-order gradient of ``f`` w.r.t. its float inputs.

    The weights ``w`` are drawn once (from the fully shaped build) and reused by
    the batch build, so both differentiate the same function.
    """
    weights = {}

    def build(*xs):
        ys = _as_list(f(*xs))
        for i, y in enumerate(ys):
            if i not in weights:
                weights[i] = R(*y.shape.as_list())
        ws = [weights[i] for i in range(len(ys))]
        grads = tf.gradients(ys, [x for x in xs if x.dtype.is_floating], grad_ys=ws)
        return [g for g in grads if g is not None]

    return build


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _conv(s, padding):
    return lambda x, w: tf.nn.conv2d(x, w, strides=[1, s, s, 1], padding=padding)


def _pool(fn, k, s, padding):
    return lambda x: fn(x, ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)


def _ta_loop(x, y):
    """A TensorArray read and one written in a loop, stacked."""
    n = x.shape[0].value if x.shape[0].value is not None else tf.shape(x)[0]
    ta_in = TensorArray(x.dtype, size=n).unstack(x)

    def body(i, h, ta):
        h = tf.sin(ta_in.read(i)) * y + h
        return i + 1, h, ta.write(i, h * h)

    _, _, ta = tf.while_loop(
        lambda i, h, ta: i < n, body, [0, tf.zeros_like(y), TensorArray(x.dtype, size=n)]
    )
    return ta.stack()


def _ta_scatter(x, y):
    ta = TensorArray(x.dtype, size=4, element_shape=[3]).scatter([2, 0], x).write(1, x[0] * y)
    return [ta.gather([0, 2, 1, 2]), ta.read(2) * y, ta.concat()]


LABELS = np.exp(R(3, 4))
LABELS /= LABELS.sum(-1, keepdims=True)
COND = rng.random((3, 1)) < 0.5
BETAINC_B = P(2, 3) + 0.5


def _hvd():
    """``daskflow.horovod``, initialized: alone, this process is the job's one rank."""
    import daskflow.horovod as hvd

    hvd.init()
    return hvd


CASES = [
    # elementwise binary, with broadcasting
    GradCase("add_bcast", tf.add, [R(3, 1), R(4)]),
    GradCase("sub_bcast", tf.subtract, [R(2, 3), R(3)]),
    GradCase("mul_bcast", lambda x, y: x * y, [R(2, 3), R(3)]),
    GradCase("mul_scalar_matrix", lambda s, x: s * x, [R(), R(2, 3)]),
    GradCase("mul_rank3_bcast", lambda x, y: x * y, [R(2, 1, 3), R(4, 1)]),
    GradCase("div_bcast", lambda x, y: x / y, [R(2, 3), P(2, 1)]),
    GradCase("div_python_scalar", lambda x: 3.0 / x, [P(2, 3)]),
    GradCase("pow", tf.pow, [P(2, 3), R(3)]),
    GradCase("pow_const_exponent", lambda x: x**3.0, [R(2, 3)]),
    GradCase("maximum", tf.maximum, [Distinct(2, 3), Distinct(3)]),
    GradCase("minimum", tf.minimum, [Distinct(2, 3), Distinct(2, 1)]),
    GradCase("floormod", tf.floormod, [R(2, 3) * 3, P(3)]),
    GradCase("where_bcast", tf.where, [COND, R(3, 4), R(4)]),
    GradCase("add_n", lambda a, b, c: tf.add_n([a, b, c * c]), [R(2, 3), R(2, 3), R(2, 3)]),
    # Collectives of one rank: Horovod's gradient rules (a reduction of the gradient) on it.
    GradCase("horovod_allreduce", lambda x: _hvd().allreduce(x * x), [R(2, 3)]),
    GradCase(
        "horovod_grouped_allreduce", lambda x, y: _hvd().grouped_allreduce([x * y, y])[0], [R(2, 3), R(3)]
    ),
    GradCase("horovod_allgather", lambda x: tf.reshape(_hvd().allgather(tf.sin(x)), [3, 2]), [R(3, 2)]),
    GradCase("horovod_broadcast", lambda x: _hvd().broadcast(x * x, 0), [R(2, 3)]),
    # elementwise unary
    GradCase("neg", lambda x: -x, [R(2, 3)]),
    GradCase("abs", tf.abs, [Away(2, 3)]),
    GradCase("square", tf.square, [R(2, 3)]),
    GradCase("exp", tf.exp, [R(2, 3)]),
    GradCase("log", tf.log, [P(2, 3)]),
    GradCase("sqrt", tf.sqrt, [P(2, 3)]),
    GradCase("rsqrt", tf.rsqrt, [P(2, 3)]),
    GradCase("reciprocal", tf.reciprocal, [P(2, 3)]),
    GradCase("tanh", tf.tanh, [R(2, 3)]),
    GradCase("cos", tf.cos, [R(2, 3)]),
    GradCase("sin", tf.sin, [R(2, 3)]),
    # Resizing computes in float32, as TF's: a wide step (exact for this quadratic) and float32's tolerance.
    GradCase(
        "resize_bilinear",
        lambda x: tf.cast(tf.image.resize_bilinear(x, [5, 3]), tf.float64) ** 2,
        [R(2, 3, 4, 2)],
        eps=1e-2,
        tol=dict(rtol=1e-4, atol=1e-4),
    ),
    # Nearest-neighbour resizing copies pixels: linear in them, exact for any step.
    GradCase("resize_nearest_up", lambda x: tf.image.resize_nearest_neighbor(x, [5, 7]), [R(2, 3, 4, 2)]),
    GradCase("resize_nearest_down", lambda x: tf.image.resize_nearest_neighbor(x, [3, 2]), [R(2, 5, 6, 1)]),
    GradCase(
        "resize_nearest_aligned",
        lambda x: tf.image.resize_nearest_neighbor(x, [5, 3], align_corners=True),
        [R(1, 3, 4, 2)],
    ),
    GradCase(
        "cond",
        lambda x, y: tf.cond(tf.reduce_sum(y) > -1e9, lambda: tf.sin(x) * y, lambda: x),
        [R(2, 3), R(3)],
    ),
    GradCase(
        "while_loop",
        lambda x, y: tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * y), [0, x])[1],
        [R(2, 3), R(3)],
    ),
    # TF's fused recurrent cells: the new cell state and output (the gates are not differentiated)
    GradCase(
        "lstm_block_cell",
        lambda x, c, h, w, b: rnn_ops.lstm_block_cell(x, c, h, w, b, forget_bias=0.5)[1::5],
        [R(2, 3), R(2, 4), R(2, 4), R(7, 16), R(16)],
    ),
    GradCase(
        "lstm_block_cell_peepholes",
        lambda x, c, h, w, b, i, f, o: rnn_ops.lstm_block_cell(x, c, h, w, b, i, f, o)[1::5],
        [R(2, 3), R(2, 4), R(2, 4), R(7, 16), R(16), R(4), R(4), R(4)],
    ),
    GradCase(
        "gru_block_cell",
        lambda x, h, w_ru, w_c, b_ru, b_c: rnn_ops.gru_block_cell(x, h, w_ru, w_c, b_ru, b_c)[3],
        [R(2, 3), R(2, 4), R(7, 8), R(7, 4), R(8), R(4)],
    ),
    # TensorArrays in and out of loops; map_fn and scan are loops over them
    GradCase("tensor_array_loop", lambda x, y: _ta_loop(x, y), [R(4, 3), R(3)]),
    GradCase("tensor_array_scatter_gather_concat", lambda x, y: _ta_scatter(x, y), [R(2, 3), R(3)]),
    GradCase("map_fn", lambda x, y: map_fn(lambda r: tf.sin(r) * y, x), [R(4, 3), R(3)]),
    GradCase(
        "scan_reverse",
        lambda x, y: scan(lambda a, r: tf.tanh(a * y + r), x, initializer=y, reverse=True),
        [R(4, 3), R(3)],
    ),
    GradCase("sigmoid", tf.sigmoid, [R(2, 3) * 3]),
    GradCase("relu", tf.nn.relu, [Away(2, 3)]),
    GradCase("softplus", tf.nn.softplus, [R(2, 3) * 3]),
    GradCase("elu", tf.nn.elu, [Away(2, 3)]),
    GradCase("selu", tf.nn.selu, [Away(2, 3)]),
    GradCase("relu6", lambda x: tf.nn.relu6(x * 4.0), [Away(2, 3)]),
    GradCase("leaky_relu", lambda x: tf.nn.leaky_relu(x, alpha=0.3), [Away(2, 3)]),
    GradCase("log1p", tf.log1p, [P(2, 3)]),
    GradCase(
        "piecewise_constant",
        lambda x: tf.sign(x) + tf.floor(x) + tf.ceil(x) + tf.round(x),
        [Away(2, 3) + 0.25],
    ),
    GradCase(
        "clip_by_value",
        lambda x: tf.clip_by_value(x, -0.5, 0.5),
        [Away(3, 4) + np.array([0.4, -0.4, 0.8, -0.8])],
    ),
    GradCase("identity", tf.identity, [R(2, 3)]),
    GradCase("check_numerics", lambda x: tf.check_numerics(x * x, "x"), [R(2, 3)]),
    GradCase("placeholder_with_default", lambda x: tf.placeholder_with_default(x, [None, 3]) * x, [R(2, 3)]),
    # finite differences see through stop_gradient: stop a path that is flat anyway
    GradCase("stop_gradient", lambda x: x + tf.stop_gradient(tf.floor(x)), [Away(2, 3) + 0.25]),
    # cast through float32 rounds, so differences need a larger step and a looser tolerance
    GradCase(
        "cast",
        lambda x: tf.cast(tf.cast(x, tf.float32) * 3.0, tf.float64),
        [R(2, 3)],
        eps=1e-2,
        tol=dict(rtol=1e-4, atol=1e-4),
    ),
    # reductions
    GradCase("reduce_sum_all", tf.reduce_sum, [R(2, 3)]),
    GradCase("reduce_sum_axis_keepdims", lambda x: tf.reduce_sum(x, axis=1, keepdims=True), [R(2, 3)]),
    GradCase("reduce_sum_axes", lambda x: tf.reduce_sum(x, [0, 2]), [R(2, 3, 4)]),
    GradCase("reduce_mean_axis", lambda x: tf.reduce_mean(x, 0), [R(3, 4)]),
    GradCase("reduce_mean_keepdims", lambda x: tf.reduce_mean(x, -1, keepdims=True), [R(3, 4)]),
    GradCase("reduce_mean_all", tf.reduce_mean, [R(3, 4)]),
    GradCase("reduce_max_axis", lambda x: tf.reduce_max(x, 1), [Distinct(3, 4)]),
    GradCase("reduce_min_keepdims", lambda x: tf.reduce_min(x, 0, keepdims=True), [Distinct(3, 4)]),
    GradCase("reduce_max_all", tf.reduce_max, [Distinct(3, 4)]),
    GradCase("reduce_prod_axis", lambda x: tf.reduce_prod(x, 1), [Away(3, 4)]),
    GradCase("reduce_prod_all_keepdims", lambda x: tf.reduce_prod(x, keepdims=True), [P(2, 3)]),
    # matmul
    GradCase("matmul", tf.matmul, [R(2, 3), R(3, 4)]),
    GradCase(
        "matmul_transpose_a", lambda a, b: tf.matmul(a, b, transpose_a=True), [R(3, 2), R(3, 4)], batch=(1,)
    ),
    GradCase("matmul_transpose_b", lambda a, b: tf.matmul(a, b, transpose_b=True), [R(2, 3), R(4, 3)]),
    GradCase(
        "matmul_transpose_both",
        lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
        [R(3, 2), R(4, 3)],
    ),
    GradCase("matmul_batched", tf.matmul, [R(2, 3, 4), R(2, 4, 2)]),
    GradCase("matmul_broadcast_batch", tf.matmul, [R(3, 4), R(2, 4, 2)]),
    GradCase("xw_plus_b", tf.nn.xw_plus_b, [R(2, 3), R(3, 4), R(4)], batch=(0,)),
    GradCase("bias_add", tf.nn.bias_add, [R(2, 3, 4), R(4)], batch=(0,)),
    # softmax and losses
    GradCase("softmax", tf.nn.softmax, [R(3, 4)]),
    GradCase("softmax_axis0", lambda x: tf.nn.softmax(x, axis=0), [R(3, 4)]),
    GradCase("log_softmax", tf.nn.log_softmax, [R(3, 4)]),
    GradCase(
        "xent_v2",
        lambda y, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x),
        [LABELS, R(3, 4)],
    ),
    GradCase(
        "xent_v1",
        lambda x: tf.nn.softmax_cross_entropy_with_logits(labels=LABELS, logits=x),
        [R(3, 4)],
        batch=(),
    ),
    GradCase(
        "sparse_xent",
        lambda i, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=i, logits=x),
        [np.array([0, 3, 1], np.int32), R(3, 4)],
    ),
    GradCase(
        "sigmoid_xent",
        lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        [rng.random((3, 4)), Away(3, 4) * 3],
    ),
    GradCase("l2_loss", tf.nn.l2_loss, [R(3, 4)]),
    GradCase("moments", lambda x: list(tf.nn.moments(x, [0])), [R(4, 3)]),
    # convolution and pooling
    *[
        GradCase(f"conv2d_{p}_s{s}", _conv(s, p), [R(2, 5, 6, 2), R(3, 2, 2, 3)], batch=(0,))
        for p in ("SAME", "VALID")
        for s in (1, 2)
    ],
    GradCase("conv2d_SAME_s2_even", _conv(2, "SAME"), [R(1, 6, 4, 1), R(2, 3, 1, 2)], batch=(0,)),
    *[
        GradCase(f"{fn.__name__}_{p}_k{k}_s2", _pool(fn, k, 2, p), [Distinct(2, 5, 6, 2)])
        for fn in (tf.nn.max_pool, tf.nn.avg_pool)
        for p in ("SAME", "VALID")
        for k in (2, 3)
    ],
    # arrays
    GradCase("concat", lambda a, b: tf.concat([a, b], axis=1), [R(2, 3), R(2, 1)]),
    GradCase("concat_axis0", lambda a, b: tf.concat([a, b], axis=0), [R(2, 3), R(1, 3)]),
    GradCase("split_partly_used", lambda x: tf.split(x, [1, 2, 3], axis=1)[::2], [R(2, 6)]),
    GradCase("split_dynamic_axis", lambda x: tf.split(x, 2, axis=0), [R(4, 3)]),
    GradCase("stack", lambda a, b: tf.stack([a, b], axis=1), [R(2, 3), R(2, 3)]),
    GradCase("unstack", lambda x: tf.unstack(x, axis=1), [R(2, 3)]),
    GradCase("gather_repeated", lambda p, i: tf.gather(p, i), [R(3, 2), np.array([2, 0, 2, 2], np.int32)]),
    GradCase(
        "gather_axis1_2d_idx",
        lambda p, i: tf.gather(p, i, axis=1),
        [R(2, 3), np.array([[0, 2], [1, 1]], np.int64)],
    ),
    GradCase("slice", lambda x: tf.slice(x, [0, 1], [2, -1]), [R(3, 4)]),
    GradCase("cholesky", lambda x: tf.cholesky(tf.matmul(x, x, transpose_b=True) + 3 * np.eye(3)), [R(3, 3)]),
    GradCase(
        "self_adjoint_eig",
        lambda x: [e * e for e in tf.self_adjoint_eig(x + tf.matrix_transpose(x) + np.diag([0.0, 3.0, 6.0]))],
        [R(3, 3)],
    ),
    GradCase("cross", tf.cross, [R(2, 3), R(2, 3)]),
    GradCase("tan", tf.tan, [R(2, 3)]),
    GradCase("matrix_solve", tf.matrix_solve, [R(2, 3, 3) + 3 * np.eye(3), R(2, 3, 2)]),
    GradCase(
        "matrix_solve_adjoint",
        lambda a, b: tf.matrix_solve(a, b, adjoint=True),
        [R(3, 3) + 3 * np.eye(3), R(3, 2)],
    ),
    GradCase("triangular_solve", tf.matrix_triangular_solve, [R(3, 3) + 3 * np.eye(3), R(3, 2)]),
    GradCase(
        "triangular_solve_upper_adjoint",
        lambda a, b: tf.matrix_triangular_solve(a, b, lower=False, adjoint=True),
        [R(3, 3) + 3 * np.eye(3), R(3, 2)],
    ),
    GradCase("getitem_slices", lambda x: x[1:, ::2], [R(3, 5)]),
    GradCase("getitem_int_ellipsis", lambda x: x[..., 1], [R(2, 3, 4)]),
    GradCase("getitem_newaxis_reverse", lambda x: x[None, ::-1, -1], [R(3, 4)]),
    GradCase("tile", lambda x: tf.tile(x, [2, 3]), [R(2, 3)]),
    GradCase("reverse", lambda x: tf.reverse(x, [1]) * tf.constant([1.0, 2.0, 3.0], tf.float64), [R(2, 3)]),
    GradCase("cumprod", lambda x: tf.cumprod(x, 1) * tf.constant([1.0, 2.0, 3.0], tf.float64), [P(2, 3)]),
    GradCase(
        "cumprod_exclusive_reverse", lambda x: tf.cumprod(x, 0, exclusive=True, reverse=True), [P(3, 2)]
    ),
    GradCase("cumsum", lambda x: tf.cumsum(x, 1) * tf.constant([1.0, 2.0, 3.0], tf.float64), [R(2, 3)]),
    GradCase(
        "cumsum_exclusive_reverse", lambda x: tf.cumsum(x, 0, exclusive=True, reverse=True) ** 2, [R(3, 2)]
    ),
    GradCase("pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), [R(2, 3)]),
    GradCase("reshape", lambda x: tf.reshape(x, [-1, 3]), [R(4, 6)]),
    GradCase("transpose", lambda x: tf.transpose(x, [1, 2, 0]), [R(2, 3, 4)]),
    GradCase("expand_dims", lambda x: tf.expand_dims(x, 1), [R(2, 3)]),
    GradCase("squeeze", lambda x: tf.squeeze(x, [1]), [R(2, 1, 3)]),
    GradCase("broadcast_to", lambda x: tf.broadcast_to(x, [2, 3, 4]), [R(3, 1)]),
    GradCase("fill_value", lambda v: tf.fill([2, 3], v), [R()]),
    # clip, sort, linalg and segment ops (daskflow/ops/*_ops.py)
    GradCase("clip_by_norm", lambda x: clip_ops.clip_by_norm(x, 1.0, axes=[1]), [R(3, 4)]),
    GradCase(
        "clip_by_global_norm",
        lambda x, y: clip_ops.clip_by_global_norm([x, None, y], 1.0)[0][::2],
        [R(2, 3), R(4)],
    ),
    GradCase("top_k", lambda x: sort_ops.top_k(x, 2)[0], [Distinct(3, 5)]),
    GradCase("sort_axis0", lambda x: sort_ops.sort(x, axis=0, direction="DESCENDING"), [Distinct(3, 4)]),
    GradCase("diag", linalg_ops.diag, [R(2, 3)]),
    GradCase("diag_part", linalg_ops.diag_part, [R(2, 3, 2, 3)]),
    GradCase("matrix_diag", linalg_ops.matrix_diag, [R(2, 3)]),
    GradCase("matrix_diag_part_tall", linalg_ops.matrix_diag_part, [R(2, 4, 3)]),
    GradCase("matrix_diag_part_wide", linalg_ops.matrix_diag_part, [R(2, 3, 4)]),
    GradCase("matrix_band_part", lambda x: linalg_ops.matrix_band_part(x, 1, 0), [R(2, 4, 3)]),
    GradCase("matrix_inverse", linalg_ops.matrix_inverse, [R(2, 3, 3) + 3 * np.eye(3)]),
    GradCase("matrix_determinant", linalg_ops.matrix_determinant, [R(2, 3, 3)]),
    GradCase("einsum_matmul", lambda a, b: linalg_ops.einsum("ij,jk->ik", a, b), [R(2, 3), R(3, 4)]),
    GradCase("einsum_summed_alone", lambda a, b: linalg_ops.einsum("ij,k->ik", a, b), [R(2, 3), R(4)]),
    GradCase("einsum_one_operand", lambda a: linalg_ops.einsum("ij->j", a), [R(2, 3)]),
    GradCase(
        "einsum_three",
        lambda a, b, c: linalg_ops.einsum("ij,jk,kl->il", a, b, c),
        [R(2, 3), R(3, 4), R(4, 2)],
    ),
    GradCase(
        "tensordot",
        lambda a, b: linalg_ops.tensordot(a, b, [[0, 2], [1, 0]]),
        [R(2, 3, 4), R(4, 2, 5)],
        batch=(),
    ),
    GradCase("norm_axis", lambda x: linalg_ops.norm(x, axis=1), [R(3, 4)]),
    GradCase(
        "unsorted_segment_sum",
        lambda x, i: segment_ops.unsorted_segment_sum(x, i, 3),
        [R(4, 2), np.array([2, -1, 0, 2], np.int32)],
    ),
    # The number of segments is known only when run: reshape tells the harness the output's shape.
    GradCase(
        "segment_sum",
        lambda x, i: tf.reshape(segment_ops.segment_sum(x, i), [4, 2]),
        [R(4, 2), np.array([0, 0, 1, 3], np.int32)],
    ),
    GradCase(
        "segment_mean",
        lambda x, i: tf.reshape(segment_ops.segment_mean(x, i), [4, 2]),
        [R(4, 2), np.array([0, 0, 1, 3], np.int32)],
    ),
    GradCase(
        "unsorted_segment_max",
        lambda x, i: segment_ops.unsorted_segment_max(x, i, 3),
        [Distinct(4, 2), np.array([2, 0, 1, 2], np.int32)],
    ),
    GradCase(
        "sparse_to_dense",
        lambda v, d: tf.sparse_to_dense([[0, 1], [2, 0]], [3, 2], v, default_value=d),
        [R(2), R()],
    ),
    GradCase(
        "sparse_tensor_dense_matmul",
        lambda v, b: tf.sparse_tensor_dense_matmul(tf.SparseTensor([[0, 1], [2, 0], [2, 2]], v, [3, 3]), b),
        [R(3), R(3, 4)],
        batch=(),
    ),
    GradCase(
        "sparse_tensor_dense_matmul_adjoints",
        lambda v, b: tf.sparse_tensor_dense_matmul(
            tf.SparseTensor([[0, 1], [2, 0], [1, 2]], v, [3, 3]), b, adjoint_a=True, adjoint_b=True
        ),
        [R(3), R(4, 3)],
        batch=(),
    ),
    GradCase(
        "sparse_add",
        lambda a, b: (
            tf.sparse_add(
                tf.SparseTensor([[0, 1], [2, 0]], a, [3, 2]), tf.SparseTensor([[1, 1], [2, 0]], b, [3, 2])
            ).values
            * np.ones(3)  # the union's three entries
        ),
        [R(2), R(2)],
        batch=(),
    ),
    GradCase(
        "sparse_softmax",
        lambda v: tf.sparse_softmax(tf.SparseTensor([[0, 0], [0, 2], [1, 1]], v, [2, 3])).values,
        [R(3)],
        batch=(),
    ),
    GradCase(
        "transpose_unknown_rank",
        lambda x: tf.reshape(tf.transpose(tf.placeholder_with_default(x, None)), [4, 3, 2]),
        [R(2, 3, 4)],
    ),
    GradCase(
        "matrix_transpose_unknown_rank",
        lambda x: tf.reshape(tf.matrix_transpose(tf.placeholder_with_default(x, None)), [2, 4, 3]),
        [R(2, 3, 4)],
    ),
    GradCase(
        "softmax_xent_unknown_rank",
        lambda x, y: tf.reshape(
            tf.nn.softmax_cross_entropy_with_logits_v2(
                labels=tf.placeholder_with_default(y, None), logits=tf.placeholder_with_default(x, None)
            ),
            [2, 3],
        ),
        [R(2, 3, 4), np.stack([LABELS[:3], LABELS[::-1]])],  # labels of rows summing to one
    ),
    GradCase("gather_nd", segment_ops.gather_nd, [R(3, 4), np.array([[1, 0], [2, 3], [1, 0]], np.int32)]),
    GradCase(
        "scatter_nd",
        lambda i, u: segment_ops.scatter_nd(i, u, [4, 2]),
        [np.array([[1], [0], [1]], np.int32), R(3, 2)],
    ),
    # Sorted segment reductions: reshape tells the harness the output's shape (known only when run).
    GradCase(
        "segment_prod",
        lambda x, i: tf.reshape(segment_reduce_ops.segment_prod(x, i), [4, 2]),
        [
            np.array([[0.0, 1.5], [0.7, 0.0], [-1.2, 0.0], [0.9, 1.1], [1.3, -0.8]]),
            np.array([0, 0, 0, 1, 3], np.int32),
        ],
    ),
    GradCase(
        "segment_min",
        lambda x, i: tf.reshape(segment_reduce_ops.segment_min(x, i), [3, 2]),
        [Distinct(4, 2), np.array([0, 0, 2, 2], np.int32)],
    ),
    GradCase(
        "segment_max",
        lambda x, i: tf.reshape(segment_reduce_ops.segment_max(x, i), [3, 2]),
        [Distinct(4, 2), np.array([0, 1, 1, 2], np.int32)],
    ),
    GradCase(
        "reverse_sequence",
        lambda x, n: tf.reverse_sequence(x, n, seq_axis=1) * x,
        [R(3, 4, 2), np.array([4, 1, 2], np.int64)],
    ),
    GradCase("svd_values", lambda x: tf.svd(x, compute_uv=False), [R(2, 4, 3)]),
    GradCase("svd_full_matrices_s", lambda x: tf.svd(x, full_matrices=True)[0], [R(3, 2)], batch=()),
    GradCase(
        "dynamic_partition",
        lambda x, p: [tf.reshape(t, [n, 2]) for t, n in zip(tf.dynamic_partition(x, p, 3), [1, 0, 3])],
        [R(4, 2), np.array([2, 0, 2, 2], np.int32)],
    ),
    GradCase(
        "dynamic_stitch",
        lambda a, b, i: tf.reshape(tf.dynamic_stitch([i, [3, 0]], [a, b]), [4, 2]),
        [R(2, 2), R(2, 2), np.array([1, 2], np.int32)],
    ),
    GradCase(
        "print", lambda x: check_ops.Print(x, [x], "test_gradients print: ", first_n=1) * 2.0, [R(2, 3)]
    ),
    # TF1's remaining elementwise math (daskflow/ops/special_math_ops.py)
    GradCase("acos_asin_atanh", lambda x: [tf.acos(x), tf.asin(x), tf.atanh(x)], [U(2, 3, lo=-0.8, hi=0.8)]),
    GradCase("acosh", tf.acosh, [P(2, 3) + 1]),
    GradCase("asinh_atan_cosh_sinh", lambda x: [tf.asinh(x), tf.atan(x), tf.cosh(x), tf.sinh(x)], [R(2, 3)]),
    GradCase("expm1", tf.expm1, [R(2, 3)]),
    GradCase("rint", lambda x: tf.rint(x) * 3.0 + x, [Away(2, 3) + 0.25]),  # flat: x's own path only
    GradCase("atan2", tf.atan2, [R(2, 3), Away(3)]),
    GradCase("div_no_nan", tf.div_no_nan, [R(2, 3), P(3) * np.array([1.0, -1.0, 1.0])]),
    GradCase("erf_erfc", lambda x: [tf.erf(x), tf.erfc(x)], [R(2, 3)]),
    GradCase("lgamma_digamma", lambda x: [tf.lgamma(x), tf.digamma(x)], [P(2, 3)]),
    # the order and the exponent are not differentiated (TF1's rules give None): constants here
    GradCase("polygamma", lambda x: tf.polygamma(np.array([0.0, 1.0, 2.0]), x), [P(2, 3)]),
    GradCase("zeta", lambda q: tf.zeta(np.array([2.0, 3.0, 4.5]), q), [P(2, 3) + 0.5]),
    GradCase("igamma_igammac", lambda a, x: [tf.igamma(a, x), tf.igammac(a, x)], [P(2, 3) + 0.5, P(2, 3)]),
    GradCase(
        "betainc_x",
        lambda x: tf.betainc(tf.constant(2.5, tf.float64), BETAINC_B, x),
        [U(2, 3, lo=0.2, hi=0.8)],
        batch=(),  # betainc's inputs that are not scalars share one shape
    ),
    # linear algebra (daskflow/ops/linalg_qr_ops.py): q and r are smooth where r's diagonal is
    # away from zero, which a matrix of full rank gives
    GradCase("qr_tall", lambda x: list(tf.qr(x)), [R(2, 4, 3)]),
    GradCase("qr_square", lambda x: list(tf.qr(x)), [R(2, 3, 3)]),
    GradCase("qr_wide", lambda x: list(tf.qr(x)), [R(2, 3, 5)]),
    GradCase("qr_r_only", lambda x: tf.qr(x)[1], [R(2, 4, 3)]),
    GradCase("matrix_set_diag", tf.matrix_set_diag, [R(2, 3, 4), R(2, 3)]),
    # array functions (daskflow/ops/array_extra_ops.py)
    GradCase("roll", lambda x: tf.roll(x, [1, -2], [0, 1]), [R(3, 4)]),
    GradCase("repeat_scalar", lambda x: tf.repeat(x, 2, axis=1), [R(3, 2)]),
    GradCase("repeat_vector", lambda x: tf.reshape(tf.repeat(x, [2, 0, 3], axis=0), [5, 2]), [R(3, 2)]),
    GradCase(
        "batch_gather_repeated",
        tf.batch_gather,
        [R(2, 3, 2), np.array([[2, 0, 2], [1, 1, 0]], np.int32)],
    ),
    GradCase("ensure_shape", lambda x: tf.ensure_shape(x, [None, 3]) * x, [R(2, 3)]),
    GradCase("identity_n", lambda a, b: tf.identity_n([a, b * b]), [R(2, 3), R(3)]),
    GradCase("where_v2", tf.where_v2, [COND, R(4), R(3, 4)]),
    GradCase(
        "tile_fed_multiples",
        lambda x, m: tf.reshape(tf.tile(x, m), [6, 6]),
        [R(3, 2), np.array([2, 3], np.int32)],
        batch=(0,),
    ),
    # segments and scatters (daskflow/ops/segment_extra_ops.py, scatter_extra_ops.py)
    GradCase(
        "unsorted_segment_min",
        lambda x, i: tf.unsorted_segment_min(x, i, 3),
        # no empty segment: its value, the dtype's largest, would overflow the weighted sum
        [Distinct(5, 2), np.array([2, 0, 2, -1, 1], np.int32)],
    ),
    # A product is linear in each entry, so finite differences hold at zeros too: one zero in a
    # segment gets the others' product, two zeros give zeros; the dropped (-1) row gets 0.
    GradCase(
        "unsorted_segment_prod",
        lambda x, i: tf.unsorted_segment_prod(x, i, 3),
        [
            np.array([[0.0, 1.5], [0.7, 0.0], [-1.2, 0.8], [0.9, 1.1], [1.3, 0.0]]),
            np.array([0, 0, 2, -1, 0], np.int32),
        ],
    ),
    *[
        GradCase(
            f"tensor_scatter_nd_{mode}",
            lambda t, i, u, mode=mode: getattr(tf, f"tensor_scatter_nd_{mode}")(t, i, u),
            # no ties between an entry and its updates: min and max are smooth there
            [
                Distinct(4, 3),
                np.array([[1], [3], [1]] if mode != "update" else [[1], [3], [0]], np.int32),
                Distinct(3, 3) + 0.005,
            ],
        )
        for mode in ("update", "add", "sub", "min", "max")
    ],
    # space and patches (daskflow/ops/space_ops.py, patches_ops.py)
    GradCase("space_to_depth", lambda x: tf.space_to_depth(x, 2), [R(2, 4, 6, 3)]),
    GradCase("depth_to_space", lambda x: tf.depth_to_space(x, 2), [R(2, 2, 3, 8)]),
    GradCase(
        "space_to_batch_nd", lambda x: tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 1]]), [R(2, 4, 5, 2)]
    ),
    GradCase(
        "batch_to_space_nd", lambda x: tf.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]), [R(8, 2, 3, 1)]
    ),
    *[
        GradCase(
            f"extract_image_patches_{padding}",
            lambda x, padding=padding: tf.extract_image_patches(
                x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], padding
            ),
            [R(2, 5, 6, 2)],
        )
        for padding in ("SAME", "VALID")
    ],
]


# Second order: the gradient of a first-order gradient graph.
def _max_pool_routed(x, u):
    """Max pooling's input gradient for upstream ``u``: its own gradient is TF's
    ``MaxPoolGradGrad`` (a gradient penalty through max pooling differentiates it)."""
    return tf.gradients(tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), x, grad_ys=u)[0]


SECOND_ORDER = [
    GradCase("max_pool_grad", grad_of(_max_pool_routed), [Distinct(2, 5, 6, 2), R(2, 3, 3, 2)]),
    GradCase("slice", grad_of(lambda x: tf.slice(x, [0, 1], [2, -1]) ** 2), [R(3, 4)]),
    GradCase("relu6", grad_of(lambda x: tf.nn.relu6(x * 4.0) ** 2), [Away(2, 3)]),
    GradCase("leaky_relu", grad_of(lambda x: tf.nn.leaky_relu(x, alpha=0.3) ** 2), [Away(2, 3)]),
    GradCase("top_k", grad_of(lambda x: sort_ops.top_k(x, 2)[0] ** 2), [Distinct(3, 5)]),
    GradCase("diag", grad_of(lambda x: linalg_ops.diag(x) ** 2), [R(2, 3)]),
    GradCase("matrix_diag_part", grad_of(lambda x: linalg_ops.matrix_diag_part(x) ** 2), [R(2, 4, 3)]),
    GradCase("matrix_inverse", grad_of(linalg_ops.matrix_inverse), [R(2, 3, 3) + 3 * np.eye(3)]),
    GradCase("einsum", grad_of(lambda a, b: linalg_ops.einsum("ij,jk->ik", a, b) ** 2), [R(2, 3), R(3, 4)]),
    GradCase(
        "gather_nd",
        grad_of(lambda x, i: segment_ops.gather_nd(x, i) ** 2),
        [R(3, 4), np.array([[1, 0], [2, 3]], np.int32)],
    ),
    GradCase(
        "unsorted_segment_sum",
        grad_of(lambda x, i: segment_ops.unsorted_segment_sum(x, i, 3) ** 2),
        [R(4, 2), np.array([2, -1, 0, 2], np.int32)],
    ),
    GradCase("tanh", grad_of(tf.tanh), [R(2, 3)]),
    GradCase("cos", grad_of(tf.cos), [R(2, 3)]),
    GradCase("exp", grad_of(tf.exp), [R(2, 3)]),
    GradCase("log", grad_of(tf.log), [P(2, 3)]),
    GradCase("sigmoid", grad_of(tf.sigmoid), [R(2, 3)]),
    GradCase("square", grad_of(tf.square), [R(2, 3)]),
    GradCase("sqrt", grad_of(tf.sqrt), [P(2, 3)]),
    GradCase("mul", grad_of(lambda x, y: x * y * x), [R(2, 3), R(2, 3)]),
    GradCase("div", grad_of(lambda x, y: x / y), [R(2, 3), P(2, 3)]),
    GradCase("pow", grad_of(tf.pow), [P(2, 3), R(2, 3)]),
    GradCase("mul_bcast", grad_of(lambda x, y: x * y * y), [R(3, 1), R(4)]),
    GradCase("matmul", grad_of(lambda a, b: tf.matmul(a * a, b, transpose_b=True)), [R(2, 3), R(4, 3)]),
    GradCase("reduce_sum", grad_of(lambda x: tf.reduce_sum(x * x, axis=1)), [R(2, 3)]),
    GradCase(
        "reduce_mean_keepdims", grad_of(lambda x: tf.reduce_mean(tf.exp(x), 0, keepdims=True)), [R(2, 3)]
    ),
    GradCase("softmax", grad_of(tf.nn.softmax), [R(3, 4)]),
    GradCase("log_softmax", grad_of(tf.nn.log_softmax), [R(3, 4)]),
    GradCase(
        "xent_v2",
        grad_of(lambda y, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)),
        [LABELS, R(3, 4)],
    ),
    GradCase("relu_times_x", grad_of(lambda x: tf.nn.relu(x) * x), [Away(2, 3)]),
    GradCase("getitem", grad_of(lambda x: tf.square(x[1:, ::2])), [R(3, 5)]),
    GradCase(
        "gather_repeated",
        grad_of(lambda p, i: tf.square(tf.gather(p, i))),
        [R(3, 2), np.array([2, 0, 2], np.int32)],
    ),
    GradCase("tile", grad_of(lambda x: tf.square(tf.tile(x, [2, 1]))), [R(2, 3)]),
    GradCase("pad", grad_of(lambda x: tf.exp(tf.pad(x, [[1, 0], [0, 2]]))), [R(2, 3)]),
    GradCase("concat_split", grad_of(lambda a, b: tf.square(tf.concat([a, b], 1))), [R(2, 3), R(2, 1)]),
    GradCase("reduce_max", grad_of(lambda x: tf.reduce_max(x * x, 1)), [Distinct(3, 4)]),
    GradCase("reduce_prod", grad_of(lambda x: tf.reduce_prod(x, 0)), [Away(3, 2)]),
    GradCase(
        "conv2d_SAME_s2",
        grad_of(lambda x, w: tf.square(_conv(2, "SAME")(x, w))),
        [R(1, 5, 4, 2), R(3, 2, 2, 2)],
        batch=(0,),
    ),
    GradCase(
        "conv2d_VALID_s1",
        grad_of(lambda x, w: tf.square(_conv(1, "VALID")(x, w))),
        [R(2, 4, 4, 1), R(2, 2, 1, 2)],
        batch=(0,),
    ),
    GradCase(
        "avg_pool", grad_of(lambda x: tf.square(_pool(tf.nn.avg_pool, 3, 2, "SAME")(x))), [R(1, 5, 4, 2)]
    ),
    # gradient primitives of the new ops: their own rules
    GradCase("repeat", grad_of(lambda x: tf.repeat(x, 2, axis=1) ** 2), [R(3, 2)]),
    GradCase(
        "batch_gather",
        grad_of(lambda p, i: tf.batch_gather(p, i) ** 2),
        [R(2, 3, 2), np.array([[2, 0, 2], [1, 1, 0]], np.int32)],
    ),
    GradCase(
        "tile_fed_multiples",
        grad_of(lambda x, m: tf.reshape(tf.tile(x, m), [6, 6]) ** 2),
        [R(3, 2), np.array([2, 3], np.int32)],
        batch=(0,),
    ),
    GradCase(
        "extract_image_patches",
        grad_of(lambda x: tf.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME") ** 2),
        [R(1, 4, 3, 2)],
    ),
    GradCase("erf", grad_of(tf.erf), [R(2, 3)]),
    GradCase("lgamma", grad_of(tf.lgamma), [P(2, 3)]),
]


def _placeholders(inputs, batch):
    """Placeholders for ``inputs``: fully shaped, or with a None leading dim where ``batch`` says."""
    if batch is False:
        return [tf.placeholder(tf.as_dtype(a.dtype), a.shape) for a in inputs]
    batched = range(len(inputs)) if batch is None else batch
    return [
        tf.placeholder(tf.as_dtype(a.dtype), [None, *a.shape[1:]] if i in batched and a.ndim else a.shape)
        for i, a in enumerate(inputs)
    ]


def _forward(case):
    """The case's fully shaped graph: (graph, float placeholders, all placeholders, ys)."""
    graph = tf.Graph()
    with graph.as_default():
        xs = _placeholders(case.inputs, False)
        ys = _as_list(case.build(*xs))
    return graph, [x for x in xs if x.dtype.is_floating], xs, ys


def numeric_gradients(sess, ys, ws, feeds, xs, eps):
    """Central differences of ``sum(w * y)`` w.r.t. each fed ``x``, by rerunning ``ys``."""
    out = []
    for x in xs:
        base = feeds[x]
        grad = np.zeros(base.shape)
        for j in np.ndindex(base.shape):
            sides = []
            for step in (eps, -eps):
                moved = base.copy()
                moved[j] += step
                values = sess.run(ys, {**feeds, x: moved})
                sides.append(sum(float(np.sum(w * v)) for w, v in zip(ws, values)))
            grad[j] = (sides[0] - sides[1]) / (2 * eps)
        out.append(grad)
    return out


def _dense(grads):
    """Sparse gradients (a lookup's rows, ``IndexedSlices``) as the dense tensors they stand for."""
    return [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in grads]


def check_gradients(case):
    graph, xs, all_xs, ys = _forward(case)
    with graph.as_default():
        for y in ys:
            assert y.dtype is tf.float64 and y.shape.is_fully_defined(), f"{case.id}: {y}"
        ws = [R(*y.shape.as_list()) for y in ys]
        grads = _dense(tf.gradients(ys, xs, grad_ys=ws))
        # The same function with a None leading dimension: the rules' dynamic-shape paths.
        b_all = _placeholders(case.inputs, case.batch)
        b_xs = [x for x in b_all if x.dtype.is_floating]
        b_grads = _dense(tf.gradients(_as_list(case.build(*b_all)), b_xs, grad_ys=ws))
        feeds = {**dict(zip(all_xs, case.inputs)), **dict(zip(b_all, case.inputs))}
        with tf.Session() as sess:
            fetch = [g for g in grads + b_grads if g is not None]
            values = dict(zip(fetch, sess.run(fetch, feeds)))
            numeric = numeric_gradients(sess, ys, ws, feeds, xs, case.eps)
    for x, g, bg, num in zip(xs, grads, b_grads, numeric):
        if g is None:
            assert bg is None, f"{case.id}: {x.name} has a gradient only with a None batch dimension"
            np.testing.assert_allclose(
                num, 0, atol=1e-7, err_msg=f"{case.id}: gradients gave None for {x.name}"
            )
            continue
        got = values[g]
        assert g.dtype is x.dtype and got.dtype == np.float64
        assert g.shape.is_compatible_with(x.shape) and got.shape == feeds[x].shape, f"{case.id}: {g} for {x}"
        np.testing.assert_allclose(got, num, **(case.tol or TOL), err_msg=f"{case.id}: d/d{x.name}")
        np.testing.assert_allclose(
            values[bg], got, rtol=1e-10, atol=1e-12, err_msg=f"{case.id}: batch variant"
        )


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(case):
    check_gradients(case)


@pytest.mark.parametrize("case", SECOND_ORDER, ids=[c.id for c in SECOND_ORDER])
def test_second_order_gradient_matches_finite_differences(case):
    check_gradients(case)


def test_every_gradient_rule_is_checked():
    with_rule = {name for name, prim in PRIMITIVES.items() if callable(prim.grad)}
    with_rule -= {"WhileGrad"}  # its rule raises TF1's TypeError: test_second_order_through_a_loop
    with_rule -= {"InitializedValue"}  # reads a variable: test_gradient_registry (initialized_value)
    checked = set()
    for case in CASES + SECOND_ORDER:
        _, xs, _, ys = _forward(case)
        checked |= {op.type for op in _between(ys, xs, set())}
    missing = with_rule - checked
    assert not missing, f"gradient rules no case in tests/test_gradients.py differentiates: {sorted(missing)}"


# -- semantics of gradients() ---------------------------------------------------------------------


def _run(fetches, feeds=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feeds)


def test_sums_over_all_paths():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        (g,) = tf.gradients(x * x + x, [x])
        a = R(3)
        np.testing.assert_allclose(_run(g, {x: a}), 2 * a + 1)


def test_unconnected_and_integer_inputs_get_none():
    with tf.Graph().as_default():
        x, unused = tf.placeholder(tf.float64, [2]), tf.placeholder(tf.float64, [2])
        i = tf.placeholder(tf.int32, [2])
        y = tf.reduce_sum(x * tf.cast(i, tf.float64)) + tf.reduce_sum(tf.gather(x, i))
        gx, gu, gi = tf.gradients(y, [x, unused, i])
        assert gu is None and gi is None
        np.testing.assert_allclose(_run(gx, {x: [1.0, 2.0], i: [1, 1]}), [1.0, 3.0])


def test_stop_gradient_and_stop_gradients():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        a = R(3)
        (g,) = tf.gradients(x * tf.stop_gradient(x), [x])
        np.testing.assert_allclose(_run(g, {x: a}), a)
        (only,) = tf.gradients(tf.stop_gradient(x) * 2.0, [x])
        assert only is None
        h = tf.exp(x)
        (g2,) = tf.gradients(h * x, [x], stop_gradients=[h])
        np.testing.assert_allclose(_run(g2, {x: a}), np.exp(a))


def test_several_ys_are_summed_and_grad_ys_weights_them():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        a, w = R(3), R(3)
        (g,) = tf.gradients([x * x, tf.reduce_sum(3.0 * x)], [x])
        np.testing.assert_allclose(_run(g, {x: a}), 2 * a + 3)
        (gw,) = tf.gradients(x * x, [x], grad_ys=[w])
        np.testing.assert_allclose(_run(gw, {x: a}), 2 * a * w)
        (gy,) = tf.gradients(x, [x])  # d x / d x with the default grad_ys: ones
        np.testing.assert_allclose(_run(gy, {x: a}), np.ones(3))


def test_gradient_with_respect_to_variable():
    init = R(2, 3)
    with tf.Graph().as_default():
        v = tf.Variable(init)
        x = tf.placeholder(tf.float64, [None, 2])
        loss = tf.reduce_sum(tf.matmul(x, v) ** 2)
        (g,) = tf.gradients(loss, [v])
        assert g.shape.as_list() == [2, 3]
        a = R(4, 2)
        np.testing.assert_allclose(_run(g, {x: a}), 2 * a.T @ (a @ init))


def test_softmax_xent_v1_gives_labels_no_gradient_v2_does():
    with tf.Graph().as_default():
        y, x = tf.placeholder(tf.float64, [3, 4]), tf.placeholder(tf.float64, [3, 4])
        v1 = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=x)
        v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)
        gy1, gx1 = tf.gradients(v1, [y, x])
        gy2, gx2 = tf.gradients(v2, [y, x])
        assert gy1 is None and gy2 is not None
        a = R(3, 4)
        got = _run([gx1, gx2, gy2], {y: LABELS, x: a})
    log_p = a - np.log(np.exp(a).sum(-1, keepdims=True))
    np.testing.assert_allclose(got[0], np.exp(log_p) - LABELS)
    np.testing.assert_allclose(got[1], got[0])
    np.testing.assert_allclose(got[2], -log_p)


def test_gradients_at_kinks_and_ties_follow_tf():
    # Finite differences cannot judge these points; the values are TF1's.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        z = tf.constant([0.0, 0.3, 1.0], tf.float64)
        ys = [
            tf.nn.relu(x),
            tf.abs(x),
            tf.nn.softplus(x),  # zero-initialised logits sit exactly at the kink
            tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
            tf.maximum(x, 0.0),
            tf.minimum(x, 0.0),
            tf.clip_by_value(x, 0.0, 1.0),
        ]
        grads = [tf.gradients(y, [x])[0] for y in ys]
        m = tf.placeholder(tf.float64, [3, 3])
        (g_max,) = tf.gradients(tf.reduce_max(m, 1), [m])  # ties share the gradient
        (g_prod,) = tf.gradients(tf.reduce_prod(m, 1), [m])  # zeros: the product of the others
        got = _run(
            grads + [g_max, g_prod], {x: np.zeros(3), m: [[2.0, 0.0, 3.0], [0.0, 0.0, 4.0], [3.0, 3.0, 1.0]]}
        )
    expected = [0, 0, 0.5, 0.5 - np.array([0.0, 0.3, 1.0]), 1, 1, 1]
    for i, (v, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(v, np.broadcast_to(e, (3,)), err_msg=str(ys[i]))
    np.testing.assert_allclose(got[-2], [[0, 0, 1], [0, 0, 1], [0.5, 0.5, 0]])
    np.testing.assert_allclose(got[-1], [[0, 6, 0], [0, 0, 0], [3, 3, 9]])


def test_float32_gradients_keep_float32():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(np.ones((3, 2), np.float32))
        loss = tf.reduce_mean(tf.nn.softmax(tf.matmul(x, w)) * 2.0)
        gx, gw = tf.gradients(loss, [x, w])
        assert gx.dtype is tf.float32 and gw.dtype is tf.float32
        vx, vw = _run([gx, gw], {x: R(4, 3)})
    assert vx.dtype == np.float32 and vx.shape == (4, 3) and vw.dtype == np.float32 and vw.shape == (3, 2)


@pytest.mark.usefixtures("fresh_graph")
def test_unconnected_gradients_zero_gives_zeros_of_each_xs_shape_and_dtype():
    x = tf.placeholder(tf.float32, [None, 3])
    i = tf.placeholder(tf.int32, [2])
    y = tf.constant(2.0) * 2.0
    assert tf.gradients(y, [x, i]) == [None, None]
    gx, gi = tf.gradients(y, [x, i], unconnected_gradients="zero")
    assert (gx.dtype, gi.dtype) == (tf.float32, tf.int32)
    assert gx.op.name == "zeros_like"  # TF1 makes them outside the gradients name scope
    with tf.Session() as sess:
        vx, vi = sess.run([gx, gi], {x: np.ones((4, 3)), i: [1, 2]})
    np.testing.assert_array_equal(vx, np.zeros((4, 3), np.float32))
    np.testing.assert_array_equal(vi, [0, 0])
    (connected,) = tf.gradients(3.0 * x, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(connected, {x: np.ones((1, 3))}), np.full((1, 3), 3.0))


@pytest.mark.usefixtures("fresh_graph")
def test_unconnected_gradients_refuses_an_unknown_value():
    x = tf.constant(1.0)
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'zeros'"):
        tf.gradients(x, x, unconnected_gradients="zeros")


@pytest.mark.usefixtures("fresh_graph")
def test_colocate_gradients_with_ops_places_each_gradient_with_its_op():
    with tf.device("/job:worker/task:1"):
        x = tf.constant([1.0, 2.0])
        y = x * x
    (placed,) = tf.gradients(y, x, colocate_gradients_with_ops=True)
    (free,) = tf.gradients(y, x)
    assert placed.device == "/job:worker/task:1"  # as TF1's: gradients/AddN on the op's device
    assert free.device == ""
    with tf.Session() as sess, pytest.warns(UserWarning, match="are ignored"):  # embedded: one process
        np.testing.assert_array_equal(sess.run(placed), [2.0, 4.0])


@pytest.mark.usefixtures("fresh_graph")
def test_aggregation_method_and_gate_gradients_keep_the_sum():
    x = tf.constant(3.0)
    y = x * x + 2.0 * x  # two paths to x
    for method in (None, tf.AggregationMethod.ADD_N, tf.AggregationMethod.EXPERIMENTAL_TREE):
        (g,) = tf.gradients(y, x, aggregation_method=method, gate_gradients=True)
        with tf.Session() as sess:
            assert float(sess.run(g)) == 8.0


def test_second_order_through_a_loop_raises_tf1s_type_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 1.5), [0, x])[1]
        (g,) = tf.gradients(tf.reduce_sum(y * y), x)
        with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
            tf.gradients(tf.reduce_sum(g * g), x)
