"""Moving space into depth or batch and back: ``space_to_depth``/``depth_to_space`` and
``space_to_batch_nd``/``batch_to_space_nd`` (with TF1's older ``space_to_batch`` and
``batch_to_space``). Each pair is the other's gradient, as in TF1.

Every kernel is a reshape and a transpose (with a pad or a crop), the layout TF1's
kernels give, checked against TF1's values. ``block_shape``, ``paddings`` and
``crops`` are tensors, as in TF1; static shapes are known where their values are.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor
from ..framework.primitive import Primitive
from .infer import constant_value

# -- space_to_depth and depth_to_space ------------------------------------------------------------


def _depth_infer(inputs, *, block_size, data_format, to_depth):
    x = inputs[0]
    what = "space_to_depth" if to_depth else "depth_to_space"
    if x._dims is None:
        return None, x.dtype
    if len(x._dims) != 4:
        raise ValueError(f"{what}: {x.name} must have rank 4, got shape {x.shape}")
    n, h, w, c = _nhwc(x._dims, data_format)
    b = block_size
    if to_depth:
        for d, axis in ((h, "height"), (w, "width")):
            if d is not None and d % b:
                raise ValueError(f"{what}: the {axis} {d} of {x.name} is not divisible by block_size {b}")
        out = (n, _div(h, b), _div(w, b), None if c is None else c * b * b)
    else:
        if c is not None and c % (b * b):
            raise ValueError(f"{what}: the depth {c} of {x.name} is not divisible by block_size^2 = {b * b}")
        out = (n, _mul(h, b), _mul(w, b), _div(c, b * b))
    return _from_nhwc(out, data_format), x.dtype


def _nhwc(dims, data_format):
    return dims if data_format == "NHWC" else (dims[0], dims[2], dims[3], dims[1])


def _from_nhwc(dims, data_format):
    return tuple(dims) if data_format == "NHWC" else (dims[0], dims[3], dims[1], dims[2])


def _div(d, b):
    return None if d is None else d // b


def _mul(d, b):
    return None if d is None else d * b


def _depth_kernel(xp, x, *, block_size, data_format, to_depth):
    if data_format == "NCHW":
        x = xp.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    b = block_size
    if to_depth:
        if h % b or w % b:
            raise ValueError(f"space_to_depth: height {h} and width {w} must be divisible by {b}")
        y = (
            x.reshape(n, h // b, b, w // b, b, c)
            .transpose(0, 1, 3, 2, 4, 5)
            .reshape(n, h // b, w // b, b * b * c)
        )
    else:
        if c % (b * b):
            raise ValueError(f"depth_to_space: depth {c} must be divisible by {b * b}")
        y = (
            x.reshape(n, h, w, b, b, c // (b * b))
            .transpose(0, 1, 3, 2, 4, 5)
            .reshape(n, h * b, w * b, c // (b * b))
        )
    y = xp.ascontiguousarray(y)
    return xp.ascontiguousarray(xp.transpose(y, (0, 3, 1, 2))) if data_format == "NCHW" else y


def _depth_grad(op, g):
    attrs = dict(op.attrs, to_depth=not op.attrs["to_depth"])
    return [apply(SpaceDepth, g, **attrs)]


SpaceDepth = Primitive("SpaceToDepth", _depth_infer, _depth_kernel, _depth_grad)


def _space_depth(input, block_size, name, data_format, to_depth):  # noqa: A002
    what = "space_to_depth" if to_depth else "depth_to_space"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{what}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    block_size = int(block_size)
    if block_size < 2:
        raise ValueError(f"{what}: block_size must be at least 2, got {block_size}")
    return apply(
        SpaceDepth, input, block_size=block_size, data_format=data_format, to_depth=to_depth, name=name
    )


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Move each ``block_size x block_size`` block of pixels into the depth axis.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.space_to_depth(tf.zeros([1, 4, 6, 3]), 2).shape.as_list()
    [1, 2, 3, 12]
    """
    return _space_depth(input, block_size, name, data_format, True)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Move depth into ``block_size x block_size`` blocks of pixels (space_to_depth's inverse)."""
    return _space_depth(input, block_size, name, data_format, False)


# -- space_to_batch_nd and batch_to_space_nd ------------------------------------------------------


def _static(t):
    v = constant_value(t)
    return None if v is None else v.astype(np.int64)


def _batch_infer(inputs, *, to_batch):
    x, block, pads = inputs
    what = "space_to_batch_nd" if to_batch else "batch_to_space_nd"
    for t in (block, pads):
        if not t.dtype.is_integer:
            raise TypeError(f"{what}: {t.name} must be int32 or int64, got {t.dtype.name}")
    if block._dims is not None and len(block._dims) != 1:
        raise ValueError(f"{what}: block_shape {block.name} must be a vector, got shape {block.shape}")
    if pads._dims is not None and (len(pads._dims) != 2 or pads._dims[1] not in (None, 2)):
        raise ValueError(f"{what}: {pads.name} must have shape [M, 2], got {pads.shape}")
    m = block._dims[0] if block._dims is not None else None
    if x._dims is None or m is None:
        return None, x.dtype
    if len(x._dims) < m + 1:
        raise ValueError(f"{what}: {x.name} of shape {x.shape} has fewer than {m} spatial dimensions")
    b, p, rest = _static(block), _static(pads), x._dims[m + 1 :]
    if b is None or p is None:
        return (None,) * (m + 1) + rest, x.dtype
    if bool((b < 1).any()) or bool((p < 0).any()):
        raise ValueError(f"{what}: block_shape must be positive and paddings non-negative, got {b} and {p}")
    return _batch_dims(what, x, x._dims, b, p, to_batch) + rest, x.dtype


def _batch_dims(what, x, dims, b, p, to_batch):
    n, spatial, k = dims[0], dims[1 : len(b) + 1], int(np.prod(b))
    if to_batch:
        out = []
        for d, bi, (lo, hi) in zip(spatial, b, p):
            if d is not None and (d + lo + hi) % bi:
                raise ValueError(
                    f"{what}: padded size {d + lo + hi} of {x.name} is not divisible by block size {bi}"
                )
            out.append(None if d is None else (d + lo + hi) // int(bi))
        return (None if n is None else n * k,) + tuple(out)
    if n is not None and n % k:
        raise ValueError(f"{what}: the batch {n} of {x.name} is not divisible by the blocks' product {k}")
    out = tuple(
        None if d is None else d * int(bi) - int(lo) - int(hi) for d, bi, (lo, hi) in zip(spatial, b, p)
    )
    return (None if n is None else n // k,) + out


def _to_batch_kernel(xp, x, block, pads):
    b, m = [int(v) for v in block], len(block)
    widths = [(0, 0)] + [(int(lo), int(hi)) for lo, hi in pads] + [(0, 0)] * (x.ndim - m - 1)
    x = xp.pad(x, widths)
    n, spatial, rest = x.shape[0], x.shape[1 : m + 1], x.shape[m + 1 :]
    if any(d % bi for d, bi in zip(spatial, b)):
        raise ValueError(
            f"space_to_batch_nd: padded shape {list(spatial)} is not divisible by block_shape {b}"
        )
    split = [n] + [v for d, bi in zip(spatial, b) for v in (d // bi, bi)] + list(rest)
    perm = (
        [2 + 2 * i for i in range(m)]
        + [0]
        + [1 + 2 * i for i in range(m)]
        + list(range(2 * m + 1, len(split)))
    )
    y = x.reshape(split).transpose(perm)
    return xp.ascontiguousarray(y).reshape(
        [n * int(np.prod(b))] + [d // bi for d, bi in zip(spatial, b)] + list(rest)
    )


def _to_space_kernel(xp, x, block, crops):
    b, m = [int(v) for v in block], len(block)
    k = int(np.prod(b))
    if x.shape[0] % k:
        raise ValueError(f"batch_to_space_nd: batch {x.shape[0]} is not divisible by the blocks' product {k}")
    n, spatial, rest = x.shape[0] // k, x.shape[1 : m + 1], x.shape[m + 1 :]
    y = x.reshape(b + [n] + list(spatial) + list(rest))
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, y.ndim))
    y = xp.ascontiguousarray(y.transpose(perm)).reshape(
        [n] + [d * bi for d, bi in zip(spatial, b)] + list(rest)
    )
    cut = tuple(slice(int(lo), y.shape[i + 1] - int(hi)) for i, (lo, hi) in enumerate(crops))
    return xp.ascontiguousarray(y[(slice(None),) + cut])


def _batch_kernel(xp, x, block, pads, *, to_batch):
    return (_to_batch_kernel if to_batch else _to_space_kernel)(xp, x, block, pads)


SpaceBatch = Primitive(
    "SpaceToBatchND",
    _batch_infer,
    _batch_kernel,
    lambda op, g: [apply(SpaceBatch, g, *op.inputs[1:], to_batch=not op.attrs["to_batch"]), None, None],
)


def _int(v, name):
    return convert_to_tensor(v, dtype=None if isinstance(v, Tensor) else dtypes.int32, name=name)


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Pad the ``M`` spatial axes of ``input`` by ``paddings`` and move each
    ``block_shape`` block of positions into the batch axis.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.space_to_batch_nd(tf.zeros([1, 4, 4, 3]), [2, 2], [[0, 0], [0, 0]]).shape.as_list()
    [4, 2, 2, 3]
    """
    return apply(
        SpaceBatch,
        input,
        _int(block_shape, "block_shape"),
        _int(paddings, "paddings"),
        to_batch=True,
        name=name,
    )


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """Move blocks of the batch axis back into the ``M`` spatial axes, then crop them by
    ``crops`` (space_to_batch_nd's inverse)."""
    return apply(
        SpaceBatch, input, _int(block_shape, "block_shape"), _int(crops, "crops"), to_batch=False, name=name
    )


def _square_block(fn, block_size, block_shape):
    block = block_shape if block_shape is not None else block_size
    if block is None:
        raise TypeError(f"{fn}: give block_size")
    return [block, block]


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """:func:`space_to_batch_nd` over two spatial axes with a square block (TF1's older form)."""
    block = _square_block("space_to_batch", block_size, block_shape)
    return space_to_batch_nd(input, block, paddings, name=name)


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """:func:`batch_to_space_nd` over two spatial axes with a square block (TF1's older form)."""
    block = _square_block("batch_to_space", block_size, block_shape)
    return batch_to_space_nd(input, block, crops, name=name)
