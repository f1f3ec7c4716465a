"""``tf.compat``: the byte/text helpers and ``tf.compat.v1``, which is daskflow itself.

Scripts migrated to TF 2 write ``import tensorflow.compat.v1 as tf``;
``import daskflow.compat.v1 as tf`` gives the same ``daskflow`` module that
``import daskflow as tf`` does.

Examples
--------
>>> import daskflow.compat.v1 as tf
>>> import daskflow
>>> tf is daskflow
True
>>> tf.compat.as_bytes("ok"), tf.compat.as_text(b"ok")
(b'ok', 'ok')
"""

from __future__ import annotations

import contextlib
import numbers
import os
import sys

import numpy as np

from ..framework.tensor_shape import TensorShape

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatibility_horizon",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
    "v1",
]

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as bytes (text is encoded with `encoding`).

    Raises
    ------
    TypeError
        If it is neither bytes nor text, naming its type.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as str (bytes are decoded with `encoding`).

    Raises
    ------
    TypeError
        If it is neither bytes nor text, naming its type.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """``as_str`` for bytes, ``str(value)`` for anything else."""
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    """An ``os.PathLike`` as its str; anything else unchanged."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


def dimension_value(dimension):
    """A ``Dimension``'s int value (or None); an int or None unchanged."""
    return getattr(dimension, "value", dimension)


def dimension_at_index(shape, index):
    """Dimension `index` of `shape` (None where the rank is unknown)."""
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.ndims is None:
        return None
    return shape.dims[index]


def forward_compatible(year, month, day):
    """True: daskflow has no forward-compatibility window to wait for."""
    return True


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """A context that changes nothing (see :func:`forward_compatible`)."""
    yield


def __getattr__(name):
    if name == "v1":
        return sys.modules[__name__.rpartition(".")[0]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# `import daskflow.compat.v1 as tf` finds this entry: the package itself, not a copy.
sys.modules[__name__ + ".v1"] = sys.modules[__name__.rpartition(".")[0]]
