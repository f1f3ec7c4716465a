"""``tf.sparse``: TF1's namespace of sparse ops, the same ops as their ``tf.sparse_*`` names
(``tf.sparse.to_dense`` is ``tf.sparse_tensor_to_dense``). A name daskflow lacks says so."""

from ._namespaces import module_getattr
from .framework.sparse_tensor import SparseTensor
from .ops.sparse_ops import from_dense
from .ops.sparse_ops import sparse_add as add
from .ops.sparse_ops import sparse_concat as concat
from .ops.sparse_ops import sparse_placeholder as placeholder
from .ops.sparse_ops import sparse_reduce_sum as reduce_sum
from .ops.sparse_ops import sparse_reorder as reorder
from .ops.sparse_ops import sparse_reshape as reshape
from .ops.sparse_ops import sparse_retain as retain
from .ops.sparse_ops import sparse_softmax as softmax
from .ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from .ops.sparse_ops import sparse_tensor_to_dense as to_dense
from .ops.sparse_ops import sparse_transpose as transpose

matmul = sparse_dense_matmul

__all__ = [
    "SparseTensor",
    "add",
    "concat",
    "from_dense",
    "matmul",
    "placeholder",
    "reduce_sum",
    "reorder",
    "reshape",
    "retain",
    "softmax",
    "sparse_dense_matmul",
    "to_dense",
    "transpose",
]

__getattr__ = module_getattr("tf.sparse")
