"""Factorizations and solves: ``cholesky``, triangular and general solves, symmetric
eigendecomposition, ``cross``.

Each primitive carries TF1's gradient rule (``linalg_grad.py``); ``cholesky_solve``
is composed of two triangular solves, as TF1 composes it. Real dtypes only, so
TF's adjoints are transposes here.
"""

from __future__ import annotations

import numpy as np

from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .infer import check_same_dtype
from .linalg_ops import _square_infer, matrix_band_part, matrix_diag, matrix_diag_part

_T = array_ops.matrix_transpose


def _half_diagonal(m):
    """``m`` with its diagonal halved (TF's ``matrix_set_diag(m, 0.5 * diag_part(m))``)."""
    return m - 0.5 * matrix_diag(matrix_diag_part(m))


# -- Cholesky -------------------------------------------------------------------------------------


def _cholesky_kernel(xp, x):
    # Like TF 2's CPU kernel (the oracle), a matrix that is not positive definite
    # gives NaNs in the lower triangle rather than failing the step.
    try:
        return xp.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        return xp.tril(xp.full(x.shape, xp.nan, dtype=x.dtype))


def _cholesky_grad(op, g):
    # Murray's rule, as TF1's _CholeskyGrad: only the lower triangle of the input is read.
    lower = op.outputs[0]
    identity = matrix_band_part(array_ops.ones_like(lower), 0, 0)  # batched, of any static shape
    inverse = matrix_triangular_solve(lower, identity)
    middle = matrix_band_part(_half_diagonal(math_ops.matmul(lower, g, transpose_a=True)), -1, 0)
    grad = math_ops.matmul(math_ops.matmul(inverse, middle, transpose_a=True), inverse)
    return [0.5 * (grad + _T(grad))]


Cholesky = Primitive(
    "Cholesky", lambda inputs: _square_infer(inputs, "cholesky"), _cholesky_kernel, _cholesky_grad
)


def cholesky(input, name=None):  # noqa: A002 - TF1's name
    """The lower-triangular ``L`` with ``L @ L^T = input`` for each matrix ``input[..., :, :]``
    (its lower triangle is read; one that is not positive definite gives NaNs, as TF).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.cholesky([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    return apply(Cholesky, input, name=name)


# -- solves -----------------------------------------------------------------------------------


def _solve_infer(inputs, what, **_):
    matrix, rhs = inputs
    dims, dt = _square_infer([matrix], what)
    if check_same_dtype(inputs) is not dt:
        raise TypeError(f"{what}: matrix and rhs must share a dtype")
    if rhs._dims is not None and len(rhs._dims) < 2:
        raise ValueError(f"{what}: rhs {rhs.name} must have rank >= 2, got shape {rhs.shape}")
    if dims is None or rhs._dims is None:
        return None if rhs._dims is None else rhs._dims, dt
    m, r = dims[-1], rhs._dims[-2]
    if m is not None and r is not None and m != r:
        raise ValueError(
            f"{what}: {matrix.name} of shape {matrix.shape} cannot solve for "
            f"rhs {rhs.name} of shape {rhs.shape}"
        )
    return rhs._dims[:-2] + (m if m is not None else r, rhs._dims[-1]), dt


def _solve(xp, a, b):
    try:
        return xp.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise ValueError("Input matrix is not invertible.") from None


def _triangular_kernel(xp, a, b, *, lower, adjoint):
    # Only the named triangle is read, as TF.
    a = xp.tril(a) if lower else xp.triu(a)
    a = xp.swapaxes(a, -1, -2) if adjoint else a
    try:
        return xp.linalg.solve(a, b)
    except np.linalg.LinAlgError:  # a zero on the diagonal: TF's substitution divides by it
        return xp.full(b.shape, xp.nan, dtype=b.dtype)


def _solved_grads(op, grad_b):
    # TF1's rule for both solves: d/da = -grad_b c^T (or -c grad_b^T when adjoint).
    c = op.outputs[0]
    if op.attrs["adjoint"]:
        return -math_ops.matmul(c, grad_b, transpose_b=True)
    return -math_ops.matmul(grad_b, c, transpose_b=True)


def _triangular_grad(op, g):
    a = op.inputs[0]
    lower, adjoint = op.attrs["lower"], op.attrs["adjoint"]
    grad_b = matrix_triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    band = (-1, 0) if lower else (0, -1)  # the triangle the forward op read
    return [matrix_band_part(_solved_grads(op, grad_b), *band), grad_b]


def _solve_grad(op, g):
    grad_b = matrix_solve(op.inputs[0], g, adjoint=not op.attrs["adjoint"])
    return [_solved_grads(op, grad_b), grad_b]


MatrixTriangularSolve = Primitive(
    "MatrixTriangularSolve",
    lambda inputs, **_: _solve_infer(inputs, "matrix_triangular_solve"),
    _triangular_kernel,
    _triangular_grad,
)
MatrixSolve = Primitive(
    "MatrixSolve",
    lambda inputs, **_: _solve_infer(inputs, "matrix_solve"),
    lambda xp, a, b, *, adjoint: _solve(xp, xp.swapaxes(a, -1, -2) if adjoint else a, b),
    _solve_grad,
)


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solve ``matrix @ x = rhs`` for triangular matrices (only the ``lower`` or upper triangle
    of ``matrix`` is read; ``adjoint``: solve with its transpose)."""
    return apply(MatrixTriangularSolve, matrix, rhs, lower=bool(lower), adjoint=bool(adjoint), name=name)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """Solve ``matrix @ x = rhs`` for each square ``matrix[..., :, :]`` (a singular one fails
    the run with InvalidArgumentError, as TF)."""
    return apply(MatrixSolve, matrix, rhs, adjoint=bool(adjoint), name=name)


