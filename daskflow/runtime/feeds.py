"""Checking fed values against the tensors they replace."""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError


def check_feed(tensor, value):
    """``value`` as an array of ``tensor``'s dtype and a compatible shape.

    Casts that keep the kind of number (float64 -> float32, int -> float)
    are made, as TF1 does; anything else (float -> int, strings) and any
    shape mismatch raises an error naming the tensor and both shapes.
    """
    dtype = tensor.dtype.np
    if type(value) is not np.ndarray or value.dtype != dtype:
        value = _cast(tensor, value, dtype)
    dims = tensor._dims
    if dims is not None and (
        value.ndim != len(dims) or any(d is not None and d != s for d, s in zip(dims, value.shape))
    ):
        raise InvalidArgumentError(
            tensor.op.node_def,
            tensor.op,
            f"Cannot feed value of shape {value.shape} for Tensor '{tensor.name}', "
            f"which has shape {tensor.shape}",
        )
    return value


def _cast(tensor, value, dtype):
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as e:
        raise InvalidArgumentError(
            None, tensor.op, f"cannot feed {type(value).__name__} to '{tensor.name}': {e}"
        ) from None
    if array.dtype == dtype:
        return array
    if not np.can_cast(array.dtype, dtype, "same_kind") or array.dtype.kind not in "biuf":
        raise InvalidArgumentError(
            tensor.op.node_def,
            tensor.op,
            f"Cannot feed value of dtype {array.dtype} (shape {array.shape}) for Tensor "
            f"'{tensor.name}' of dtype {tensor.dtype.name} (shape {tensor.shape})",
        )
    return array.astype(dtype)
