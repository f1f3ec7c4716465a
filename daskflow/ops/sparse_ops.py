"""Ops on :class:`~daskflow.framework.sparse_tensor.SparseTensor` values.

A sparse op takes the three parts of each sparse input (indices, values,
dense shape) as ordinary inputs. Primitives exist where numpy does the work
in one call (``SparseToDense``, ``SparseTensorDenseMatMul``, ``SparseAdd``,
``SparseConcat``, ``SparseReshape``) or where the result's layout is data
(the row-major order of a reorder, the groups of a softmax); the rest are
composed of dense ops (``gather``, segment sums), which carry their own
gradients. Gradients follow TF1's ``sparse_grad.py``: to the values and to
dense operands, never to indices or shapes.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.apply import apply
from ..framework.arguments import argument_lookup, refuse
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import name_scope
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from ..framework.sparse_tensor import SparseTensor, SparseTensorValue
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops, segment_ops
from .embedding_ops import embedding_lookup
from .infer import constant_value


def _sparse(x, what):
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{what}: expected a SparseTensor, got {type(x).__name__} {x!r}")
    return x


def _shape_dims(shape_tensor):
    """The static dims a dense-shape tensor gives: its constant value, else its length's Nones."""
    value = constant_value(shape_tensor)
    if value is not None:
        return tuple(int(d) if d >= 0 else None for d in value.reshape(-1))
    dims = shape_tensor._dims
    return None if not dims or dims[0] is None else (None,) * dims[0]


def _known(shape_tensor):
    """A dense-shape tensor's value as a list when the graph fixes it, else None."""
    value = constant_value(shape_tensor)
    return None if value is None else [int(d) for d in value.reshape(-1)]


def _with_static_shape(sparse, dims):
    """``sparse`` told its static dense shape: what TF1 folds from constant inputs (its
    structure ops' shape outputs are computed on the host, so inference cannot fold them)."""
    if dims is not None:
        sparse._dense_shape_default = TensorShape(dims)
    return sparse


# -- sparse_placeholder -------------------------------------------------------------------------


def sparse_placeholder(dtype, shape=None, name=None):
    """A ``SparseTensor`` whose indices, values and dense shape are fed (TF1's names and shapes).

    Feed it a :class:`SparseTensorValue` or an ``(indices, values, dense_shape)`` tuple.

    Examples
    --------
    >>> import daskflow as tf
    >>> sp = tf.sparse_placeholder(tf.float32, shape=[None, 3], name="sp")
    >>> sp.indices.name, sp.shape.as_list()
    ('sp/indices:0', [None, 3])
    """
    scoped = (lambda part: f"{name}/{part}") if name is not None else (lambda part: None)
    rank, default = None, None
    if shape is not None:
        dims = [None if d is None or d == -1 else int(d) for d in shape]
        rank = len(dims)
        if None in dims:
            default = dims
            dense_shape = array_ops.placeholder(dtypes.int64, [rank], name=scoped("shape"))
        else:
            dense_shape = constant(dims, dtype=dtypes.int64, name=scoped("shape"))
    else:
        dense_shape = array_ops.placeholder(dtypes.int64, [None], name=scoped("shape"))
    values = array_ops.placeholder(dtype, [None], name=scoped("values"))
    indices = array_ops.placeholder(dtypes.int64, [None, rank], name=scoped("indices"))
    result = SparseTensor(indices, values, dense_shape)
    return _with_static_shape(result, default)


# -- to dense ---------------------------------------------------------------------------------


def _to_dense_infer(inputs, **_):
    indices, shape, values, default = inputs
    if values.dtype is not default.dtype:
        raise TypeError(
            f"sparse_to_dense: default_value {default.name} is {default.dtype.name}, "
            f"values {values.name} are {values.dtype.name}"
        )
    return _shape_dims(shape), values.dtype


def _first(mask):
    return int(mask.argmax())


