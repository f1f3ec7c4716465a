"""Tensor element types.

A :class:`DType` wraps a numpy dtype and adds the predicates TF1 programs use
(``is_floating``, ``is_integer``, ``min``, ``max``...). dtypes are singletons:
:func:`as_dtype` maps every name TF1 accepts (``"float"`` is float32,
``"double"`` float64, ``"half"`` float16, the ``_ref`` forms), numpy dtypes and
the Python types TF1 maps (``float`` is float32, ``bool`` bool, ``object``
string) to one of them, and refuses what TF1 refuses (``int``, ``"int"``).

``tf.string`` tensors hold ``bytes`` in numpy object arrays, as TF1 fetches
them; a ``str`` given to a constant or a feed is encoded as UTF-8.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

import numpy as np

from ._namespaces import module_getattr as _module_getattr

if TYPE_CHECKING:
    import numpy  # DType.np's type: `np` names the attribute in its class


class DType:
    """An element type of a tensor, backed by a numpy dtype.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.float32.as_numpy_dtype
    <class 'numpy.float32'>
    >>> tf.as_dtype("float") is tf.float32
    True
    >>> tf.DType(1) == tf.float32  # TF1's constructor takes the DataType number
    True
    """

    # Set once, by _make: the types, for type checkers.
    name: str
    np: numpy.dtype
    as_datatype_enum: int

    def __new__(cls, type_enum, handle_data=None):
        """The dtype of TF's ``DataType`` number ``type_enum`` (a ``_ref`` number: its base)."""
        if handle_data is not None:
            raise NotImplementedError(
                "tf.DType(handle_data=...): handle data describes resource and variant "
                "dtypes, which daskflow has not; leave it None"
            )
        number = int(type_enum)  # TF1's conversion: DType("float32") is a ValueError
        base = number - 100 if number > 100 else number  # TF's ref types number from 101
        found = _BY_ENUM.get(base)
        if found is None and 0 < base <= 23:
            raise TypeError(f"DataType {type_enum} is not supported by daskflow")
        if found is None:
            raise TypeError(f"{type_enum} does not correspond to a valid tensorflow::DataType")
        return found

    def __init_subclass__(cls, **kwargs):
        # daskflow's own dtypes beyond TF1's numbers (OpaqueDType) are built from their
        # fields, as ``_make`` builds the singletons here.
        super().__init_subclass__(**kwargs)
        cls.__new__ = lambda cls, name, np_dtype, enum: DType._make.__func__(cls, name, np_dtype, enum)

    @classmethod
    def _make(cls, name: str, np_dtype, enum: int) -> DType:
        # The one instance per type; DType(enum) returns it.
        dtype = object.__new__(cls)
        dtype.name = name
        dtype.np = np.dtype(np_dtype)
        dtype.as_datatype_enum = enum  # TF's DataType proto number, for GraphDefs and summaries
        return dtype

    @property
    def as_numpy_dtype(self):
        return self.np.type

    @property
    def base_dtype(self) -> DType:
        return self

    @property
    def real_dtype(self) -> DType:
        return {complex64: float32, complex128: float64}.get(self, self)

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.np.kind in "iu"

    @property
    def is_unsigned(self) -> bool:
        return self.np.kind in "ub"

    @property
    def is_complex(self) -> bool:
        return self.np.kind == "c"

    @property
    def is_bool(self) -> bool:
        return self.np.kind == "b"

    @property
    def is_numpy_compatible(self) -> bool:
        return True

    @property
    def size(self) -> int:
        return 1 if self is string else self.np.itemsize

    @property
    def min(self):
        return self._limits("min")

    @property
    def max(self):
        return self._limits("max")

    def _limits(self, which):
        if self.is_floating:
            return getattr(np.finfo(self.np), which)
        if self.is_integer:
            return getattr(np.iinfo(self.np), which)
        if self.is_bool:
            return which == "max"
        raise TypeError(f"dtype {self.name} has no {which}")

    def is_compatible_with(self, other) -> builtins.bool:
        return self is as_dtype(other)

    def __eq__(self, other):
        if isinstance(other, DType) or other is None:
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.name)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __reduce__(self):
        return as_dtype, (self.name,)


class OpaqueDType(DType):
    """A dtype whose values only its own ops read: a queue's or reader's handle (TF's
    ``DT_RESOURCE``), a loop's history for its gradient (``DT_VARIANT``). ``as_dtype`` knows
    none: a program cannot make a tensor of one. Made by :func:`opaque`."""

    def __reduce__(self):
        return opaque, (self.name,)  # travels to workers as the one instance of its name


