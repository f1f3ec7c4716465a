"""Constants, and turning Python/numpy values into tensors at the API edge."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .graph import Tensor, get_default_graph
from .primitive import Primitive


def _const_infer(inputs, *, value, dtype):
    return value.shape, dtype


def _const_kernel(xp, *, value, dtype):
    return xp.asarray(value)


Const = Primitive("Const", _const_infer, _const_kernel)


def _default_dtype(value) -> dtypes.DType:
    """TF1's defaults: Python floats are float32 and ints int32; numpy keeps its dtype."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    kind = np.asarray(value).dtype.kind
    return {"f": dtypes.float32, "i": dtypes.int32, "u": dtypes.int32, "b": dtypes.bool}.get(
        kind, None
    ) or dtypes.as_dtype(np.asarray(value).dtype)


def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor with a fixed value.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.constant([1.0, 2.0]).dtype
    tf.float32
    """
    from .primitive import apply

    dtype = dtypes.as_dtype(dtype) if dtype is not None else _default_dtype(value)
    raw = np.asarray(value)
    array = raw.astype(dtype.np)
    if raw.dtype.kind == "f" and dtype.np.kind in "iub" and not np.array_equal(array, raw):
        raise TypeError(f"{value!r} cannot be represented as {dtype.name} without loss")
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        array = array.reshape(shape) if array.size == np.prod(shape) else np.broadcast_to(array, shape)
    array = np.array(array)  # own a contiguous copy, so later user edits cannot reach the graph
    array.flags.writeable = False
    return apply(Const, value=array, dtype=dtype, name=name)


def convert_to_tensor(value, dtype=None, name=None, graph=None, preferred_dtype=None):
    """Return ``value`` as a Tensor: tensors pass through, variables give their
    value, Python and numpy values become constants.

    Raises
    ------
    TypeError
        If a tensor's dtype differs from the requested ``dtype``.
    """
    convert = getattr(value, "_as_tensor", None)
    if convert is not None:
        value = convert()
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError(
                f"tensor {value.name} has dtype {value.dtype.name}, expected {dtypes.as_dtype(dtype).name}"
            )
        return value
    if hasattr(value, "op") and hasattr(value, "graph"):
        raise TypeError(f"cannot convert {value!r} to a tensor")
    graph = graph or get_default_graph()
    with graph.as_default():
        if dtype is None and preferred_dtype is not None:
            try:
                return constant(value, dtype=preferred_dtype, name=name or "Const")
            except (TypeError, ValueError):
                pass
        try:
            return constant(value, dtype=dtype, name=name or "Const")
        except (TypeError, ValueError) as e:
            raise TypeError(f"cannot convert {value!r} to a tensor: {e}") from None