def _check_indices(xp, indices, flat, dims, validate):
    """TF1's checks (on the device too: one reduction each, one sync when one fails)."""
    bad = ((indices < 0) | (indices >= xp.asarray(dims, dtype=indices.dtype))).any(axis=1)
    if bool(bad.any()):
        i = _first(bad)
        raise InvalidArgumentError(
            None,
            None,
            f"indices[{i}] = {indices[i].tolist()} is out of bounds: need 0 <= index < {list(dims)}",
        )
    if validate and flat.shape[0] > 1:
        steps = flat[1:] - flat[:-1]
        if bool((steps <= 0).any()):
            i = _first(steps <= 0) + 1
            order = "repeated" if int(steps[i - 1]) == 0 else "out of order"
            raise InvalidArgumentError(None, None, f"indices[{i}] = {indices[i].tolist()} is {order}")


def _to_dense_kernel(xp, indices, shape, values, default, *, validate_indices):
    dims = tuple(int(d) for d in shape.reshape(-1).tolist())
    indices = indices.reshape(-1, max(len(dims), 1)) if indices.ndim < 2 else indices
    strides = [int(np.prod(dims[k + 1 :])) for k in range(len(dims))]
    flat = (indices * xp.asarray(strides, dtype=indices.dtype)).sum(axis=1)
    _check_indices(xp, indices, flat, dims, validate_indices)
    out = xp.empty(int(np.prod(dims)), dtype=values.dtype)
    out[...] = default
    out[flat] = values
    return out.reshape(dims)


def _to_dense_grad(op, g):
    # TF1's _SparseToDenseGrad (array_grad.py).
    indices, values = op.inputs[0], op.inputs[2]
    values_grad = segment_ops.gather_nd(g, indices)
    default_grad = math_ops.reduce_sum(g) - math_ops.reduce_sum(values_grad)
    if values._dims == ():
        values_grad = math_ops.reduce_sum(values_grad)
    return [None, None, values_grad, default_grad]


SparseToDense = Primitive("SparseToDense", _to_dense_infer, _to_dense_kernel, _to_dense_grad)


def _default_for(dtype, default_value):
    if default_value is None:
        default_value = b"" if dtype is dtypes.string else 0
    return convert_to_tensor(default_value, dtype=dtype)


