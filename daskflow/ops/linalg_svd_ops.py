"""``tf.svd`` (``tf.linalg.svd``): singular values, descending, and TF's ``(s, u, v)``.

``v`` is not transposed (``a = u @ diag(s) @ adjoint(v)``), as TF returns it. With
``compute_uv=False`` the ``u`` and ``v`` outputs are empty, as in TF, and only
``s`` is handed back. The gradient is TF1's for the singular values alone; a
gradient through ``u`` or ``v`` is refused (see :func:`_svd_grad`).
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .linalg_ops import _at_least, matrix_diag


def _svd_infer(inputs, *, full_matrices, compute_uv):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise TypeError(f"svd: {x.name} must be floating-point, got {x.dtype.name}")
    _at_least(x, 2, "svd")
    if x._dims is None:
        return [(None, x.dtype)] * 3
    *batch, m, n = x._dims
    batch = tuple(batch)
    p = None if m is None or n is None else min(m, n)
    if not compute_uv:
        return [(batch + (p,), x.dtype), ((0,), x.dtype), ((0,), x.dtype)]
    cols_u, cols_v = (m, n) if full_matrices else (p, p)
    return [(batch + (p,), x.dtype), (batch + (m, cols_u), x.dtype), (batch + (n, cols_v), x.dtype)]


def _svd_kernel(xp, x, *, full_matrices, compute_uv):
    if not compute_uv:
        empty = xp.zeros((0,), dtype=x.dtype)
        return xp.linalg.svd(x, compute_uv=False).astype(x.dtype), empty, empty
    u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    return s.astype(x.dtype), u.astype(x.dtype), xp.conj(xp.swapaxes(vh, -1, -2)).astype(x.dtype)


def _svd_grad(op, grad_s, grad_u, grad_v):
    # TF1's rule for s: grad_a = u[..., :p] @ diag(grad_s) @ v[..., :p]^T. Its rule through
    # u and v is not carried over: a gradient that reaches them is refused, never dropped.
    if grad_u is not None or grad_v is not None:
        raise NotImplementedError(
            f"the gradient of svd {op.name} through u or v is not supported; only s's gradient is"
        )
    x = op.inputs[0]
    thin = op.attrs["compute_uv"] and not op.attrs["full_matrices"]
    s, u, v = op.outputs if thin else svd(x, full_matrices=False)  # u, v of p = min(m, n) columns
    grad_s = array_ops.zeros_like(s) if grad_s is None else grad_s
    return [math_ops.matmul(u, math_ops.matmul(matrix_diag(grad_s), v, transpose_b=True))]


Svd = Primitive("Svd", _svd_infer, _svd_kernel, _svd_grad)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """The singular value decomposition of each matrix ``tensor[..., :, :]``.

    Returns ``(s, u, v)`` with ``tensor = u @ diag(s) @ adjoint(v)`` and ``s``
    descending, or only ``s`` when ``compute_uv`` is False (TF1's ``tf.svd``).

    Examples
    --------
    >>> import daskflow as tf
    >>> s = tf.svd(tf.constant([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    >>> tf.Session().run(s).tolist()
    [4.0, 3.0]
    """
    s, u, v = apply(Svd, tensor, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv), name=name)
    return (s, u, v) if compute_uv else s
