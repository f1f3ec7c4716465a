"""``tf.qr`` (TF1's ``Qr``), ``tf.trace`` and ``tf.matrix_set_diag``.

``Qr`` returns ``(q, r)`` of each matrix ``input[..., :, :]`` with numpy's (LAPACK's
Householder) signs, which are TF's (Eigen's Householder QR): checked against TF1
on tall, wide, batched and negated matrices. Its gradient is TF1's ``_QrGrad``;
like TF1's it needs the matrix sizes when the graph is built and refuses a tall
matrix with ``full_matrices=True``. ``trace`` is TF1's composition (a sum of the
diagonal), ``matrix_set_diag`` a primitive whose gradient is TF1's.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.primitive import Primitive
from . import array_ops, core_array_ops, math_ops
from .linalg_ops import _at_least, _main_diagonal_only, matrix_band_part, matrix_diag_part
from .linalg_solve_ops import matrix_triangular_solve

# -- qr --------------------------------------------------------------------------------------------


def _qr_infer(inputs, *, full_matrices):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise TypeError(f"qr: {x.name} must be floating-point, got {x.dtype.name}")
    _at_least(x, 2, "qr")
    if x._dims is None:
        return [(None, x.dtype), (None, x.dtype)]
    *batch, m, n = x._dims
    batch = tuple(batch)
    p = None if m is None or n is None else min(m, n)
    q_cols, r_rows = (m, m) if full_matrices else (p, p)
    return [(batch + (m, q_cols), x.dtype), (batch + (r_rows, n), x.dtype)]


def _qr_kernel(xp, x, *, full_matrices):
    q, r = xp.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _adjoint_solve(x, r):
    """``x @ inverse(r)^T`` for an upper-triangular ``r`` (TF1's ``_TriangularSolve``)."""
    t = core_array_ops.matrix_transpose
    return t(matrix_triangular_solve(r, t(x), lower=False, adjoint=False))


def _qr_grad_deep(q, r, dq, dr):
    """TF1's gradient for ``num_rows >= num_cols`` (reduced ``q``)."""
    qdq = math_ops.matmul(q, dq, transpose_a=True)
    qdq_ = qdq - core_array_ops.matrix_transpose(qdq)
    rdr = math_ops.matmul(r, dr, transpose_b=True)
    rdr_ = rdr - core_array_ops.matrix_transpose(rdr)
    tril = matrix_band_part(qdq_ + rdr_, -1, 0)
    grad_a = math_ops.matmul(q, dr + _adjoint_solve(tril, r))
    grad_b = _adjoint_solve(dq - math_ops.matmul(q, qdq), r)
    return grad_a + grad_b


def _qr_grad(op, dq, dr):
    q, r = op.outputs
    dq = array_ops.zeros_like(q) if dq is None else dq  # an unused output contributes zeros, as in TF
    dr = array_ops.zeros_like(r) if dr is None else dr
    if r._dims is None or r._dims[-2] is None or r._dims[-1] is None:
        raise NotImplementedError(
            f"the gradient of qr {op.name} needs its matrix sizes; r has shape {r.shape}"
        )
    m, n = q._dims[-2], r._dims[-1]
    if r._dims[-2] > n and q._dims[-1] == m:
        raise NotImplementedError(
            f"the gradient of qr {op.name} is not implemented for a tall matrix with full_matrices=True "
            f"(r has shape {r.shape}), as in TF1"
        )
    if m >= n:
        return [_qr_grad_deep(q, r, dq, dr)]
    # A wide matrix a = [x, y], r = [u, v]: reduce to the square case, as TF1 does.
    y = op.inputs[0][..., :, m:]
    u, du, dv = r[..., :, :m], dr[..., :, :m], dr[..., :, m:]
    dx = _qr_grad_deep(q, u, dq + math_ops.matmul(y, dv, transpose_b=True), du)
    return [array_ops.concat([dx, math_ops.matmul(q, dv)], -1)]


Qr = Primitive("Qr", _qr_infer, _qr_kernel, _qr_grad)


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF1's name
    """The QR decomposition of each matrix ``input[..., :, :]``: ``(q, r)`` with
    ``input = q @ r``, ``q`` orthonormal columns and ``r`` upper triangular.

    With ``full_matrices`` ``q`` is square ``[..., m, m]`` and ``r`` ``[..., m, n]``;
    otherwise they are ``[..., m, p]`` and ``[..., p, n]`` with ``p = min(m, n)``.

    Examples
    --------
    >>> import daskflow as tf
    >>> q, r = tf.qr(tf.constant([[3.0, 1.0], [4.0, 2.0]]))
    >>> tf.Session().run(r).round(3)
    array([[-5. , -2.2],
           [ 0. ,  0.4]], dtype=float32)
    """
    return apply(Qr, input, full_matrices=bool(full_matrices), name=name)


# -- trace and matrix_set_diag ------------------------------------------------------------------


def trace(x, name=None):
    """The sum of the main diagonal of each matrix ``x[..., :, :]`` (rectangular too).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.trace([[1, 2], [3, 4]])).tolist()
    5
    """
    with name_scope(name, "Trace") as scope:
        x = convert_to_tensor(x, name="x")
        _at_least(x, 2, "trace")
        return math_ops.reduce_sum(matrix_diag_part(x), [-1], name=scope)


def _set_diag_infer(inputs):
    x, d = inputs
    if d.dtype is not x.dtype:
        raise TypeError(
            f"matrix_set_diag: diagonal {d.name} is {d.dtype.name}, input {x.name} is {x.dtype.name}"
        )
    _at_least(x, 2, "matrix_set_diag")
    _at_least(d, 1, "matrix_set_diag")
    if x._dims is None or d._dims is None:
        return x._dims, x.dtype
    # As TF1's shape function: ranks and batch dimensions are checked here, the diagonal's
    # length only when it runs.
    m, n = x._dims[-2:]
    want = x._dims[:-2]
    if len(want) + 1 != len(d._dims) or any(
        a is not None and b is not None and a != b for a, b in zip(want, d._dims)
    ):
        raise ValueError(
            f"matrix_set_diag: diagonal {d.name} of shape {d.shape} does not fit input {x.name} "
            f"of shape {x.shape}"
        )
    batch = tuple(a if a is not None else b for a, b in zip(x._dims[:-2], d._dims[:-1]))
    return batch + (m, n), x.dtype


def _set_diag_kernel(xp, x, d):
    m, n = x.shape[-2:]
    p = min(m, n)
    if d.shape != x.shape[:-2] + (p,):
        raise ValueError(
            f"matrix_set_diag: diagonal of shape {list(d.shape)} does not fit input of shape "
            f"{list(x.shape)} (expected {list(x.shape[:-2]) + [p]})"
        )
    out = xp.array(x, copy=True)
    out[..., xp.arange(p), xp.arange(p)] = d
    return out


def _set_diag_grad(op, g):
    # TF1's rule: the input gets g with its diagonal zeroed, the diagonal g's diagonal.
    return [apply(MatrixSetDiag, g, array_ops.zeros_like(op.inputs[1])), matrix_diag_part(g)]


MatrixSetDiag = Primitive(
    "MatrixSetDiag", _set_diag_infer, _set_diag_kernel, _set_diag_grad, fresh_output=True
)


def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with the main diagonal of each matrix replaced by ``diagonal``
    (``[..., min(m, n)]``); ``k`` other than 0 (off-diagonals) is refused.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.matrix_set_diag(tf.zeros([2, 2]), [1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    _main_diagonal_only("matrix_set_diag", k, 0, align)
    x = convert_to_tensor(input, name="input")
    d = convert_to_tensor(diagonal, dtype=None if hasattr(diagonal, "dtype") else x.dtype, name="diagonal")
    return apply(MatrixSetDiag, x, d, name=name)
