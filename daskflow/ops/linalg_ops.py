"""Linear algebra: diagonals, bands, inverse, determinant, ``einsum``, ``norm``...

Primitives for what numpy does in one call (``Diag``, ``MatrixInverse``,
``Einsum``...), each with its gradient; ``norm``, ``tensordot``,
``linspace`` and ``meshgrid`` are composed from other ops.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.arguments import refuse
from ..framework.constant import constant, convert_to_tensor
from ..framework.graph import Tensor
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .array_ops import static_scalar
from .infer import check_same_dtype, normalize_axes

# -- diagonals --------------------------------------------------------------------------------


def _diag_kernel(xp, x):
    n = x.size
    out = xp.zeros((n, n), dtype=x.dtype)
    out[xp.arange(n), xp.arange(n)] = x.reshape(-1)
    return out.reshape(x.shape + x.shape)


def _diag_part_infer(inputs):
    x = inputs[0]
    dims = x._dims
    if dims is None:
        return None, x.dtype
    k = len(dims) // 2
    if len(dims) % 2 or any(a is not None and b is not None and a != b for a, b in zip(dims[:k], dims[k:])):
        raise ValueError(f"diag_part: {x.name} of shape {x.shape} is not of shape s + s")
    return tuple(a if a is not None else b for a, b in zip(dims[:k], dims[k:])), x.dtype


def _diag_part_kernel(xp, x):
    k = x.ndim // 2
    n = int(np.prod(x.shape[:k]))
    return xp.diagonal(x.reshape(n, n)).reshape(x.shape[:k])


Diag = Primitive(
    "Diag",
    lambda inputs: (None if inputs[0]._dims is None else inputs[0]._dims * 2, inputs[0].dtype),
    _diag_kernel,
    lambda op, g: [diag_part(g)],
)
DiagPart = Primitive("DiagPart", _diag_part_infer, _diag_part_kernel, lambda op, g: [diag(g)])


def diag(diagonal, name=None):
    """The tensor of shape ``s + s`` with ``diagonal`` (shape ``s``) on its diagonal."""
    return apply(Diag, diagonal, name=name)


def diag_part(input, name=None):  # noqa: A002
    """The diagonal of a tensor of shape ``s + s`` (the inverse of :func:`diag`)."""
    return apply(DiagPart, input, name=name)


def _at_least(x, rank, what):
    if x._dims is not None and len(x._dims) < rank:
        raise ValueError(f"{what}: {x.name} must have rank >= {rank}, got shape {x.shape}")


def _matrix_diag_infer(inputs):
    x = inputs[0]
    _at_least(x, 1, "matrix_diag")
    return (None if x._dims is None else x._dims + x._dims[-1:]), x.dtype


def _matrix_diag_kernel(xp, x):
    n = x.shape[-1]
    out = xp.zeros(x.shape + (n,), dtype=x.dtype)
    out[..., xp.arange(n), xp.arange(n)] = x
    return out


def _matrix_diag_part_infer(inputs):
    x = inputs[0]
    _at_least(x, 2, "matrix_diag_part")
    if x._dims is None:
        return None, x.dtype
    m, n = x._dims[-2:]
    d = None if m is None or n is None else min(m, n)
    return x._dims[:-2] + (d,), x.dtype


def _matrix_diag_part_grad(op, g):
    # The gradient puts g on the diagonal of a zero matrix of the input's shape (rectangular too).
    x = op.inputs[0]
    mask = matrix_band_part(array_ops.ones_like(x), 0, 0)
    dims = x._dims
    tall = dims is not None and dims[-2] is not None and dims[-1] is not None and dims[-2] > dims[-1]
    return [mask * array_ops.expand_dims(g, -2 if tall else -1)]


MatrixDiag = Primitive(
    "MatrixDiag", _matrix_diag_infer, _matrix_diag_kernel, lambda op, g: [matrix_diag_part(g)]
)
MatrixDiagPart = Primitive(
    "MatrixDiagPart",
    _matrix_diag_part_infer,
    lambda xp, x: xp.array(xp.diagonal(x, axis1=-2, axis2=-1)),
    _matrix_diag_part_grad,
)


def _main_diagonal_only(fn, k, padding_value, align, **sizes):
    """Refuse TF 2's off-diagonal arguments (``k`` and what goes with it) unless at their defaults."""
    advice = "daskflow has the main diagonal only: leave it at its default"
    if k != 0:
        raise refuse(fn, "k", k, advice)
    for argument, value in sizes.items():
        if value != -1:
            raise refuse(fn, argument, value, advice)
    if padding_value != 0:
        raise refuse(fn, "padding_value", padding_value, advice)
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise ValueError(
            f"{fn}: align must be one of RIGHT_LEFT, LEFT_RIGHT, LEFT_LEFT, RIGHT_RIGHT, got {align!r}"
        )


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched :func:`diag`: ``[..., n]`` to ``[..., n, n]`` (the main diagonal; ``align``
    only matters off it)."""
    _main_diagonal_only("matrix_diag", k, padding_value, align, num_rows=num_rows, num_cols=num_cols)
    return apply(MatrixDiag, diagonal, name=name)


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """Batched diagonal: ``[..., m, n]`` to ``[..., min(m, n)]`` (the main diagonal)."""
    _main_diagonal_only("matrix_diag_part", k, padding_value, align)
    return apply(MatrixDiagPart, input, name=name)


def _band_kernel(xp, x, *, num_lower, num_upper):
    m, n = x.shape[-2:]
    offset = xp.arange(n)[None, :] - xp.arange(m)[:, None]  # j - i
    keep = xp.ones((m, n), dtype=bool)
    if num_lower >= 0:
        keep &= -offset <= num_lower
    if num_upper >= 0:
        keep &= offset <= num_upper
    return xp.where(keep, x, xp.zeros((), dtype=x.dtype))


def _band_infer(inputs, **_):
    _at_least(inputs[0], 2, "matrix_band_part")
    return inputs[0]._dims, inputs[0].dtype


MatrixBandPart = Primitive(
    "MatrixBandPart",
    _band_infer,
    _band_kernel,
    lambda op, g: [apply(MatrixBandPart, g, **op.attrs)],
)


def _static_int(v, what):
    value = static_scalar(convert_to_tensor(v)) if isinstance(v, Tensor) else v
    if value is None:
        raise NotImplementedError(f"matrix_band_part: {what} must be known when the graph is built")
    return int(value)


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keep ``num_lower`` sub-diagonals and ``num_upper`` super-diagonals (all when negative).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.matrix_band_part(tf.ones([3, 3]), 0, -1)).tolist()  # upper triangle
    [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    """
    lower, upper = _static_int(num_lower, "num_lower"), _static_int(num_upper, "num_upper")
    return apply(MatrixBandPart, input, num_lower=lower, num_upper=upper, name=name)