def sparse_to_dense(
    sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None
):
    """A dense tensor of ``output_shape`` with ``sparse_values`` at ``sparse_indices`` and
    ``default_value`` elsewhere (indices: a scalar, a vector or an ``[N, rank]`` matrix).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.sparse_to_dense([[0, 1], [1, 0]], [2, 2], 5)).tolist()
    [[0, 5], [5, 0]]
    """
    values = convert_to_tensor(sparse_values)
    default = _default_for(values.dtype, default_value)
    return apply(
        SparseToDense,
        sparse_indices,
        output_shape,
        values,
        default,
        validate_indices=bool(validate_indices),
        name=name,
    )


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor ``sp_input`` stands for (``default_value``, zero or ``b""`` by default,
    where it has no entry). Indices must be unique and in row-major order unless
    ``validate_indices=False``.

    Examples
    --------
    >>> import daskflow as tf
    >>> st = tf.SparseTensor([[0, 1]], [2.0], [2, 2])
    >>> tf.Session().run(tf.sparse_tensor_to_dense(st)).tolist()
    [[0.0, 2.0], [0.0, 0.0]]
    """
    sp = _sparse(sp_input, "sparse_tensor_to_dense")
    default = _default_for(sp.dtype, default_value)
    attrs = dict(validate_indices=bool(validate_indices), name=name)
    return apply(SparseToDense, sp.indices, sp.dense_shape, sp.values, default, **attrs)


# -- sparse x dense matmul ---------------------------------------------------------------------


def _matmul_infer(inputs, *, adjoint_a, adjoint_b):
    indices, values, shape, b = inputs
    if values.dtype is not b.dtype:
        raise TypeError(f"sparse_tensor_dense_matmul: {values.name} and {b.name} differ in dtype")
    if b._dims is not None and len(b._dims) != 2:
        raise ValueError(f"sparse_tensor_dense_matmul: {b.name} must be a matrix, got shape {b.shape}")
    a = _shape_dims(shape) or (None, None)
    rows = a[1] if adjoint_a else a[0]
    inner = a[0] if adjoint_a else a[1]
    b_dims = b._dims or (None, None)
    b_inner, cols = (b_dims[1], b_dims[0]) if adjoint_b else b_dims
    if inner is not None and b_inner is not None and inner != b_inner:
        raise ValueError(
            f"Cannot multiply A and B because inner dimension does not match: {inner} vs. {b_inner} "
            f"({b.name} of shape {b.shape})"
        )
    return (rows, cols), values.dtype


def _matmul_kernel(xp, indices, values, shape, b, *, adjoint_a, adjoint_b):
    rows, inner = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    n = int(shape[1] if adjoint_a else shape[0])
    b = b.T if adjoint_b else b
    if bool((inner >= b.shape[0]).any()) or bool((rows >= n).any()):
        raise InvalidArgumentError(
            None, None, f"sparse_tensor_dense_matmul: an index is out of range of {shape.tolist()}"
        )
    # A one-hot matrix sums each entry's row of b into its output row (no scatter-add needed).
    onehot = (rows[:, None] == xp.arange(n)[None, :]).astype(b.dtype)
    return onehot.T @ (values[:, None] * b[inner])


def _matmul_grad(op, g):
    # TF1's _SparseTensorDenseMatMulGrad: out[i, k] = sum_j A[i, j] B[j, k].
    indices, values, shape, b = op.inputs
    adj_a, adj_b = op.attrs["adjoint_a"], op.attrs["adjoint_b"]
    b_grad = apply(SparseTensorDenseMatMul, indices, values, shape, g, adjoint_a=not adj_a, adjoint_b=False)
    if adj_b:
        b_grad = array_ops.transpose(b_grad)
    rows, cols = indices[:, 0], indices[:, 1]
    if adj_a:
        rows, cols = cols, rows
    b_rows = array_ops.transpose(b) if adj_b else b
    parts = array_ops.gather(g, rows) * array_ops.gather(b_rows, cols)
    return [None, math_ops.reduce_sum(parts, 1), None, b_grad]


SparseTensorDenseMatMul = Primitive("SparseTensorDenseMatMul", _matmul_infer, _matmul_kernel, _matmul_grad)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The product of the sparse matrix ``sp_a`` and the dense matrix ``b`` (either adjointed).

    Differentiable with respect to ``sp_a``'s values and ``b``, as TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> st = tf.SparseTensor([[0, 0], [1, 1]], [2.0, 3.0], [2, 2])
    >>> tf.Session().run(tf.sparse_tensor_dense_matmul(st, tf.ones([2, 1]))).tolist()
    [[2.0], [3.0]]
    """
    sp = _sparse(sp_a, "sparse_tensor_dense_matmul")
    with name_scope(name, "SparseTensorDenseMatMul"):
        return apply(
            SparseTensorDenseMatMul,
            sp.indices,
            sp.values,
            sp.dense_shape,
            b,
            adjoint_a=bool(adjoint_a),
            adjoint_b=bool(adjoint_b),
            name="SparseTensorDenseMatMul",
        )


