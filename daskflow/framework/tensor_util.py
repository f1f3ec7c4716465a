"""TF1's ``tf.make_tensor_proto`` and ``tf.make_ndarray``: values to and from ``TensorProto``.

The proto is written as TF1 writes it: more than one number in ``tensor_content``
(little-endian bytes); one number, a value filling a larger ``shape``, or booleans in the
typed field (``float_val``, ``int64_val``...); strings in ``string_val``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from . import protos

_TYPED = {
    "float32": "float_val",
    "float64": "double_val",
    "int32": "int_val",
    "int16": "int_val",
    "int8": "int_val",
    "uint8": "int_val",
    "uint16": "int_val",
    "int64": "int64_val",
    "bool": "bool_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
}


def _default_dtype(value) -> dtypes.DType:
    """TF1's defaults: Python floats are float32 and ints int32 (int64 when one does not
    fit, uint64 beyond that); numpy keeps its dtype; str and bytes are strings."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    raw = np.asarray(value)
    kind = raw.dtype.kind
    if kind in "SUO":
        return dtypes.string
    if kind in "iu":
        return _int_dtype(raw)
    return {"f": dtypes.float32, "b": dtypes.bool}.get(kind, None) or dtypes.as_dtype(raw.dtype)


def _int_dtype(raw) -> dtypes.DType:
    """The narrowest of TF1's int32, int64 and uint64 that holds Python ints ``raw``."""
    if raw.size == 0:
        return dtypes.int32
    low, high = int(raw.min()), int(raw.max())
    if -(2**31) <= low and high < 2**31:
        return dtypes.int32
    return dtypes.int64 if high < 2**63 else dtypes.uint64


def _as_array(value, dtype) -> np.ndarray:
    """``value`` as a numpy array of ``dtype``; a string, or a float the integer ``dtype``
    would change, is a ``TypeError``."""
    if dtype is dtypes.string:
        return dtypes.as_string_array(value)
    raw = np.asarray(value)
    if raw.dtype.kind in "SUO":
        raise TypeError(f"{value!r} is a string, not a {dtype.name} value")
    array = raw.astype(dtype.np)
    if raw.dtype.kind == "f" and dtype.np.kind in "iub" and not np.array_equal(array, raw):
        raise TypeError(f"{value!r} cannot be represented as {dtype.name} without loss")
    return array


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """``values`` as a ``TensorProto`` (TF1's function).

    Parameters
    ----------
    values : array-like
    dtype : DType, optional
        The proto's type (default: ``values``'s, TF's defaults for Python numbers).
    shape : list of int, optional
        The proto's shape: ``values`` must have its number of elements, or be one value
        that fills it.
    verify_shape : bool
        ``values`` must have ``shape`` exactly.
    allow_broadcast : bool
        ``values`` may be broadcast to ``shape`` (numpy's rules).

    Returns
    -------
    TensorProto

    Raises
    ------
    TypeError
        ``values`` do not fit ``dtype``.
    ValueError
        ``values`` do not fit ``shape``.
    """
    dtype = _default_dtype(values) if dtype is None else dtypes.as_dtype(dtype)
    array = _as_array(values, dtype)
    shape = list(array.shape) if shape is None else [int(d) for d in shape]
    size = int(np.prod(shape, dtype=np.int64))
    if verify_shape and list(array.shape) != shape:
        raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {tuple(array.shape)}.")
    proto = protos.TensorProto(dtype=dtype.as_datatype_enum, tensor_shape=protos.shape_proto(shape))
    if dtype == dtypes.string:
        proto.string_val.extend(dtypes.as_string_array(array).reshape(-1).tolist())
        return proto
    if array.size == size and size > 1 and dtype != dtypes.bool:
        proto.tensor_content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        return proto
    if array.size != size and array.size != 1:
        if not allow_broadcast:
            raise ValueError(f"Too many elements provided. Takes at most {size:d}, but got {array.size:d}")
        array = np.broadcast_to(array, shape)
    field = _TYPED.get(np.dtype(dtype.as_numpy_dtype).name)
    if dtype == dtypes.float16:  # half_val holds each value's 16 bits
        proto.half_val.extend(array.reshape(-1).view(np.uint16).tolist())
    elif field is None:
        raise TypeError(f"make_tensor_proto: {dtype.name} values are not written to TensorProtos")
    else:
        getattr(proto, field).extend(array.reshape(-1).tolist())
    return proto


def make_ndarray(tensor):
    """A ``TensorProto``'s value as a numpy array (TF1's function).

    Parameters
    ----------
    tensor : TensorProto
        Its values in ``tensor_content`` or in the typed fields (one value, or a prefix
        whose last value fills the rest, as TF writes them).

    Returns
    -------
    numpy.ndarray
    """
    proto = tensor
    dtype = dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    if dtype == dtypes.string:
        values = np.empty(len(proto.string_val), dtype=object)
        values[:] = list(proto.string_val)
    elif proto.tensor_content:
        values = np.frombuffer(proto.tensor_content, dtype=np.dtype(dtype.as_numpy_dtype).newbyteorder("<"))
    else:
        field = _TYPED.get(np.dtype(dtype.as_numpy_dtype).name)
        if field is None:
            raise ValueError(f"TensorProto values of {dtype.name} are not read")
        raw = getattr(proto, field)
        if dtype == dtypes.float16:  # half_val holds each value's 16 bits
            values = np.asarray(raw, dtype=np.uint16).view(np.float16)
        else:
            values = np.asarray(raw).astype(dtype.as_numpy_dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if values.size > size:
        raise ValueError(f"TensorProto holds {values.size} values for shape {shape}")
    if values.size == size:
        return values.reshape(shape).astype(values.dtype.newbyteorder("="))
    if values.size == 0:
        return np.zeros(shape, dtype=dtype.as_numpy_dtype if dtype != dtypes.string else object)
    filled = np.empty(size, dtype=values.dtype)  # TF keeps one value, or a prefix, and repeats the last
    filled[: values.size] = values
    filled[values.size :] = values[-1]
    return filled.reshape(shape)