# -- inverse and determinant -------------------------------------------------------------------


def _square_infer(inputs, what, drop=0):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise TypeError(f"{what}: {x.name} must be floating-point, got {x.dtype.name}")
    _at_least(x, 2, what)
    if x._dims is None:
        return None, x.dtype
    m, n = x._dims[-2:]
    if m is not None and n is not None and m != n:
        raise ValueError(f"{what}: {x.name} must be a batch of square matrices, got shape {x.shape}")
    side = n if m is None else m  # square: either known side is both (TF1 merges them too)
    return (*x._dims[:-2], side, side)[: len(x._dims) - drop], x.dtype


def _inverse_kernel(xp, x):
    try:
        return xp.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise ValueError("Input is not invertible.") from None


def _inverse_grad(op, g):
    inv = op.outputs[0]
    return [-math_ops.matmul(inv, math_ops.matmul(g, inv, transpose_b=True), transpose_a=True)]


def _det_grad(op, g):
    scale = array_ops.expand_dims(array_ops.expand_dims(g * op.outputs[0], -1), -1)
    return [scale * array_ops.matrix_transpose(matrix_inverse(op.inputs[0]))]


MatrixInverse = Primitive(
    "MatrixInverse", lambda inputs: _square_infer(inputs, "matrix_inverse"), _inverse_kernel, _inverse_grad
)
MatrixDeterminant = Primitive(
    "MatrixDeterminant",
    lambda inputs: _square_infer(inputs, "matrix_determinant", drop=2),
    lambda xp, x: xp.asarray(xp.linalg.det(x), dtype=x.dtype),
    _det_grad,
)


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each square matrix ``input[..., :, :]`` (a singular one fails the run)."""
    x = convert_to_tensor(input)
    if adjoint:
        x = array_ops.matrix_transpose(x)
    return apply(MatrixInverse, x, name=name)


def matrix_determinant(input, name=None):  # noqa: A002
    """The determinant of each square matrix ``input[..., :, :]``."""
    return apply(MatrixDeterminant, input, name=name)


# -- einsum ---------------------------------------------------------------------------------------


def _parse(equation, n_inputs):
    """``(input subscripts, output subscripts)`` with an explicit output (numpy's implicit rule)."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != n_inputs:
        raise ValueError(
            f"einsum: equation {equation!r} has {len(subs)} operands, {n_inputs} inputs were given"
        )
    if not arrow:
        if "." in lhs:
            raise NotImplementedError(f"einsum: an ellipsis needs an explicit output ('->') in {equation!r}")
        letters = "".join(subs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return subs, out


def _einsum_infer(inputs, *, equation):
    dt = check_same_dtype(inputs)
    subs, out = _parse(equation, len(inputs))
    if "." in equation:
        return None, dt
    sizes, where = {}, {}
    for s, t in zip(subs, inputs):
        if t._dims is None:
            continue
        if len(t._dims) != len(s):
            raise ValueError(f"einsum: subscripts {s!r} do not match {t.name} of shape {t.shape}")
        for c, d in zip(s, t._dims):
            if d is None:
                continue
            if sizes.setdefault(c, d) != d:
                raise ValueError(
                    f"einsum {equation!r}: dimension {c!r} is {sizes[c]} in {where[c]} but {d} in {t.name}"
                )
            where.setdefault(c, t.name)
    if any(c not in "".join(subs) for c in out):
        raise ValueError(f"einsum {equation!r}: output subscript not in any input")
    known = all(t._dims is not None for t in inputs)
    return (tuple(sizes.get(c) for c in out) if known else None), dt


def _einsum_grad(op, g):
    """d/dx_i = einsum(out, other operands -> s_i); x_i's own subscripts ride along through
    ``ones_like(x_i)`` when some of its letters are summed away nowhere else."""
    subs, out = _parse(op.attrs["equation"], len(op.inputs))
    equation = op.attrs["equation"]
    if "." in equation or any(len(set(s)) != len(s) for s in subs + [out]):
        raise NotImplementedError(
            f"the gradient of einsum {equation!r} is not supported (ellipsis or a repeated subscript)"
        )
    grads = []
    for i, (s, x) in enumerate(zip(subs, op.inputs)):
        others = [(t, y) for j, (t, y) in enumerate(zip(subs, op.inputs)) if j != i]
        seen = out + "".join(t for t, _ in others)
        operands = [g] + [y for _, y in others]
        terms = [out] + [t for t, _ in others]
        if any(c not in seen for c in s):
            operands.append(array_ops.ones_like(x))
            terms.append(s)
        grads.append(einsum(f"{','.join(terms)}->{s}", *operands))
    return grads


Einsum = Primitive(
    "Einsum", _einsum_infer, lambda xp, *xs, equation: xp.asarray(xp.einsum(equation, *xs)), _einsum_grad
)


def einsum(equation, *inputs, name=None, **_):
    """Tensor contraction in Einstein notation (numpy's ``einsum``).

    The gradient supports subscripts without an ellipsis or a letter repeated
    within one operand; other equations run but refuse differentiation.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.einsum("ij,jk->ik", tf.ones([2, 3]), tf.ones([3, 4])).shape.as_list()
    [2, 4]
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a string, got {type(equation).__name__}")
    tensors = [convert_to_tensor(x) for x in inputs]
    if not tensors:
        raise ValueError("einsum needs at least one input")
    subs, out = _parse(equation, len(tensors))
    equation = equation.replace(" ", "") if "->" in equation else f"{','.join(subs)}->{out}"
    return apply(Einsum, *tensors, equation=equation, name=name)


# -- composed ----------------------------------------------------------------------------------


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    if ord in ("euclidean", "fro", 2, 2.0):
        return math_ops.sqrt(math_ops.reduce_sum(x * x, axis, keepdims=keepdims))
    if ord == 1:
        return math_ops.reduce_sum(math_ops.abs(x), axis, keepdims=keepdims)
    if ord == np.inf:
        return math_ops.reduce_max(math_ops.abs(x), axis, keepdims=keepdims)
    p = float(ord)
    return math_ops.pow(
        math_ops.reduce_sum(math_ops.pow(math_ops.abs(x), p), axis, keepdims=keepdims), 1.0 / p
    )


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    if ord in ("euclidean", "fro"):
        return _vector_norm(x, ord, axes, keepdims)
    rows, cols = axes
    if ord == 1:  # the largest column sum
        inner, outer = rows, cols
    else:  # inf: the largest row sum
        inner, outer = cols, rows
    sums = math_ops.reduce_sum(math_ops.abs(x), inner, keepdims=True)
    result = math_ops.reduce_max(sums, outer, keepdims=True)
    return result if keepdims else array_ops.squeeze(result, list(axes))


_MATRIX_ORDS = ("euclidean", "fro", 1, np.inf)


def _check_ord(ord, is_matrix, axis):  # noqa: A002
    if is_matrix:
        if ord not in _MATRIX_ORDS:
            raise ValueError(
                f"norm: ord {ord!r} is not a supported matrix norm; use one of {list(_MATRIX_ORDS)}"
            )
        return
    # 'fro' over a single axis is a matrix norm of a vector: TF1 refuses it.
    named = ord == "euclidean" or (ord == "fro" and axis is None)
    positive = isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0
    if not (named or positive):
        raise ValueError(
            f"norm: ord {ord!r} is not a supported vector norm ('euclidean', 1, 2, np.inf, p > 0)"
        )


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """The vector norm over ``axis`` (all entries when None), or the matrix norm over an axis pair.

    ``ord``: ``'euclidean'``, ``'fro'``, 1, 2, ``np.inf`` or any p > 0 for vectors;
    ``'euclidean'``/``'fro'``, 1 and ``np.inf`` for matrices, as TF1.
    """
    x = convert_to_tensor(tensor)
    keepdims = bool(keep_dims if keep_dims is not None else keepdims)
    if isinstance(axis, (list, tuple)) and len(axis) not in (1, 2):
        raise ValueError(f"norm: axis must be an int or a pair of ints, got {axis!r}")
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    _check_ord(ord, is_matrix, axis)
    if is_matrix:
        axes = normalize_axes(axis, x.shape.ndims, "norm axis")
        if len(axes) != 2:
            raise ValueError(f"norm: the two matrix axes must differ, got {axis!r}")
        axes = tuple(int(a) % x.shape.ndims if x.shape.ndims else int(a) for a in axis)
        result = _matrix_norm(x, ord, axes, keepdims)
    else:
        result = _vector_norm(x, ord, axis, keepdims)
    return array_ops.identity(result, name=name)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop``, both included (scalar ends)."""
    if axis not in (0, -1):
        raise refuse("linspace", "axis", axis, "daskflow spaces scalar ends only: leave axis=0")
    start = convert_to_tensor(start)
    if not start.dtype.is_floating:
        raise TypeError(f"linspace: start {start.name} must be floating-point, got {start.dtype.name}")
    stop = convert_to_tensor(stop, dtype=start.dtype)
    num = convert_to_tensor(num, dtype=dtypes.int32)
    steps = math_ops.cast(math_ops.maximum(num - 1, 1), start.dtype)
    i = math_ops.cast(array_ops.range_(0, num), start.dtype)
    return math_ops.add(start, i * ((stop - start) / steps), name=name)


lin_space = linspace


def meshgrid(*args, indexing="xy", name=None, **_):
    """Coordinate grids from 1-D tensors (``indexing='xy'``: the first two axes swapped, as numpy)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [array_ops.reshape(convert_to_tensor(a), [-1]) for a in args]
    n = len(xs)
    sizes = [array_ops.shape(x) for x in xs]
    order = list(range(n))
    if indexing == "xy" and n > 1:
        order[0], order[1] = 1, 0
    shape = array_ops.concat([sizes[i] for i in order], 0)
    grids = []
    for i, x in enumerate(xs):
        pos = order.index(i)
        shaped = array_ops.reshape(x, [-1 if j == pos else 1 for j in range(n)])
        grids.append(shaped * array_ops.ones(shape, dtype=x.dtype))
    return grids


def _tensordot_axes(a, b, axes):
    ra, rb = a.shape.ndims, b.shape.ndims
    if ra is None or rb is None:
        raise ValueError(f"tensordot needs inputs of known rank ({a.name}, {b.name})")
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= min(ra, rb):
            raise ValueError(f"tensordot: axes={axes} is out of range for ranks {ra} and {rb}")
        return list(range(ra - axes, ra)), list(range(axes))
    a_axes, b_axes = ([x] if isinstance(x, (int, np.integer)) else list(x) for x in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(
            f"tensordot: axes {axes!r} pair {len(a_axes)} axes of {a.name} with {len(b_axes)} of {b.name}"
        )
    return [int(x) % ra for x in a_axes], [int(x) % rb for x in b_axes]


def _flat(x, front, back):
    """Transpose ``x`` to ``front + back`` and reshape to a matrix; also ``front``'s dims."""
    t = array_ops.transpose(x, front + back) if front + back != list(range(len(front + back))) else x
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        rows = int(np.prod([dims[i] for i in front]))
        cols = int(np.prod([dims[i] for i in back]))
        return array_ops.reshape(t, [rows, cols]), [dims[i] for i in front], [dims[i] for i in back]
    s = array_ops.shape(x)
    f = array_ops.gather(s, constant(front, dtype=dtypes.int32))
    bk = array_ops.gather(s, constant(back, dtype=dtypes.int32))
    shape2 = array_ops.stack([math_ops.reduce_prod(f), math_ops.reduce_prod(bk)])
    return array_ops.reshape(t, shape2), f, bk


def tensordot(a, b, axes, name=None):
    """Sum of products over ``axes`` (an int N: the last N of ``a`` with the first N of ``b``;
    or a pair of axis lists), built from transpose, reshape and matmul."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    a_axes, b_axes = _tensordot_axes(a, b, axes)
    for x, ax in ((a, a_axes), (b, b_axes)):
        if len(set(ax)) != len(ax):
            raise ValueError(f"tensordot: axes {ax} of {x.name} repeat an axis")
    a_free = [i for i in range(a.shape.ndims) if i not in a_axes]
    b_free = [i for i in range(b.shape.ndims) if i not in b_axes]
    a2, a_dims, _ = _flat(a, a_free, a_axes)
    b2, _, b_dims = _flat(b, b_axes, b_free)
    product = math_ops.matmul(a2, b2)
    if isinstance(a_dims, list) and isinstance(b_dims, list):
        return array_ops.reshape(product, a_dims + b_dims, name=name)
    as_tensor = [d if isinstance(d, Tensor) else constant(d, dtype=dtypes.int32) for d in (a_dims, b_dims)]
    result = array_ops.reshape(product, array_ops.concat(as_tensor, 0), name=name)
    # The shape is computed at run time; its static part is the free axes' known sizes.
    result.set_shape([a.shape.as_list()[i] for i in a_free] + [b.shape.as_list()[i] for i in b_free])
    return result
