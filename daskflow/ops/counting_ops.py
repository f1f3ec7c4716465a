"""Counting: ``bincount``, ``confusion_matrix``, ``histogram_fixed_width`` and
``histogram_fixed_width_bins``. None is differentiable in TF1; here they stop the gradient.

``bincount``'s length is TF1's ``max(arr) + 1`` (0 for an empty ``arr``) bounded by
``minlength``/``maxlength``, computed by a small op that graph-building folds for a
constant ``arr``, so the static shape is TF1's. ``confusion_matrix`` is TF1's
composition: a ``scatter_nd`` of ones (or weights) at ``(label, prediction)``.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.graph import Tensor, name_scope
from ..framework.primitive import Primitive
from . import array_ops, math_ops
from .infer import static_dim
from .segment_ops import scatter_nd


def _size_kernel(xp, arr):
    return xp.asarray(int(arr.max()) + 1 if arr.size else 0, dtype="int32")


BincountSize = Primitive("BincountSize", lambda inputs: ((), dtypes.int32), _size_kernel, shape_only=())


def _bincount_infer(inputs, *, dtype):
    arr, size = inputs[0], inputs[1]
    if arr.dtype is not dtypes.int32:
        raise TypeError(f"bincount: arr {arr.name} must be int32, got {arr.dtype.name}")
    n = static_dim(size)
    return (n,), inputs[2].dtype if len(inputs) > 2 else dtype


def _bincount_kernel(xp, arr, size, *weights, dtype):
    n = int(size)
    flat = arr.reshape(-1)
    if bool((flat < 0).any()):
        raise ValueError(f"bincount: arr has a negative value {int(flat.min())}")
    keep = flat < n  # maxlength drops the larger values, as TF1's does
    w = weights[0].reshape(-1)[keep] if weights else None
    counts = xp.bincount(flat[keep], weights=w, minlength=n)[:n]
    return counts.astype(weights[0].dtype if weights else dtype.np)


Bincount = Primitive("Bincount", _bincount_infer, _bincount_kernel)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32):
    """How many times each value ``0, 1, ...`` occurs in the int32 ``arr`` (or the sum of
    its ``weights``), of length ``max(arr) + 1`` bounded by ``minlength``/``maxlength``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.bincount([1, 1, 4, 2, 1, 4])).tolist()
    [0, 3, 1, 0, 2]
    """
    with name_scope("bincount"):
        arr = convert_to_tensor(arr, name="arr", dtype=None if isinstance(arr, Tensor) else dtypes.int32)
        size = apply(BincountSize, arr)
        if minlength is not None:
            size = math_ops.maximum(convert_to_tensor(minlength, dtype=dtypes.int32), size)
        if maxlength is not None:
            size = math_ops.minimum(convert_to_tensor(maxlength, dtype=dtypes.int32), size)
        extra = [] if weights is None else [convert_to_tensor(weights, name="weights")]
        return apply(Bincount, arr, size, *extra, dtype=dtypes.as_dtype(dtype))


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None, weights=None):
    """The ``num_classes x num_classes`` matrix counting (or summing ``weights`` of) each
    ``(label, prediction)`` pair; ``num_classes`` defaults to the largest class + 1.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.confusion_matrix([1, 2, 0], [2, 2, 0])).tolist()
    [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    """
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "confusion_matrix"):
        labels = math_ops.cast(convert_to_tensor(labels, name="labels"), dtypes.int64)
        predictions = math_ops.cast(convert_to_tensor(predictions, name="predictions"), dtypes.int64)
        lab, pred = labels._dims, predictions._dims
        if (
            lab is not None
            and pred is not None
            and (
                len(lab) != len(pred)
                or any(a is not None and b is not None and a != b for a, b in zip(lab, pred))
            )
        ):
            raise ValueError(
                f"confusion_matrix: labels {labels.name} {labels.shape} and predictions "
                f"{predictions.name} {predictions.shape} must have the same shape"
            )
        if num_classes is None:
            top = math_ops.maximum(math_ops.reduce_max(labels), math_ops.reduce_max(predictions))
            num_classes = top + 1
        n = math_ops.cast(convert_to_tensor(num_classes), dtypes.int64)
        shape = array_ops.stack([n, n])
        indices = array_ops.stack([labels, predictions], axis=1)
        if weights is None:
            values = array_ops.ones_like(predictions, dtype=dtype)
        else:
            values = math_ops.cast(convert_to_tensor(weights, name="weights"), dtype)
        return scatter_nd(indices, values, shape)


def _histogram_infer(inputs, *, nbins, dtype, bins_only):
    values, value_range = inputs
    if value_range.dtype is not values.dtype:
        raise TypeError(
            f"histogram_fixed_width: value_range {value_range.name} must be {values.dtype.name} like "
            f"values {values.name}"
        )
    r = value_range._dims
    if r is not None and (len(r) != 1 or r[0] not in (None, 2)):  # [None] fits, as in TF1
        raise ValueError(
            f"histogram_fixed_width: value_range {value_range.name} must have shape [2], "
            f"got {value_range.shape}"
        )
    return (values._dims if bins_only else (nbins,)), dtype


def _histogram_kernel(xp, values, value_range, *, nbins, dtype, bins_only):
    lo, hi = value_range.astype("float64").tolist()
    if not hi > lo:
        raise ValueError(f"histogram_fixed_width: value_range {[lo, hi]} must be increasing")
    scaled = (values.astype("float64") - lo) / (hi - lo) * nbins
    bins = xp.clip(xp.floor(scaled), 0, nbins - 1).astype("int64")
    if bins_only:
        return bins.astype(dtype.np)
    return xp.bincount(bins.reshape(-1), minlength=nbins).astype(dtype.np)


Histogram = Primitive("HistogramFixedWidth", _histogram_infer, _histogram_kernel)


def _histogram(values, value_range, nbins, dtype, name, bins_only):
    nbins = int(nbins)
    if nbins < 1:
        raise ValueError(f"histogram_fixed_width: nbins must be positive, got {nbins}")
    values = convert_to_tensor(values, name="values")
    value_range = convert_to_tensor(
        value_range, dtype=None if isinstance(value_range, Tensor) else values.dtype, name="value_range"
    )
    return apply(
        Histogram,
        values,
        value_range,
        nbins=nbins,
        dtype=dtypes.as_dtype(dtype),
        bins_only=bins_only,
        name=name,
    )


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range``; values outside
    it count in the first or last bin.

    Examples
    --------
    >>> import daskflow as tf
    >>> counts = tf.histogram_fixed_width([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], nbins=5)
    >>> tf.Session().run(counts).tolist()
    [2, 1, 1, 0, 2]
    """
    return _histogram(values, value_range, nbins, dtype, name, False)


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin of each of ``values`` among ``nbins`` equal bins over ``value_range``."""
    return _histogram(values, value_range, nbins, dtype, name, True)
