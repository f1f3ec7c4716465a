"""Checking fed values against the tensors they replace, and TF1's nested feed keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...dtypes import as_string_array
from ...errors import InvalidArgumentError
from ...framework import nest
from .conversions import feed_expansion, structured_key_types

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ...framework.graph import Tensor


def flatten_feed_dict(feed_dict: dict) -> dict:
    """``feed_dict`` with structured keys flattened and composite keys expanded.

    As TF1's session (``nest.flatten_dict_items``, then its registered
    expansions): a key that is a tuple of tensors is fed by a value of the
    same structure, leaf by leaf; a key of a registered composite type (a
    ``SparseTensor``) is fed through its parts
    (:mod:`~daskflow.runtime.plan.conversions`). Returns `feed_dict` itself
    when no key needs either (the per-step common case).

    Raises
    ------
    ValueError
        If a structured key's value has another number of leaves, or a key
        appears twice.
    """
    structured = structured_key_types()
    if not any(isinstance(key, structured) for key in feed_dict):
        return feed_dict
    flat: dict = {}
    for key, value in feed_dict.items():
        for leaf_key, leaf_value in _leaves(key, value):
            expand = feed_expansion(leaf_key)
            parts = expand(leaf_key, leaf_value) if expand else [(leaf_key, leaf_value)]
            for part_key, part_value in parts:
                if part_key in flat:
                    raise ValueError(f"Could not flatten dictionary: key {part_key} is not unique.")
                flat[part_key] = part_value
    return flat


def _leaves(key: object, value: object) -> Iterable[tuple[Any, Any]]:
    if not isinstance(key, tuple):
        return [(key, value)]
    keys, values = nest.flatten(key), nest.flatten(value)
    if len(keys) != len(values):
        raise ValueError(
            f"Could not flatten dictionary. Key had {len(keys)} elements, but value had "
            f"{len(values)} elements. Key: {key}, value: {value}."
        )
    return zip(keys, values)


class FeedSpec:
    """What a fed tensor accepts, precomputed so a step's check is a few compares."""

    __slots__ = ("tensor", "dtype", "rank", "known", "strings")

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor
        self.dtype = tensor.dtype.np
        self.strings = self.dtype.hasobject  # str items are encoded to bytes, each step
        dims = tensor._dims
        self.rank = None if dims is None else len(dims)
        self.known = tuple((i, d) for i, d in enumerate(dims or ()) if d is not None)

    def check(self, value: object) -> np.ndarray:
        """``value`` as an array of the tensor's dtype and a compatible shape.

        Numbers are converted to the tensor's dtype as TF1's
        ``np.asarray(value, dtype)`` does (a float fed to an int32
        placeholder is truncated toward zero), except that a value the dtype
        cannot hold is refused rather than wrapped or made infinite. A shape
        that does not fit raises TF1's ``ValueError`` naming the tensor.
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


def check_feed(tensor: Tensor, value: object) -> np.ndarray:
    """Check one value against ``tensor`` (see :meth:`FeedSpec.check`)."""
    return FeedSpec(tensor).check(value)


def _shape_error(tensor: Tensor, shape: tuple[int, ...]) -> ValueError:
    return ValueError(
        f"Cannot feed value of shape {shape} for Tensor {tensor.name}, which has shape {tensor.shape}"
    )


def _cast(tensor: Tensor, value: Any, dtype: np.dtype) -> np.ndarray:
    if hasattr(value, "graph") and hasattr(value, "dtype") and hasattr(value, "op"):
        raise TypeError(
            f"The value of a feed cannot be a tf.Tensor object ({value.name}, fed for {tensor.name}). "
            "Acceptable feed values include Python scalars, strings, lists, numpy ndarrays, or TensorHandles."
        )
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
    if array.dtype.kind not in "biuf":
        return _parse(tensor, array, dtype)
    if array.dtype.kind == "f" and dtype.kind in "iub":
        return _float_to_integer(tensor, array, dtype)
    return _narrow(tensor, array, dtype)


def _parse(tensor: Tensor, array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Strings (or other objects) fed to a number tensor: numpy's conversion, as TF1's."""
    try:
        return np.asarray(array, dtype=dtype)
    except (ValueError, TypeError) as e:
        what = f"{array.dtype} values to Tensor {tensor.name} of dtype {tensor.dtype.name}"
        raise type(e)(f"cannot feed {what}: {e}") from None


def _float_to_integer(tensor: Tensor, array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Floats truncated toward zero, as ``np.asarray(value, int32)`` in TF1's session;
    NaN, infinities and values beyond the dtype's range are refused, naming one."""
    if dtype.kind == "b":
        return array.astype(dtype)
    info = np.iinfo(dtype)
    # `max + 1` is a power of two, exact in float: no rounding lets 2**31 through to int32.
    low, high = float(info.min), float(info.max) + 1
    if array.size and not (array.min() >= low and array.max() < high):  # False for NaN too
        bad = ~((array >= low) & (array < high))
        raise _range_error(tensor, array, bad)
    return array.astype(dtype)


def _range_error(tensor: Tensor, array: np.ndarray, bad: np.ndarray) -> InvalidArgumentError:
    return InvalidArgumentError(
        tensor.op.node_def,
        tensor.op,
        f"Cannot feed value {array[bad].flat[0].item()!r} (dtype {array.dtype}) for Tensor "
        f"'{tensor.name}' of dtype {tensor.dtype.name}: it is out of {tensor.dtype.name}'s range",
    )


def _narrow(tensor: Tensor, array: np.ndarray, dtype: np.dtype) -> np.ndarray:
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
    raise _range_error(tensor, array, bad)


def _strings(tensor: Tensor, value: object) -> np.ndarray:
    try:
        return as_string_array(value)
    except TypeError as e:
        raise InvalidArgumentError(
            tensor.op.node_def, tensor.op, f"cannot feed '{tensor.name}': {e}"
        ) from None