_OPAQUE: dict[str, OpaqueDType] = {}


def opaque(name: str, enum: int | None = None) -> OpaqueDType:
    """The opaque dtype ``name``; its declaration (with TF's DataType number ``enum``) makes it."""
    found = _OPAQUE.get(name)
    if found is None:
        if enum is None:
            raise TypeError(f"no opaque dtype {name!r} is declared")
        found = _OPAQUE[name] = OpaqueDType(name, object, enum)
    return found


float16 = DType._make("float16", np.float16, 19)
float32 = DType._make("float32", np.float32, 1)
float64 = DType._make("float64", np.float64, 2)
int8 = DType._make("int8", np.int8, 6)
int16 = DType._make("int16", np.int16, 5)
int32 = DType._make("int32", np.int32, 3)
int64 = DType._make("int64", np.int64, 9)
uint8 = DType._make("uint8", np.uint8, 4)
uint16 = DType._make("uint16", np.uint16, 17)
uint32 = DType._make("uint32", np.uint32, 22)
uint64 = DType._make("uint64", np.uint64, 23)
complex64 = DType._make("complex64", np.complex64, 8)
complex128 = DType._make("complex128", np.complex128, 18)
bool = DType._make("bool", np.bool_, 10)  # noqa: A001 - TF1's public name
string = DType._make("string", object, 7)
half, double = float16, float64

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64)
ALL += (complex64, complex128, bool, string)
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update(half=float16, float=float32, double=float64)
_BY_NAME.update({f"{n}_ref": d for n, d in list(_BY_NAME.items())})  # ref types: TF1's variables
_BY_NUMPY = {d.np: d for d in ALL}
_BY_ENUM = {d.as_datatype_enum: d for d in ALL}
# TF1 maps these Python types; `int`, `str` and `bytes` it refuses.
_BY_PYTHON = {builtins.float: float32, builtins.bool: bool, builtins.object: string}
_UNSUPPORTED = {"bfloat16", "qint8", "quint8", "qint16", "quint16", "qint32", "resource", "variant"}


def as_dtype(type_value) -> DType:
    """Convert a DType, TF1 dtype name, numpy dtype or Python type to a :class:`DType`.

    Raises
    ------
    TypeError
        If TF1 would not accept the value, or it names a type daskflow lacks.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.as_dtype("double"), tf.as_dtype(float)
    (tf.float64, tf.float32)
    """
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, int) and not isinstance(type_value, builtins.bool):
        # TF's DataType enum (a ``_ref`` type is its value type plus 100).
        found = _BY_ENUM.get(type_value - 100 if type_value > 100 else type_value)
        if found is None:
            raise TypeError(f"Cannot convert {type_value!r} to a TensorFlow DType.")
        return found
    if isinstance(type_value, str):
        found = _BY_NAME.get(type_value)
        if found is None and type_value.removesuffix("_ref") in _UNSUPPORTED:
            raise TypeError(f"dtype {type_value!r} is not supported by daskflow")
        if found is None:
            raise TypeError(f"Cannot convert {type_value!r} to a TensorFlow DType.")
        return found
    if isinstance(type_value, type):
        if type_value in _BY_PYTHON:
            return _BY_PYTHON[type_value]
        if type_value in (builtins.int, builtins.str, builtins.bytes):
            raise TypeError(f"Cannot convert {type_value!r} to a TensorFlow DType.")
    return _from_numpy(type_value)


def _from_numpy(type_value) -> DType:
    try:
        np_dtype = np.dtype(type_value)
    except TypeError:
        raise TypeError(f"Cannot convert {type_value!r} to a TensorFlow DType.") from None
    if np_dtype.kind in "SUO":
        return string
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(f"Cannot convert {type_value!r} to a TensorFlow DType.")
    return found


def as_string_array(value) -> np.ndarray:
    """``value`` (str, bytes, nested lists, numpy arrays) as an object array of bytes."""
    array = np.asarray(value, dtype=object)
    out = np.empty(array.shape, dtype=object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, item in enumerate(flat_in):
        flat_out[i] = _as_bytes(item)
    return out


def _as_bytes(item):
    if isinstance(item, bytes):
        return item
    if isinstance(item, (str, np.str_)):
        return item.encode("utf-8")
    if isinstance(item, np.bytes_):
        return builtins.bytes(item)
    raise TypeError(f"a string tensor holds str or bytes, got {type(item).__name__} {item!r}")


__getattr__ = _module_getattr("tf.dtypes")  # TF1's other paths for a name, else a clear error
