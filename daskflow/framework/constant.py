"""Constants, and turning Python/numpy values into tensors at the API edge."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from . import tensor_conversion_registry
from .graph import Tensor, get_default_graph
from .primitive import NOT_DIFFERENTIABLE, Primitive
from .tensor_util import _as_array, _default_dtype


def _const_infer(inputs, *, value, dtype):
    return value.shape, dtype


def _const_kernel(xp, *, value, dtype):
    return xp.asarray(value)


Const = Primitive("Const", _const_infer, _const_kernel, grad=NOT_DIFFERENTIABLE)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A tensor with a fixed value.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.constant([1.0, 2.0]).dtype
    tf.float32
    >>> tf.constant("Hello").dtype
    tf.string
    """
    dtype = dtypes.as_dtype(dtype) if dtype is not None else _default_dtype(value)
    array = _as_array(value, dtype)
    if shape is not None:
        shape = tuple(int(d) for d in np.atleast_1d(np.asarray(shape, dtype=np.int64)))
        if verify_shape and array.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {array.shape}.")
        array = _fit(array, shape)
    array = np.array(array)  # own a contiguous copy, so later user edits cannot reach the graph
    array.flags.writeable = False
    return get_default_graph()._create_op(Const, [], {"value": array, "dtype": dtype}, name=name).outputs[0]


def _fit(array, shape):
    """TF1's rule: a value of the same size is reshaped, a scalar (or 1-element) value
    fills the shape, a shorter list is padded with its last element."""
    n = int(np.prod(shape))
    if array.size == n:
        return array.reshape(shape)
    if array.size == 1:
        return np.broadcast_to(array.reshape(()), shape)
    if 0 < array.size < n and array.ndim <= 1:
        return np.concatenate([array, np.repeat(array[-1:], n - array.size)]).reshape(shape)
    raise ValueError(f"Too many elements provided. Takes at most {n}, but got {array.size}.")


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None, *, graph=None):
    """Return ``value`` as a Tensor: tensors pass through, variables give their
    value, Python and numpy values become constants.

    ``preferred_dtype`` (TF1's older name of ``dtype_hint``) is the dtype a
    Python or numpy value becomes when it can, without ``dtype``; ``graph``
    (daskflow's) is where a new constant goes (default: the default graph).

    Raises
    ------
    TypeError
        If a tensor's dtype differs from the requested ``dtype``.
    ValueError
        If both ``preferred_dtype`` and ``dtype_hint`` are given.
    """
    if dtype_hint is not None:
        if preferred_dtype is not None:
            raise ValueError("Cannot specify both 'preferred_dtype' and 'dtype_hint'.")
        preferred_dtype = dtype_hint
    convert = getattr(value, "_as_tensor", None)
    if convert is not None:
        value = convert()
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise TypeError(
                f"tensor {value.name} has dtype {value.dtype.name}, expected {dtypes.as_dtype(dtype).name}"
            )
        return value
    if hasattr(value, "op") and hasattr(value, "graph"):  # a composite: a SparseTensor
        raise TypeError(
            f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
            "supported type."
        )
    for convert_other in tensor_conversion_registry.get(type(value)):  # list packing, from ops/
        converted = convert_other(value, dtype=dtype, name=name, as_ref=False)
        if converted is not NotImplemented:
            return _checked(converted, convert_other, value, dtype)
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


def _checked(converted, convert_other, value, dtype):
    """``converted``, if the conversion function gave a tensor of the dtype asked for (as TF1 checks)."""
    if not isinstance(converted, Tensor):
        raise RuntimeError(
            f"Conversion function {convert_other!r} for type {type(value)} returned non-Tensor: {converted!r}"
        )
    if dtype is not None and converted.dtype is not dtypes.as_dtype(dtype):
        raise RuntimeError(
            f"Conversion function {convert_other!r} for type {type(value)} returned incompatible dtype: "
            f"requested = {dtypes.as_dtype(dtype).name}, actual = {converted.dtype.name}"
        )
    return converted
