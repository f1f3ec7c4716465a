"""Decoding records: ``tf.decode_csv`` and ``tf.decode_raw`` (``tf.io.decode_csv``...).

``DecodeCSV`` parses each string of ``records`` as one CSV line into one
tensor per column, typed by ``record_defaults`` (float32, float64, int32,
int64, string); an empty field (or one equal to ``na_value``) takes its
column's default, and a column with an empty default is required. Numbers
are read as TF1 reads them (surrounding spaces allowed, no hexadecimal or
``_``), quotes as RFC 4180 (``"a,b"``, ``""`` for a quote) with
``use_quote_delim``. A bad record fails the step with TF1's
``InvalidArgumentError`` and message, naming the field and the record
(``Field 1 in record 0 is not a valid int32: 2.5``).

``DecodeRaw`` reinterprets each string's bytes as numbers of ``out_type``:
the output has the input's shape plus one dimension (the numbers per string).

Examples
--------
>>> import daskflow as tf
>>> a, b = tf.decode_csv(["1,x", "2,"], record_defaults=[[0], ["none"]])
>>> with tf.Session() as sess:
...     sess.run(a).tolist(), sess.run(b).tolist()
([1, 2], [b'x', b'none'])
"""

from __future__ import annotations

import re

import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..framework.constant import convert_to_tensor
from ..framework.graph import get_default_graph
from ..framework.primitive import NOT_DIFFERENTIABLE, Primitive

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_INT = re.compile(rb"^\s*[+-]?\d+\s*$")
_FLOAT_BAD = re.compile(rb"[_xX]")  # Python's float() takes these, TF1's does not


# -- decode_csv ------------------------------------------------------------------------------------


def _csv_infer(inputs, *, field_delim, use_quote_delim, na_value, select_cols):
    records, *defaults = inputs
    if records.dtype is not dtypes.string:
        raise TypeError(f"decode_csv: records {records.name} must be strings, got {records.dtype.name}")
    return [(records._dims, d.dtype) for d in defaults]


def _csv_kernel(xp, records, *defaults, field_delim, use_quote_delim, na_value, select_cols):
    records = np.asarray(records, dtype=object)
    for i, d in enumerate(defaults):
        if d.size > 1:
            raise InvalidArgumentError(None, None, f"record_defaults[{i}] must have at most one element")
    outs = [np.empty(records.shape, dtype=d.dtype) for d in defaults]
    delim = field_delim.encode()
    na = na_value.encode()
    for at, record in enumerate(records.reshape(-1)):
        fields = _fields(record, delim, use_quote_delim, at)
        if select_cols is not None:
            fields = _selected(fields, select_cols, at)
        if len(fields) != len(defaults):
            raise InvalidArgumentError(
                None, None, f"Expect {len(defaults)} fields but have {len(fields)} in record {at}"
            )
        for i, (field, default) in enumerate(zip(fields, defaults)):
            outs[i].reshape(-1)[at] = _value(field, default, na, i, at)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _selected(fields, select_cols, at):
    if select_cols and select_cols[-1] >= len(fields):
        raise InvalidArgumentError(
            None, None, f"Expect {select_cols[-1] + 1} fields but have {len(fields)} in record {at}"
        )
    return [fields[c] for c in select_cols]


def _fields(record, delim, quotes, at):
    """The fields of one record (bytes), split on ``delim``, quotes honoured."""
    if record == b"":
        return []
    if not quotes:
        return record.split(delim)
    fields, i, n = [], 0, len(record)
    while True:
        if i < n and record[i : i + 1] == b'"':
            field, i = _quoted(record, i + 1, delim, at)
        else:
            end = record.find(delim, i)
            end = n if end < 0 else end
            field, i = record[i:end], end
            if b'"' in field:
                raise InvalidArgumentError(
                    None, None, f"Unquoted fields cannot have quotes/CRLFs inside (record {at})"
                )
        fields.append(field)
        if i >= n:
            return fields
        i += len(delim)
        if i == n:
            fields.append(b"")
            return fields


def _quoted(record, i, delim, at):
    out = bytearray()
    n = len(record)
    while i < n:
        c = record[i : i + 1]
        if c == b'"':
            if record[i + 1 : i + 2] == b'"':  # "" is a quote
                out += b'"'
                i += 2
                continue
            i += 1
            if i < n and record[i : i + len(delim)] != delim:
                break
            return bytes(out), i
        out += c
        i += 1
    raise InvalidArgumentError(None, None, "Quoted field has to end with quote followed by delim or end")


def _value(field, default, na, column, at):
    if field == b"" or (na and field == na):
        if default.size == 0:
            raise InvalidArgumentError(None, None, f"Field {column} is required but missing in record {at}!")
        return default.reshape(-1)[0]
    kind = default.dtype
    if kind.kind == "O":
        return field
    if kind.kind == "i":
        if not _INT.match(field):
            raise _not_valid(field, kind, column, at)
        value = int(field)
        if not np.iinfo(kind).min <= value <= np.iinfo(kind).max:
            raise _not_valid(field, kind, column, at)
        return value
    try:
        if _FLOAT_BAD.search(field):
            raise ValueError
        return float(field)
    except ValueError:
        raise _not_valid(field, kind, column, at) from None


