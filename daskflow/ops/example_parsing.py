"""The kernels of :mod:`daskflow.ops.example_parsing_ops`: serialized ``Example`` and
``SequenceExample`` protos to numpy arrays, as TF1's ``ParseExampleV2`` and
``ParseSequenceExampleV2`` make them, with their errors' messages."""

from __future__ import annotations

import sys

import numpy as np

from .. import dtypes
from ..core.example.example_pb2 import Example, SequenceExample
from ..errors import InvalidArgumentError

_BIG_ENDIAN = sys.byteorder != "little"  # the wire's floats are little-endian
_KIND = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_KIND_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _fail(message):
    raise InvalidArgumentError(None, None, message)


def _shape_text(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _decode(proto, record):
    from google.protobuf.message import DecodeError

    try:
        return proto.FromString(record)
    except DecodeError:
        shown = record.decode("utf-8", "backslashreplace") if isinstance(record, bytes) else record
        _fail(f"Could not parse example input, value: '{shown}'")


def _numpy(dtype):
    return object if dtype is dtypes.string else dtype.as_numpy_dtype


def _values(feature, dtype, mismatch):
    """``feature``'s values as an array of ``dtype``; ``mismatch(actual)`` fails the step."""
    kind = feature.WhichOneof("kind")
    if kind is None:  # a Feature with no list set: no values of any type
        return np.zeros(0, dtype=_numpy(dtype))
    if kind != _KIND[dtype]:
        mismatch(_KIND_NAME[kind])
    values = getattr(feature, kind).value
    if dtype is dtypes.string:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out
    return np.asarray(values, dtype=dtype.as_numpy_dtype)


def _feature_values(features, key, dtype, where, var_len=False):
    """The values of ``features[key]``: None when absent (for a ``VarLenFeature``, no
    values); ``where``: ``(name, index)``. TF words a type mismatch of the two differently."""
    if key not in features:
        return np.zeros(0, dtype=_numpy(dtype)) if var_len else None
    name, index = where
    expected = _KIND_NAME[_KIND[dtype]]

    def mismatch(actual):
        if var_len:
            detail = f"Expected type: {expected}, Actual type: {actual}"
        else:
            detail = f"Data type: {actual} but expected type: {expected}"
        _fail(f"Name: {name}, Key: {key}, Index: {index}.  Data types don't match. {detail}")

    return _values(features[key], dtype, mismatch)


# -- sparse and dense outputs ----------------------------------------------------------------------


def sparse_parts(lists, dtype, single):
    """One ``SparseTensor``'s indices, values and dense shape from each example's values."""
    lengths = np.array([len(v) for v in lists], dtype=np.int64)
    positions = (
        np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
        if len(lists)
        else np.zeros(0, np.int64)
    )
    values = np.concatenate(lists) if len(lists) else np.zeros(0, dtype=_numpy(dtype))
    longest = int(lengths.max()) if len(lists) else 0
    if single:
        return positions[:, None], values, np.array([longest], dtype=np.int64)
    rows = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
    return np.stack([rows, positions], axis=1), values, np.array([len(lists), longest], dtype=np.int64)


def _fixed(maps, dense, default, names, single):
    size = int(np.prod(dense.shape, dtype=np.int64))
    out = np.empty((len(maps), *dense.shape), dtype=_numpy(dense.dtype))
    for b, features in enumerate(maps):
        values = _feature_values(features, dense.key, dense.dtype, (names[b], b))
        if values is None:
            if default.size == 0:
                _fail(
                    f"Name: {names[b]}, Feature: {dense.key} (data type: {_KIND_NAME[_KIND[dense.dtype]]}) "
                    "is required but could not be found."
                )
            out[b] = default.reshape(dense.shape)
        elif values.size != size:
            _fail(
                f"Name: {names[b]}, Key: {dense.key}, Index: {b}.  Number of "
                f"{_KIND_NAME[_KIND[dense.dtype]]} values != expected.  Values size: {values.size} "
                f"but output shape: {_shape_text(dense.shape)}"
            )
        else:
            out[b] = values.reshape(dense.shape)
    return out[0] if single else out


def _padded(rows, dense, default):
    """Each example's rows in one array, padded to the longest with ``default`` (a scalar)."""
    longest = max((len(r) for r in rows), default=0)
    out = np.empty((len(rows), longest, *dense.shape), dtype=_numpy(dense.dtype))
    out[...] = default.reshape(()) if default.size else (b"" if dense.dtype is dtypes.string else 0)
    for b, r in enumerate(rows):
        out[b, : len(r)] = r
    return out


def _rows(maps, dense, default, names, single):
    """A ``FixedLenSequenceFeature`` of ``Example`` protos: any number of rows of its shape."""
    size = int(np.prod(dense.shape, dtype=np.int64))
    rows = []
    for b, features in enumerate(maps):
        values = _feature_values(features, dense.key, dense.dtype, (names[b], b))
        if values is None:
            values = np.zeros(0, dtype=_numpy(dense.dtype))
        if size and values.size % size:
            _fail(
                f"Name: {names[b]}, Key: {dense.key}, Index: {b}.  Number of "
                f"{_KIND_NAME[_KIND[dense.dtype]]} values is not a multiple of stride length. Saw "
                f"{values.size} values but output shape is: {_shape_text((None, *dense.shape))}"
            )
        rows.append(values.reshape(-1, *dense.shape))
    return rows[0] if single else _padded(rows, dense, default)


def _composite(composite, raw, single):
    """A ``SparseFeature``: its index keys' and value key's values, merged per example."""
    indices, values = [], []
    for b, value in enumerate(raw[composite.value_key]):
        columns = [raw[k][b] for k in composite.index_keys]
        for column in columns:
            if len(column) != len(value):
                _fail(
                    f"Number of elements in indices ({len(column)}) and values ({len(value)}) do not match "
                    f"in SparseFeature {composite.key} of example {b}"
                )
        index = np.stack([np.full(len(value), b, np.int64), *columns], axis=1)
        if not composite.already_sorted:
            order = np.lexsort(index[:, ::-1].T)
            index, value = index[order], value[order]
        indices.append(index)
        values.append(value)
    index = np.concatenate(indices).reshape(-1, 1 + len(composite.index_keys))
    shape = np.array([len(values), *composite.size], dtype=np.int64)
    if single:
        return index[:, 1:], np.concatenate(values), shape[1:]
    return index, np.concatenate(values), shape


def parse_features(maps, names, plan, defaults, single):
    """The outputs of one ``FeaturePlan`` over ``maps`` (each example's feature map):
    each sparse key's three parts, each dense key's array, each composite's three parts."""
    outs, raw = [], {}
    for s in plan.sparse:
        raw[s.key] = [
            _feature_values(m, s.key, s.dtype, (names[b], b), var_len=True) for b, m in enumerate(maps)
        ]
        outs += sparse_parts(raw[s.key], s.dtype, single)
    for d, default in zip(plan.dense, defaults):
        default = np.asarray(default)
        outs.append((_rows if d.rows else _fixed)(maps, d, default, names, single))
    for c in plan.composite:
        outs += _composite(c, raw, single)
    return outs


def parse_batch(records, names, plan, defaults, single):
    """``ParseExampleV2``: serialized ``Example`` protos to their features' arrays."""
    fast = _dense_in_place(records, plan, defaults, single)
    if fast is not None:
        return fast
    maps = [_decode(Example, r).features.feature for r in records]
    return parse_features(maps, names, plan, defaults, single)


def _dense_in_place(records, plan, defaults, single):
    """The dense float32 and int64 features of ``plan`` read from the records' bytes in
    place (:mod:`daskflow.kernels.example_wire`), or None where that does not apply: other
    features, no compiled loops, or anything unusual in the records (protobuf's path then
    parses them, and words any error)."""
    from ..kernels import example_wire as wire  # local import: it loads numba, only when records are parsed

    numeric = all(not d.rows and d.dtype in (dtypes.float32, dtypes.int64) for d in plan.dense)
    scan = wire.scan_examples.get()
    if plan.sparse or plan.composite or not numeric or scan is None or not len(records) or _BIG_ENDIAN:
        return None
    lengths = np.fromiter((len(r) for r in records), np.int64, len(records))
    ends = np.cumsum(lengths)
    buf = np.frombuffer(b"".join([*records, bytes(16)]), np.uint8)  # zeros after: no read runs off
    keys = [d.key.encode() for d in plan.dense]
    key_ends = np.cumsum([len(k) for k in keys], dtype=np.int64)
    shape = (len(records), len(keys))
    where, nbytes, kind = np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    key_buf = np.frombuffer(b"".join(keys) + bytes(1), np.uint8)
    if (
        scan(
            buf,
            ends - lengths,
            ends,
            key_buf,
            key_ends - [len(k) for k in keys],
            key_ends,
            where,
            nbytes,
            kind,
        )
        >= 0
    ):
        return None
    outs = []
    for k, (d, default) in enumerate(zip(plan.dense, defaults)):
        out = _gathered(wire, buf, d, np.asarray(default), where[:, k], nbytes[:, k], kind[:, k])
        if out is None:
            return None
        outs.append(out[0] if single else out)
    return outs


def _gathered(wire, buf, dense, default, where, nbytes, kind):
    size = int(np.prod(dense.shape, dtype=np.int64))
    present = kind != 0
    expected = wire.FLOATS if dense.dtype is dtypes.float32 else wire.INT64S
    if (present & (kind != expected)).any() or (not present.all() and default.size != size):
        return None
    out = np.empty((len(kind), size), dtype=dense.dtype.as_numpy_dtype)
    rows = np.flatnonzero(present)
    if dense.dtype is dtypes.float32:
        if (nbytes[rows] != 4 * size).any():
            return None
        wire.gather_floats.get()(buf, where[rows], rows, out.view(np.uint8))
    elif wire.gather_int64s.get()(buf, where[rows], nbytes[rows], rows, out) >= 0:
        return None
    if not present.all():
        out[~present] = default.reshape(-1)
    return out.reshape(len(kind), *dense.shape)


# -- sequences -------------------------------------------------------------------------------------


def _steps(lists, key, dtype, name):
    """Each step's values of feature list ``key`` (None when the list is absent)."""
    if key not in lists:
        return None

    def mismatch(step):
        def fail(actual):
            _fail(
                f"Name: {name}, Feature list: {key}, Index: {step}.  Data types don't match. "
                f"Expected type: {_KIND_NAME[_KIND[dtype]]}"
            )

        return fail

    return [_values(f, dtype, mismatch(t)) for t, f in enumerate(lists[key].feature)]


def _sequence_sparse(all_lists, s, names, single):
    steps = [_steps(lists, s.key, s.dtype, names[b]) or [] for b, lists in enumerate(all_lists)]
    longest_steps = max((len(x) for x in steps), default=0)
    longest = max((len(v) for x in steps for v in x), default=0)
    index, values = [], []
    for b, x in enumerate(steps):
        for t, v in enumerate(x):
            n = len(v)
            index.append(np.stack([np.full(n, b), np.full(n, t), np.arange(n)], axis=1).astype(np.int64))
            values.append(v)
    index = np.concatenate(index) if index else np.zeros((0, 3), np.int64)
    values = np.concatenate(values) if values else np.zeros(0, dtype=_numpy(s.dtype))
    shape = np.array([len(steps), longest_steps, longest], dtype=np.int64)
    return (index[:, 1:], values, shape[1:]) if single else (index, values, shape)


def _sequence_dense(all_lists, d, names):
    size = int(np.prod(d.shape, dtype=np.int64))
    rows = []
    for b, lists in enumerate(all_lists):
        steps = _steps(lists, d.key, d.dtype, names[b])
        if steps is None and not d.missing_ok:
            _fail(
                f"Name: {names[b]}, Feature list '{d.key}' is required but could not be found.  "
                "Did you mean to include it in feature_list_dense_missing_assumed_empty or "
                "feature_list_dense_defaults?"
            )
        steps = steps or []
        values = np.concatenate(steps) if steps else np.zeros(0, dtype=_numpy(d.dtype))
        if values.size != len(steps) * size:
            _fail(
                f"Feature list '{d.key}' has an unexpected number of values.  Total values size: "
                f"{values.size} is not consistent with output shape: {_shape_text((None, *d.shape))}"
            )
        rows.append(values.reshape(len(steps), *d.shape))
    return rows


def parse_sequences(records, names, context, lists, defaults, single):
    """``ParseSequenceExampleV2``: the context's outputs, the feature lists' (sparse, then
    dense), and (batched) each dense feature list's lengths."""
    protos = [_decode(SequenceExample, r) for r in records]
    outs = parse_features([p.context.feature for p in protos], names, context, defaults, single)
    all_lists = [p.feature_lists.feature_list for p in protos]
    for s in lists.sparse:
        outs += _sequence_sparse(all_lists, s, names, single)
    lengths = []
    for d, default in zip(lists.dense, defaults[len(context.dense) :]):
        rows = _sequence_dense(all_lists, d, names)
        outs.append(rows[0] if single else _padded(rows, d, np.asarray(default)))
        lengths.append(np.array([len(r) for r in rows], dtype=np.int64))
    return outs if single else outs + lengths
