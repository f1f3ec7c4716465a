"""Checking fed values against the tensors they replace."""

from __future__ import annotations

import numpy as np

from ...dtypes import as_string_array
from ...errors import InvalidArgumentError


class FeedSpec:
    """What a fed tensor accepts, precomputed so a step's check is a few compares."""

    __slots__ = ("tensor", "dtype", "rank", "known", "strings")

    def __init__(self, tensor):
        self.tensor = tensor
        self.dtype = tensor.dtype.np
        self.strings = self.dtype.hasobject  # str items are encoded to bytes, each step
        dims = tensor._dims
        self.rank = None if dims is None else len(dims)
        self.known = tuple((i, d) for i, d in enumerate(dims or ()) if d is not None)

    def check(self, value):
        """``value`` as an array of the tensor's dtype and a compatible shape.

        Casts that keep the kind of number (float64 -> float32, int -> float)
        are made, as TF1 does; anything else (float -> int, strings) and any
        shape mismatch raises an error naming the tensor and both shapes.
        """
        if type(value) is not np.ndarray or value.dtype != self.dtype or self.strings:
            value = _cast(self.tensor, value, self.dtype)
        if self.rank is not None:
            shape = value.shape
            if len(shape) != self.rank:
                raise _shape_error(self.tensor, shape)
            for i, d in self.known:
                if shape[i] != d:
                    raise _shape_error(self.tensor, shape)
        return value


def check_feed(tensor, value):
    """Check one value against ``tensor`` (see :meth:`FeedSpec.check`)."""
    return FeedSpec(tensor).check(value)


def _shape_error(tensor, shape):
    return InvalidArgumentError(
        tensor.op.node_def,
        tensor.op,
        f"Cannot feed value of shape {shape} for Tensor '{tensor.name}', which has shape {tensor.shape}",
    )


def _cast(tensor, value, dtype):
    if dtype.hasobject:
        return _strings(tensor, value)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(
            None, tensor.op, f"cannot feed {type(value).__name__} to '{tensor.name}': {e}"
        ) from None
    if array.dtype == dtype:
        return array
    # Integers of either sign may be fed to any integer dtype that holds their values.
    integers = array.dtype.kind in "biu" and dtype.kind in "iu"
    if not (integers or np.can_cast(array.dtype, dtype, "same_kind")) or array.dtype.kind not in "biuf":
        raise InvalidArgumentError(
            tensor.op.node_def,
            tensor.op,
            f"Cannot feed value of dtype {array.dtype} (shape {array.shape}) for Tensor "
            f"'{tensor.name}' of dtype {tensor.dtype.name} (shape {tensor.shape})",
        )
    return _narrow(tensor, array, dtype)


def _narrow(tensor, array, dtype):
    """``array`` cast to ``dtype``, refusing a value the dtype cannot hold.

    TF1 would store 1e300 fed to float32 as inf and wrap 2**40 fed to int32
    (a Python int it refuses); either silently changes the data, so neither
    is made. Only a cast that can lose range is checked.
    """
    if np.can_cast(array.dtype, dtype, "safe"):
        return array.astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # Two reductions, no temporaries: this runs on every step such a feed is made.
        if not array.size or (array.min() >= info.min and array.max() <= info.max):
            return array.astype(dtype)
        bad = (array < info.min) | (array > info.max)
    else:
        with np.errstate(over="ignore"):  # overflow to inf is found below, by value
            cast = array.astype(dtype)
        if not np.isinf(cast).any():
            return cast
        bad = np.isfinite(array) & np.isinf(cast)
        if not bad.any():
            return cast  # infinities fed as such are kept, as TF1 keeps them
    raise InvalidArgumentError(
        tensor.op.node_def,
        tensor.op,
        f"Cannot feed value {array[bad].flat[0].item()!r} (dtype {array.dtype}) for Tensor "
        f"'{tensor.name}' of dtype {tensor.dtype.name}: it is out of {tensor.dtype.name}'s range",
    )


def _strings(tensor, value):
    try:
        return as_string_array(value)
    except TypeError as e:
        raise InvalidArgumentError(
            tensor.op.node_def, tensor.op, f"cannot feed '{tensor.name}': {e}"
        ) from None