def _not_valid(field, kind, column, at):
    name = {"float32": "float", "float64": "double"}.get(kind.name, kind.name)
    return InvalidArgumentError(
        None, None, f"Field {column} in record {at} is not a valid {name}: {field.decode(errors='replace')}"
    )


DecodeCSV = Primitive("DecodeCSV", _csv_infer, _csv_kernel, host_only=True)


def decode_csv(
    records,
    record_defaults,
    field_delim=",",
    use_quote_delim=True,
    name=None,
    na_value="",
    select_cols=None,
):
    """Parse CSV records into one tensor per column (TF1's ``tf.decode_csv``).

    Parameters
    ----------
    records : string Tensor
        One CSV line per element, any shape.
    record_defaults : list
        One per column: its type and the value of an empty field, as a
        one-element list (``[0.0]``, ``[0]``, ``["none"]``) or a tensor; an
        empty one (``tf.constant([], tf.int32)``) makes the column required.
    field_delim : str
        One character.
    use_quote_delim : bool
        Quoted fields may hold the delimiter (``""`` is a quote).
    na_value : str
        A field equal to it counts as empty.
    select_cols : list of int, optional
        Keep only these columns (increasing), one default each.

    Returns
    -------
    list of Tensor
        Each with the shape of ``records``.

    Raises
    ------
    ValueError
        If ``select_cols`` does not match ``record_defaults`` or is not increasing.
    TypeError
        If a default's type is not float32, float64, int32, int64 or string.
    tf.errors.InvalidArgumentError
        When run, for a record that does not parse, naming the field and the record.
    """
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    if len(field_delim) != 1:
        raise ValueError(f"field_delim should be only 1 char, got {field_delim!r}")
    graph = get_default_graph()
    records = convert_to_tensor(records, dtype=dtypes.string)
    defaults = [_default(d, i) for i, d in enumerate(record_defaults)]
    attrs = dict(
        field_delim=field_delim,
        use_quote_delim=bool(use_quote_delim),
        na_value=na_value,
        select_cols=None if select_cols is None else tuple(select_cols),
    )
    op = graph.create_op(DecodeCSV, [records, *defaults], attrs, name=name or "DecodeCSV")
    return list(op.outputs)


def _default(value, i):
    t = convert_to_tensor(value, name=f"record_defaults_{i}")
    if t.dtype not in _CSV_TYPES:
        raise TypeError(
            f"decode_csv: record_defaults[{i}] ({t.name}) is {t.dtype.name}; "
            "it must be float32, float64, int32, int64 or string"
        )
    if t.shape.ndims is not None and t.shape.ndims > 1:
        raise ValueError(f"decode_csv: record_defaults[{i}] ({t.name}) must have rank 0 or 1, got {t.shape}")
    return t


# -- decode_raw --------------------------------------------------------------------------------------


def _raw_infer(inputs, *, out_type, little_endian):
    (x,) = inputs
    if x.dtype is not dtypes.string:
        raise TypeError(f"decode_raw: {x.name} must be strings (bytes), got {x.dtype.name}")
    return (None if x._dims is None else (*x._dims, None)), out_type


def _raw_kernel(xp, x, *, out_type, little_endian):
    x = np.asarray(x, dtype=object)
    flat = x.reshape(-1)
    width = out_type.np.itemsize
    sizes = {len(s) for s in flat}
    if len(sizes) > 1:
        first = len(flat[0])
        bad = next(i for i, s in enumerate(flat) if len(s) != first)
        raise InvalidArgumentError(
            None,
            None,
            "DecodeRaw requires input strings to all be the same size, but element "
            f"{bad} has size {first} != {len(flat[bad])}",  # sic: TF1 names the first size first
        )
    size = sizes.pop() if sizes else 0
    if size % width:
        raise InvalidArgumentError(
            None,
            None,
            f"Input to DecodeRaw has length {size} that is not a multiple of {width}, "
            f"the size of {out_type.name}",
        )
    order = "<" if little_endian else ">"
    dtype = out_type.np.newbyteorder(order) if width > 1 else out_type.np
    out = np.frombuffer(b"".join(flat), dtype=dtype).astype(out_type.np)
    return out.reshape(*x.shape, size // width)


DecodeRaw = Primitive("DecodeRaw", _raw_infer, _raw_kernel, host_only=True, grad=NOT_DIFFERENTIABLE)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """The bytes of each string as numbers of ``out_type`` (TF1's ``tf.decode_raw``).

    ``bytes`` is TF1's older name of ``input_bytes``. All strings must be the
    same length, a multiple of ``out_type``'s size (else ``InvalidArgumentError``).

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.decode_raw(tf.constant([b"\\x01\\x00\\x02\\x00"]), tf.int16)
    >>> x.shape.as_list()
    [1, None]
    >>> tf.Session().run(x).tolist()
    [[1, 2]]
    """
    if input_bytes is None:
        input_bytes = bytes
    if input_bytes is None or out_type is None:
        raise ValueError("decode_raw needs input_bytes and out_type")
    out_type = dtypes.as_dtype(out_type)
    if out_type is dtypes.string:
        raise TypeError("decode_raw: out_type must be a numeric type, not string")
    x = convert_to_tensor(input_bytes, dtype=dtypes.string)
    graph = get_default_graph()
    attrs = dict(out_type=out_type, little_endian=bool(little_endian))
    return graph.create_op(DecodeRaw, [x], attrs, name=name or "DecodeRaw").outputs[0]
