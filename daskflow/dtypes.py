"""Tensor element types.

A :class:`DType` wraps a numpy dtype and adds the few predicates TF1 programs
use (``is_floating``, ``is_integer``...). dtypes are compared by identity with
the module-level singletons, and :func:`as_dtype` accepts anything numpy
understands (``"float32"``, ``np.float32``, ``float``) at the API edge.
"""

from __future__ import annotations

import numpy as np


class DType:
    """An element type of a tensor, backed by a numpy dtype.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.float32.as_numpy_dtype
    <class 'numpy.float32'>
    """

    def __init__(self, name: str):
        self.name = name
        self.np = np.dtype(name)

    @property
    def as_numpy_dtype(self):
        return self.np.type

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.np.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.np.kind == "b"

    @property
    def size(self) -> int:
        return self.np.itemsize

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType("float16")
float32 = DType("float32")
float64 = DType("float64")
int8 = DType("int8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
uint8 = DType("uint8")
bool = DType("bool")  # noqa: A001 - TF1's public name
half, double = float16, float64

_BY_NAME = {d.name: d for d in (float16, float32, float64, int8, int16, int32, int64, uint8, bool)}


def as_dtype(value) -> DType:
    """Convert a DType, numpy dtype, Python type or name to a :class:`DType`.

    Raises
    ------
    TypeError
        If the value names no supported element type.
    """
    if isinstance(value, DType):
        return value
    try:
        name = np.dtype(value).name
    except TypeError:
        name = None
    if name not in _BY_NAME:
        raise TypeError(f"unsupported dtype {value!r}; supported: {sorted(_BY_NAME)}")
    return _BY_NAME[name]
