"""String tensors: formatting numbers, joining and parsing.

A ``tf.string`` tensor's kernel value is a numpy object array of ``bytes``.
None of these ops is differentiable.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.apply import apply
from ..framework.arguments import argument_lookup
from ..framework.constant import convert_to_tensor
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive
from .infer import broadcast_dims


def _format_one(x, precision, scientific, shortest, width, fill):
    if isinstance(x, (bool, np.bool_)):
        text = "true" if x else "false"
    elif isinstance(x, (np.floating, float)):
        code = "e" if scientific else ("g" if shortest else "f")
        text = f"{x:.{precision if precision >= 0 else 6}{code}}"
    else:
        text = str(x)
    return text.rjust(width, fill or " ").encode()


def _as_string_kernel(xp, x, *, precision, scientific, shortest, width, fill):
    out = np.empty(np.shape(x), dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(np.asarray(x).reshape(-1)):
        flat[i] = _format_one(v, precision, scientific, shortest, width, fill)
    return out


def _as_string_infer(inputs, **_):
    x = inputs[0]
    if x.dtype is dtypes.string:
        raise TypeError(f"as_string of {x.name}: its value is already a string")
    return x._dims, dtypes.string


# Strings live on the host: a GPU array holds numbers only.
AsString = Primitive("AsString", _as_string_infer, _as_string_kernel, host_only=True, grad=NOT_DIFFERENTIABLE)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each element formatted as a string (floats as ``%f``, bools as ``true``/``false``).

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.as_string(tf.constant([1.5, 2.0])))
    array([b'1.500000', b'2.000000'], dtype=object)
    """
    attrs = dict(precision=int(precision), scientific=bool(scientific), shortest=bool(shortest))
    attrs.update(width=int(width), fill=str(fill))
    return apply(AsString, input, name=name, **attrs)


def _join_infer(inputs, *, separator):
    for t in inputs:
        if t.dtype is not dtypes.string:
            raise TypeError(f"string_join takes string tensors, got {t.dtype.name} ({t.name})")
    return broadcast_dims(inputs), dtypes.string


def _join_kernel(xp, *parts, separator):
    sep = separator.encode()
    arrays = np.broadcast_arrays(*[np.asarray(p, dtype=object) for p in parts])
    out = np.empty(arrays[0].shape, dtype=object)
    flat = out.reshape(-1)
    columns = [a.reshape(-1) for a in arrays]
    for i in range(flat.size):
        flat[i] = sep.join(c[i] for c in columns)
    return out


StringJoin = Primitive("StringJoin", _join_infer, _join_kernel, host_only=True, grad=NOT_DIFFERENTIABLE)


def string_join(inputs, separator="", name=None):
    """Join string tensors elementwise (broadcasting scalars), with ``separator`` between."""
    tensors = [convert_to_tensor(t, dtype=dtypes.string) for t in inputs]
    return apply(StringJoin, *tensors, separator=str(separator), name=name)


def _to_number_infer(inputs, *, out_type):
    x = inputs[0]
    if x.dtype is not dtypes.string:
        raise TypeError(f"string_to_number takes a string tensor, got {x.dtype.name} ({x.name})")
    return x._dims, out_type


def _to_number_kernel(xp, x, *, out_type):
    flat = np.asarray(x, dtype=object).reshape(-1)
    try:
        values = [out_type.np.type(s.decode()) for s in flat]
    except ValueError as e:
        raise ValueError(f"StringToNumberOp could not correctly convert string: {e}") from None
    return np.asarray(values, dtype=out_type.np).reshape(np.shape(x))


StringToNumber = Primitive(
    "StringToNumber", _to_number_infer, _to_number_kernel, host_only=True, grad=NOT_DIFFERENTIABLE
)


def string_to_number(string_tensor=None, out_type=dtypes.float32, name=None, input=None):  # noqa: A002
    """Parse each string as a number of ``out_type`` (``input`` is ``string_tensor``'s newer name)."""
    string_tensor = argument_lookup("input", input, "string_tensor", string_tensor)
    return apply(StringToNumber, string_tensor, out_type=dtypes.as_dtype(out_type), name=name)
