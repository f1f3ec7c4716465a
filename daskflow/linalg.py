"""``tf.linalg``: TF1's linear-algebra namespace, the same ops as their ``tf.*`` names
(``tf.linalg.cholesky`` is ``tf.cholesky``). A name daskflow lacks says so."""

from ._namespaces import module_getattr
from .framework.arguments import refuse
from .framework.constant import convert_to_tensor
from .framework.graph import name_scope
from .ops.array_ops import eye, matrix_transpose
from .ops.linalg_ops import diag as tensor_diag
from .ops.linalg_ops import diag_part as tensor_diag_part
from .ops.linalg_ops import (
    einsum,
    matrix_band_part,
    matrix_determinant,
    matrix_diag,
    matrix_diag_part,
    matrix_inverse,
    norm,
    tensordot,
)
from .ops.linalg_solve_ops import (
    cholesky,
    cholesky_solve,
    cross,
    matrix_solve,
    matrix_triangular_solve,
    self_adjoint_eig,
    self_adjoint_eigvals,
)
from .ops.linalg_svd_ops import svd  # noqa: F401 - tf.linalg.svd
from .ops.math_ops import matmul

band_part = matrix_band_part
diag = matrix_diag  # TF's tf.linalg.diag is the batched one
diag_part = matrix_diag_part
det = matrix_determinant
eigh = self_adjoint_eig
eigvalsh = self_adjoint_eigvals
inv = matrix_inverse
solve = matrix_solve
transpose = matrix_transpose
triangular_solve = matrix_triangular_solve


def adjoint(matrix, name=None):
    """Transpose the last two axes of ``matrix`` and conjugate it (TF1 ``tf.linalg.adjoint``).

    Parameters
    ----------
    matrix : Tensor
        A tensor of shape ``[..., M, N]``.
    name : str, optional
        The name scope of the op (TF1's default: ``"adjoint"``).

    Returns
    -------
    Tensor
        ``matrix``'s conjugate transpose, of shape ``[..., N, M]``; a real tensor's
        conjugate is itself, so this is ``matrix_transpose`` for real ``matrix``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.linalg.adjoint([[1.0, 2.0, 3.0]])).tolist()
    [[1.0], [2.0], [3.0]]
    """
    with name_scope(name, "adjoint"):
        matrix = convert_to_tensor(matrix, name="matrix")
        if matrix.dtype.is_complex:  # daskflow has no complex conjugate (as matrix_transpose)
            raise refuse("tf.linalg.adjoint", "matrix", matrix.name, "daskflow has no complex conjugate")
        return matrix_transpose(matrix)


__all__ = [
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "cross",
    "det",
    "diag",
    "diag_part",
    "eigh",
    "eigvalsh",
    "einsum",
    "eye",
    "inv",
    "matmul",
    "matrix_transpose",
    "norm",
    "solve",
    "tensor_diag",
    "tensor_diag_part",
    "tensordot",
    "transpose",
    "triangular_solve",
]

__getattr__ = module_getattr("tf.linalg")
