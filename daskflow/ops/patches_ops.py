"""``tf.extract_image_patches``: each ``ksizes`` patch of an NHWC image (with ``strides``,
dilation ``rates`` and SAME/VALID padding as a convolution's), flattened into the
depth axis in TF1's ``(row, column, channel)`` order. Its gradient adds each patch
entry back where it came from, as TF1's does.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.primitive import Primitive
from .infer import shaped_like_second


def _geometry(size, k, stride, rate, padding):
    """Output size and leading padding of one spatial axis (TF's convolution rule)."""
    k_eff = k + (k - 1) * (rate - 1)
    if padding == "VALID":
        return max(-(-(size - k_eff + 1) // stride), 0), 0
    out = -(-size // stride)
    return out, max((out - 1) * stride + k_eff - size, 0) // 2


def _out_dim(size, k, stride, rate, padding):
    return None if size is None else _geometry(size, k, stride, rate, padding)[0]


def _patches_infer(inputs, *, ksizes, strides, rates, padding):
    x = inputs[0]
    if x._dims is None:
        return None, x.dtype
    if len(x._dims) != 4:
        raise ValueError(f"extract_image_patches: images {x.name} must have rank 4, got shape {x.shape}")
    n, h, w, c = x._dims
    # TF1's shape function knows neither output size unless both input sizes are known.
    known = h is not None and w is not None
    rows = _out_dim(h if known else None, ksizes[1], strides[1], rates[1], padding)
    cols = _out_dim(w if known else None, ksizes[2], strides[2], rates[2], padding)
    return (n, rows, cols, None if c is None else c * ksizes[1] * ksizes[2]), x.dtype


def _windows(shape, ksizes, strides, rates, padding):
    """The padded image's shape, the padding, and for each kernel entry its slice."""
    n, h, w, c = shape
    rows, top = _geometry(h, ksizes[1], strides[1], rates[1], padding)
    cols, left = _geometry(w, ksizes[2], strides[2], rates[2], padding)
    hp = max(h + top, (rows - 1) * strides[1] + (ksizes[1] - 1) * rates[1] + 1)
    wp = max(w + left, (cols - 1) * strides[2] + (ksizes[2] - 1) * rates[2] + 1)
    cuts = [
        (slice(i * rates[1], i * rates[1] + (rows - 1) * strides[1] + 1, strides[1]),
         slice(j * rates[2], j * rates[2] + (cols - 1) * strides[2] + 1, strides[2]))
        for i in range(ksizes[1])
        for j in range(ksizes[2])
    ]  # fmt: skip
    return (n, hp, wp, c), (top, left), (rows, cols), cuts


def _patches_kernel(xp, x, *, ksizes, strides, rates, padding):
    padded_shape, (top, left), (rows, cols), cuts = _windows(x.shape, ksizes, strides, rates, padding)
    padded = xp.zeros(padded_shape, dtype=x.dtype)
    padded[:, top : top + x.shape[1], left : left + x.shape[2]] = x
    parts = [padded[:, r, c] for r, c in cuts]
    return xp.stack(parts, axis=3).reshape(x.shape[0], rows, cols, len(cuts) * x.shape[3])


def _patches_grad_kernel(xp, g, x, *, ksizes, strides, rates, padding):
    padded_shape, (top, left), (rows, cols), cuts = _windows(x.shape, ksizes, strides, rates, padding)
    padded = xp.zeros(padded_shape, dtype=g.dtype)
    parts = g.reshape(x.shape[0], rows, cols, len(cuts), x.shape[3])
    for k, (r, c) in enumerate(cuts):
        padded[:, r, c] += parts[:, :, :, k]  # strided slices of one kernel entry never overlap
    return xp.ascontiguousarray(padded[:, top : top + x.shape[1], left : left + x.shape[2]])


ExtractImagePatchesGrad = Primitive(
    "ExtractImagePatchesGrad",
    shaped_like_second,
    _patches_grad_kernel,
    lambda op, g: [apply(ExtractImagePatches, g, **op.attrs), None],
    shape_only=(1,),
)
ExtractImagePatches = Primitive(
    "ExtractImagePatches",
    _patches_infer,
    _patches_kernel,
    lambda op, g: [apply(ExtractImagePatchesGrad, g, op.inputs[0], **op.attrs)],
)


def _four(what, v):
    v = None if v is None else [int(e) for e in v]
    if v is None or len(v) != 4 or v[0] != 1 or v[3] != 1 or min(v) < 1:
        raise ValueError(f"extract_image_patches: {what} must be [1, r, c, 1] of positive ints, got {v}")
    return tuple(v)


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """The ``ksizes`` (or ``sizes``) patches of the NHWC ``images``, each flattened into
    the depth axis: shape ``[batch, out_rows, out_cols, k_rows * k_cols * depth]``.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.zeros([1, 4, 4, 3])
    >>> tf.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID").shape.as_list()
    [1, 2, 2, 12]
    """
    if sizes is not None and ksizes is not None:
        raise ValueError("extract_image_patches: give ksizes or sizes, not both")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"extract_image_patches: padding must be 'SAME' or 'VALID', got {padding!r}")
    attrs = {
        "ksizes": _four("ksizes", sizes if ksizes is None else ksizes),
        "strides": _four("strides", strides),
        "rates": _four("rates", rates),
        "padding": padding,
    }
    return apply(ExtractImagePatches, images, name=name, **attrs)