def cholesky_solve(chol, rhs, name=None):
    """Solve ``A x = rhs`` given ``chol = cholesky(A)``: two triangular solves, as TF1."""
    chol = convert_to_tensor(chol)
    y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
    return matrix_triangular_solve(chol, y, lower=True, adjoint=True, name=name or "cholesky_solve")


# -- symmetric eigendecomposition ------------------------------------------------------------


def _eig_infer(inputs, *, compute_v):
    dims, dt = _square_infer(inputs, "self_adjoint_eig")
    values = None if dims is None else dims[:-1]
    return [(values, dt), (dims if compute_v else (0,), dt)]


def _eig_kernel(xp, x, *, compute_v):
    values, vectors = xp.linalg.eigh(x)  # the lower triangle, as TF reads it
    return values, (vectors if compute_v else xp.zeros((0,), dtype=x.dtype))


def _safe_reciprocal(x, epsilon=1e-20):
    return x * math_ops.reciprocal(x * x + epsilon)


def _eig_grad(op, grad_e, grad_v):
    # TF1's _SelfAdjointEigV2Grad (both outputs of eigh always exist here).
    e, v = op.outputs
    grad_e = array_ops.zeros_like(e) if grad_e is None else grad_e
    middle = matrix_diag(grad_e)
    if grad_v is not None:
        gaps = array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)
        f = _safe_reciprocal(gaps) - matrix_diag(matrix_diag_part(_safe_reciprocal(gaps)))
        middle = middle + f * math_ops.matmul(v, grad_v, transpose_a=True)
    grad = math_ops.matmul(v, math_ops.matmul(middle, v, transpose_b=True))
    return [_half_diagonal(matrix_band_part(grad + _T(grad), -1, 0))]


SelfAdjointEigV2 = Primitive("SelfAdjointEigV2", _eig_infer, _eig_kernel, _eig_grad)


def self_adjoint_eig(tensor, name=None):
    """``(e, v)``: the ascending eigenvalues and the eigenvectors (columns) of each symmetric
    matrix ``tensor[..., :, :]`` (its lower triangle is read)."""
    return apply(SelfAdjointEigV2, tensor, compute_v=True, name=name)


def self_adjoint_eigvals(tensor, name=None):
    """The ascending eigenvalues of each symmetric matrix ``tensor[..., :, :]``."""
    return self_adjoint_eig(tensor, name=name)[0]


# -- cross product ------------------------------------------------------------------------------


def _cross_infer(inputs):
    a, b = inputs
    dt = check_same_dtype(inputs)
    for t in inputs:
        if t._dims is not None and (not t._dims or t._dims[-1] not in (None, 3)):
            last = t._dims[-1] if t._dims else "a scalar"
            raise ValueError(f"cross: Dimension must be 3 but is {last} for {t.name} of shape {t.shape}")
    if a._dims is not None and b._dims is not None:
        if len(a._dims) != len(b._dims) or any(
            x is not None and y is not None and x != y for x, y in zip(a._dims, b._dims)
        ):
            raise ValueError(f"cross: {a.name} of shape {a.shape} and {b.name} of shape {b.shape} differ")
        return tuple(x if x is not None else y for x, y in zip(a._dims, b._dims)), dt
    return (a._dims if a._dims is not None else b._dims), dt


Cross = Primitive(
    "Cross",
    _cross_infer,
    lambda xp, a, b: xp.cross(a, b),
    lambda op, g: [cross(op.inputs[1], g), cross(g, op.inputs[0])],
    fresh_output=True,
)


def cross(a, b, name=None):
    """The cross product of the 3-vectors along the last axis of ``a`` and ``b`` (same shape)."""
    return apply(Cross, a, b, name=name)