# -- reductions --------------------------------------------------------------------------------


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The dense sum of ``sp_input``'s entries over ``axis`` (all when None).

    Examples
    --------
    >>> import daskflow as tf
    >>> st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    >>> tf.Session().run(tf.sparse_reduce_sum(st, 1)).tolist()
    [1.0, 2.0]
    """
    sp = _sparse(sp_input, "sparse_reduce_sum")
    axis = reduction_axes if axis is None else axis
    keepdims = bool(keep_dims if keep_dims is not None else keepdims)
    dense = sparse_tensor_to_dense(sp, validate_indices=False)
    # TF1's sparse_reduce_sum takes no name: its op is always SparseReduceSum
    return math_ops.reduce_sum(dense, axis, keepdims=keepdims, name="SparseReduceSum")


# -- order and layout ---------------------------------------------------------------------------


def _row_major_kernel(xp, indices, shape):
    if not len(indices):
        return np.zeros(0, dtype=np.int64)
    return np.lexsort(np.asarray(indices).T[::-1]).astype(np.int64)


# The permutation that sorts entries into row-major order: reorders gather by it, so
# their gradients are gathers' (TF1's _SparseReorderGrad).
RowMajorOrder = Primitive(
    "RowMajorOrder",
    lambda inputs: ((inputs[0]._dims or (None,))[:1], dtypes.int64),
    _row_major_kernel,
    host_only=True,
)


def _gather_entries(sp, order):
    indices = array_ops.gather(sp.indices, order)
    return SparseTensor(indices, array_ops.gather(sp.values, order), sp.dense_shape)


def sparse_reorder(sp_input, name=None):
    """``sp_input`` with its entries in row-major (canonical) order."""
    sp = _sparse(sp_input, "sparse_reorder")
    with name_scope(name, "SparseReorder"):
        return _gather_entries(sp, apply(RowMajorOrder, sp.indices, sp.dense_shape))


def sparse_retain(sp_input, to_retain):
    """The entries of ``sp_input`` where the boolean vector ``to_retain`` is true."""
    sp = _sparse(sp_input, "sparse_retain")
    keep = convert_to_tensor(to_retain, dtype=dtypes.bool)
    n, m = keep._dims[0] if keep._dims else None, sp.values._dims[0] if sp.values._dims else None
    if keep._dims is not None and len(keep._dims) != 1:
        raise ValueError(f"sparse_retain: to_retain {keep.name} must be a vector, got shape {keep.shape}")
    if n is not None and m is not None and n != m:
        raise ValueError(f"sparse_retain: to_retain {keep.name} has {n} entries, {sp.values.name} has {m}")
    with name_scope(None, "SparseRetain"):
        return _gather_entries(sp, array_ops.reshape(math_ops.where(keep), [-1]))


def sparse_transpose(sp_input, perm=None, name=None):
    """``sp_input`` with its dimensions permuted by ``perm`` (reversed by default), reordered."""
    sp = _sparse(sp_input, "sparse_transpose")
    with name_scope(name, "SparseTranspose"):
        if perm is None:
            rank = sp.dense_shape._dims[0] if sp.dense_shape._dims else None
            rank = rank if rank is not None else array_ops.shape(sp.dense_shape)[0]
            perm = array_ops.range_(rank - 1, -1, -1)
        perm = convert_to_tensor(perm, dtype=dtypes.int32)
        indices = array_ops.transpose(array_ops.gather(array_ops.transpose(sp.indices), perm))
        shape = array_ops.gather(sp.dense_shape, perm)
        return sparse_reorder(SparseTensor(indices, sp.values, shape))


def _reshape_kernel(xp, indices, shape, new_shape):
    shape, new_shape = np.asarray(shape, np.int64), np.array(new_shape, np.int64)
    size = int(np.prod(shape))
    unknown = np.flatnonzero(new_shape == -1)
    if len(unknown) > 1:
        raise InvalidArgumentError(
            None, None, f"only one output dimension may be -1, not both {unknown.tolist()}"
        )
    if len(unknown):
        known = int(np.prod(new_shape[new_shape != -1]))
        new_shape[unknown[0]] = size // known if known else 0
    if int(np.prod(new_shape)) != size:
        raise InvalidArgumentError(
            None,
            None,
            f"Input to reshape is a SparseTensor with {size} dense values, but the requested shape "
            f"has {int(np.prod(new_shape))}. input_shape={shape.tolist()} output_shape={new_shape.tolist()}",
        )
    flat = (
        np.ravel_multi_index(tuple(np.asarray(indices).T), tuple(shape)) if len(indices) else np.zeros(0, int)
    )
    new_indices = np.stack(np.unravel_index(flat, tuple(new_shape)), axis=1) if len(indices) else None
    if new_indices is None:
        new_indices = np.zeros((0, len(new_shape)), np.int64)
    return new_indices.astype(np.int64), new_shape


def _reshape_infer(inputs):
    indices, _, new_shape = inputs
    rank = new_shape._dims[0] if new_shape._dims else None
    n = indices._dims[0] if indices._dims else None
    return [((n, rank), dtypes.int64), ((rank,), dtypes.int64)]


# Sparse structure ops run on the host, as TF1's (it has CPU kernels only for them).
SparseReshape = Primitive("SparseReshape", _reshape_infer, _reshape_kernel, host_only=True)


def sparse_reshape(sp_input, shape, name=None):
    """``sp_input`` read as a tensor of ``shape`` (one entry may be -1), its values unchanged."""
    sp = _sparse(sp_input, "sparse_reshape")
    new_shape = convert_to_tensor(shape, dtype=dtypes.int64)
    with name_scope(name, "SparseReshape"):
        indices, dense_shape = apply(SparseReshape, sp.indices, sp.dense_shape, new_shape)
        result = SparseTensor(indices, sp.values, dense_shape)
    return _with_static_shape(result, _static_reshape(_known(sp.dense_shape), constant_value(new_shape)))


def _static_reshape(old, new):
    """The reshaped dense shape when the graph fixes both (TF1's ValueError when they disagree)."""
    if old is None or new is None:
        return None
    size, new = int(np.prod(old)), [int(d) for d in new]
    known = int(np.prod([d for d in new if d != -1]))
    if -1 in new and known and size % known == 0:
        new[new.index(-1)] = size // known
    if int(np.prod(new)) != size:
        shown = [None if d == -1 else d for d in new]
        raise ValueError(f"Cannot reshape a tensor with {size} elements to shape {shown} ({known} elements).")
    return new


def from_dense(tensor, name=None):
    """The ``SparseTensor`` of ``tensor``'s nonzero (non-empty) entries, in row-major order."""
    x = convert_to_tensor(tensor)
    with name_scope(name, "dense_to_sparse"):
        zero = b"" if x.dtype is dtypes.string else 0
        indices = math_ops.where(math_ops.not_equal(x, constant(zero, dtype=x.dtype)))
        values = segment_ops.gather_nd(x, indices)
        return SparseTensor(indices, values, array_ops.shape(x, out_type=dtypes.int64))


# -- combining ------------------------------------------------------------------------------------


def _index_keys(indices):
    return [tuple(row) for row in np.asarray(indices).tolist()]


def _add_kernel(xp, a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    if not np.array_equal(a_shape, b_shape):
        raise InvalidArgumentError(
            None,
            None,
            f"Operands' shapes do not match: A.shape = {a_shape.tolist()} vs. B.shape = {b_shape.tolist()}",
        )
    sums: dict = {}
    for keys, values in ((_index_keys(a_indices), a_values), (_index_keys(b_indices), b_values)):
        for key, v in zip(keys, values.tolist()):
            sums[key] = sums.get(key, 0) + v
    keys = sorted(k for k, v in sums.items() if abs(v) >= thresh)
    indices = np.asarray(keys, dtype=np.int64).reshape(len(keys), len(a_shape))
    return indices, np.asarray([sums[k] for k in keys], dtype=a_values.dtype), np.asarray(a_shape)


def _add_infer(inputs):
    a_indices, a_values, a_shape, b_indices, b_values, b_shape, _ = inputs
    if a_values.dtype is not b_values.dtype:
        raise TypeError(f"sparse_add: {a_values.name} and {b_values.name} differ in dtype")
    rank = (a_shape._dims or b_shape._dims or (None,))[0]
    return [((None, rank), dtypes.int64), ((None,), a_values.dtype), ((rank,), dtypes.int64)]


def _add_grad(op, _, g, __):
    # TF1's SparseAddGrad: each input entry's gradient is its sum entry's.
    a_grad, b_grad = apply(SparseAddGrad, g, op.inputs[0], op.inputs[3], op.outputs[0])
    return [None, a_grad, None, None, b_grad, None, None]


SparseAdd = Primitive("SparseAdd", _add_infer, _add_kernel, _add_grad, host_only=True)


def _add_grad_kernel(xp, g, a_indices, b_indices, sum_indices):
    where = {key: i for i, key in enumerate(_index_keys(sum_indices))}

    def pick(indices):
        rows = [where.get(key, -1) for key in _index_keys(indices)]
        return np.asarray([g[r] if r >= 0 else 0 for r in rows], dtype=g.dtype)

    return pick(a_indices), pick(b_indices)


SparseAddGrad = Primitive(
    "SparseAddGrad",
    lambda inputs: [
        ((inputs[1]._dims or (None,))[:1], inputs[0].dtype),
        ((inputs[2]._dims or (None,))[:1], inputs[0].dtype),
    ],
    _add_grad_kernel,
    host_only=True,
    grad=NOT_DIFFERENTIABLE,
)


def sparse_add(a, b, threshold=None, thresh=None):
    """``a + b``: a ``SparseTensor`` when both are sparse (entries whose sum's magnitude is
    below ``threshold`` dropped), a dense tensor when one is dense.

    Examples
    --------
    >>> import daskflow as tf
    >>> a = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    >>> b = tf.SparseTensor([[0, 0], [1, 1]], [2.0, 5.0], [2, 2])
    >>> tf.Session().run(tf.sparse_add(a, b)).values.tolist()
    [3.0, 5.0]
    """
    threshold = argument_lookup("threshold", threshold, "thresh", thresh) or 0
    a_sparse = isinstance(a, (SparseTensor, SparseTensorValue))
    b_sparse = isinstance(b, (SparseTensor, SparseTensorValue))
    if not (a_sparse or b_sparse):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    if a_sparse and b_sparse:
        a, b = _sparse(a, "sparse_add"), _sparse(b, "sparse_add")
        thresh_t = convert_to_tensor(threshold, dtype=a.dtype)
        parts = apply(
            SparseAdd, a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape, thresh_t
        )
        return _with_static_shape(SparseTensor(*parts), _known(a.dense_shape))
    sp, dense = (_sparse(a, "sparse_add"), b) if a_sparse else (_sparse(b, "sparse_add"), a)
    return math_ops.add(sparse_tensor_to_dense(sp, validate_indices=False), dense)


def _concat_kernel(xp, *parts, axis, n):
    indices, values, shapes = parts[:n], parts[n : 2 * n], [np.asarray(s) for s in parts[2 * n :]]
    axis = axis % len(shapes[0])
    offsets = np.cumsum([0] + [int(s[axis]) for s in shapes[:-1]])
    for i, s in enumerate(shapes[1:], 1):
        others = [d for k, d in enumerate(s) if k != axis]
        if others != [d for k, d in enumerate(shapes[0]) if k != axis] or len(s) != len(shapes[0]):
            raise InvalidArgumentError(
                None,
                None,
                f"Input shapes must match: expected {shapes[0].tolist()} for input {i}, got {s.tolist()}",
            )
    shifted = []
    for ind, off in zip(indices, offsets):
        ind = np.array(ind, dtype=np.int64).reshape(-1, len(shapes[0]))
        ind[:, axis] += off
        shifted.append(ind)
    all_indices, all_values = np.concatenate(shifted), np.concatenate([np.asarray(v) for v in values])
    order = np.lexsort(all_indices.T[::-1]) if len(all_indices) else np.zeros(0, int)
    shape = shapes[0].copy()
    shape[axis] = sum(int(s[axis]) for s in shapes)
    return all_indices[order], all_values[order], shape


def _concat_infer(inputs, *, axis, n):
    values = inputs[n : 2 * n]
    if len({v.dtype for v in values}) != 1:
        raise TypeError("sparse_concat: the inputs' values must share a dtype")
    rank = next((s._dims[0] for s in inputs[2 * n :] if s._dims), None)
    return [((None, rank), dtypes.int64), ((None,), values[0].dtype), ((rank,), dtypes.int64)]


SparseConcat = Primitive(
    "SparseConcat", _concat_infer, _concat_kernel, host_only=True, grad=NOT_DIFFERENTIABLE
)


def sparse_concat(
    axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None, expand_nonconcat_dims=None
):
    """The ``SparseTensor`` of ``sp_inputs`` joined along ``axis`` (entries in row-major order)."""
    if concat_dim is not None:
        axis = concat_dim
    if expand_nonconcat_dim or expand_nonconcat_dims:
        raise refuse(
            "sparse_concat", "expand_nonconcat_dim", True, "give inputs of the same other dimensions"
        )
    sps = [_sparse(x, "sparse_concat") for x in sp_inputs]
    parts = [s.indices for s in sps] + [s.values for s in sps] + [s.dense_shape for s in sps]
    with name_scope(name, "SparseConcat"):
        result = SparseTensor(*apply(SparseConcat, *parts, axis=int(axis), n=len(sps)))
    shapes = [_known(sp.dense_shape) for sp in sps]
    if all(shape is not None for shape in shapes):
        static = list(shapes[0])
        static[int(axis) % len(static)] = sum(shape[int(axis) % len(static)] for shape in shapes)
        _with_static_shape(result, static)
    return result


# -- softmax -----------------------------------------------------------------------------------


def _groups_kernel(xp, indices):
    if not len(indices):
        return np.zeros(0, np.int32), np.int32(0)
    _, ids = np.unique(np.asarray(indices)[:, :-1], axis=0, return_inverse=True)
    ids = ids.reshape(-1).astype(np.int32)
    return ids, np.int32(ids.max() + 1)


# Which entries share all coordinates but the last (one softmax each), and how many groups.
SparseGroups = Primitive(
    "SparseGroups",
    lambda inputs: [((inputs[0]._dims or (None,))[:1], dtypes.int32), ((), dtypes.int32)],
    _groups_kernel,
    host_only=True,
)


def sparse_softmax(sp_input, name=None):
    """The softmax of ``sp_input``'s values over its last dimension (absent entries take no part)."""
    sp = _sparse(sp_input, "sparse_softmax")
    with name_scope(name, "SparseSoftmax"):
        ids, n = apply(SparseGroups, sp.indices)
        v = sp.values
        shifted = v - array_ops.gather(segment_ops.unsorted_segment_max(v, ids, n), ids)
        e = math_ops.exp(shifted)
        values = e / array_ops.gather(segment_ops.unsorted_segment_sum(e, ids, n), ids)
        return SparseTensor(sp.indices, values, sp.dense_shape)


# -- embeddings ----------------------------------------------------------------------------------


def embedding_lookup_sparse(
    params,
    sp_ids,
    sp_weights,
    partition_strategy="mod",
    name=None,
    combiner=None,
    max_norm=None,
    allow_fast_lookup=False,
):
    """Per row of ``sp_ids``, the ``combiner`` (``"mean"`` by default, ``"sum"``, ``"sqrtn"``)
    of the embeddings of its ids, weighted by ``sp_weights`` (None: weight 1)."""
    combiner = combiner or "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    sp_ids = _sparse(sp_ids, "embedding_lookup_sparse")
    with name_scope(name, "embedding_lookup_sparse"):
        segments = math_ops.cast(sp_ids.indices[:, 0], dtypes.int32)
        rows = embedding_lookup(params, sp_ids.values, partition_strategy, max_norm=max_norm)
        if sp_weights is None:
            weights = math_ops.cast(array_ops.ones_like(segments), rows.dtype)
        else:
            weights = _sparse(sp_weights, "embedding_lookup_sparse").values
            rows = rows * array_ops.expand_dims(weights, -1)
        total = segment_ops.segment_sum(rows, segments)
        if combiner == "sum":
            return total
        norm = segment_ops.segment_sum(weights if combiner == "mean" else weights * weights, segments)
        norm = norm if combiner == "mean" else math_ops.sqrt(norm)
        if sp_weights is None:  # TF1's sparse_segment_mean/sqrt_n: an empty row is zeros
            norm = math_ops.maximum(norm, 1.0)
        return total / array_ops.expand_dims(norm, -1)


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """``sp_input`` with ``default_value`` at column 0 of each row that has no entry, in
    row-major order; and a bool vector saying which rows were empty (TF1's function)."""
    sp = _sparse(sp_input, "sparse_fill_empty_rows")
    with name_scope(name, "SparseFillEmptyRows"):
        rank = array_ops.shape_of(sp.dense_shape)  # (rank,)
        n_rows = math_ops.cast(sp.dense_shape[0], dtypes.int32)
        present = segment_ops.unsorted_segment_sum(
            array_ops.ones_like(sp.indices[:, 0], dtype=dtypes.int32),
            math_ops.cast(sp.indices[:, 0], dtypes.int32),
            n_rows,
        )
        empty = math_ops.equal(present, 0)
        empty_rows = math_ops.where(empty)  # (k, 1) int64
        zeros = array_ops.zeros(
            array_ops.stack([array_ops.shape(empty_rows)[0], rank[0] - 1]), dtype=dtypes.int64
        )
        filled_indices = array_ops.concat([sp.indices, array_ops.concat([empty_rows, zeros], 1)], 0)
        fill = array_ops.fill(
            array_ops.shape(empty_rows)[:1], convert_to_tensor(default_value, dtype=sp.values.dtype)
        )
        filled = SparseTensor(filled_indices, array_ops.concat([sp.values, fill], 0), sp.dense_shape)
        return sparse_reorder(filled), empty


def safe_embedding_lookup_sparse(
    embedding_weights,
    sparse_ids,
    sparse_weights=None,
    combiner="mean",
    default_id=None,
    name=None,
    partition_strategy="div",
    max_norm=None,
    allow_fast_lookup=False,
):
    """``embedding_lookup_sparse`` that tolerates bad input, as TF1's: ids below 0 (and,
    unless ``combiner`` is ``"sum"``, weights not above 0) are dropped; a row left empty
    gets ``default_id`` 's embedding, or zeros when it is None. ``sparse_ids`` of rank
    above 2 give a result of its leading shape plus the embedding's."""
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    ids = _sparse(sparse_ids, "safe_embedding_lookup_sparse")
    weights = None if sparse_weights is None else _sparse(sparse_weights, "safe_embedding_lookup_sparse")
    with name_scope(name, "embedding_lookup"):
        original_shape = ids.dense_shape
        flat = array_ops.stack([math_ops.reduce_prod(original_shape[:-1]), original_shape[-1]])
        ids = sparse_reshape(ids, flat)
        weights = None if weights is None else sparse_reshape(weights, flat)
        valid = math_ops.greater_equal(ids.values, 0)
        if weights is not None and combiner != "sum":  # TF1 keeps weights <= 0 for a sum
            valid = math_ops.logical_and(valid, math_ops.greater(weights.values, 0))
        if weights is not None:
            weights = sparse_retain(weights, valid)
        ids = sparse_retain(ids, valid)
        ids, empty = sparse_fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights, _ = sparse_fill_empty_rows(weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights, ids, weights, partition_strategy, combiner=combiner, max_norm=max_norm
        )
        if default_id is None:  # an empty row is zeros
            result = math_ops.where(
                array_ops.broadcast_to(array_ops.reshape(empty, [-1, 1]), array_ops.shape(result)),
                array_ops.zeros_like(result),
                result,
            )
        leading = math_ops.cast(original_shape[:-1], dtypes.int32)
        return array_ops.reshape(result, array_ops.concat([leading, array_ops.shape(result)[1:]], 0))
