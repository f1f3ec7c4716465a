"""TF1's feature specs for parsing ``Example`` protos: ``tf.FixedLenFeature``,
``tf.VarLenFeature``, ``tf.SparseFeature``, ``tf.FixedLenSequenceFeature``.

Each is a namedtuple, as in TF1 (programs unpack them and call ``_replace``).
:func:`plan_features` checks a ``{key: spec}`` dict as TF1 does when the graph is
built and turns it into the parts :mod:`daskflow.ops.example_parsing_ops` parses:
dense keys (a ``FixedLenFeature``, or a ``FixedLenSequenceFeature`` whose rows vary)
and sparse keys (a ``VarLenFeature``, or a ``SparseFeature``'s index and value keys).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

from .. import dtypes
from ..framework.tensor_shape import TensorShape

PARSED_DTYPES = (dtypes.float32, dtypes.int64, dtypes.string)


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of a fixed number of values, parsed into a dense tensor of ``shape``.

    Parameters
    ----------
    shape : list of int
        The values of one example, row-major (``[]`` for one value).
    dtype : DType
        ``tf.float32``, ``tf.int64`` or ``tf.string``.
    default_value : array-like, optional
        For an example without the feature (of ``shape``); without one, the feature is
        required.
    """

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(
    collections.namedtuple("FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])
):
    """A feature of any number of rows of ``shape`` each, parsed into ``[rows, *shape]``
    (padded to the longest example's rows with ``default_value`` in a batch).

    Parameters
    ----------
    shape : list of int
        One row's shape.
    dtype : DType
    allow_missing : bool
        An example without the feature has no rows (``parse_example`` requires True).
    default_value : scalar, optional
        What pads the shorter examples (0 or ``b""`` without one).
    """

    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any number of values, parsed into a ``SparseTensor``.

    Parameters
    ----------
    dtype : DType
        ``tf.float32``, ``tf.int64`` or ``tf.string``.
    """

    __slots__ = ()


class SparseFeature(
    collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])
):
    """A ``SparseTensor`` of ``size`` from an index feature (or one per dimension) and a
    value feature of the same length.

    Parameters
    ----------
    index_key : str or list of str
        The int64 features holding each value's index (one per dimension).
    value_key : str
        The feature holding the values.
    dtype : DType
        The values' type.
    size : int or list of int
        The dense shape of one example (one entry per index key).
    already_sorted : bool
        The indices come in order: the result is not sorted.
    """

    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@dataclass(frozen=True)
class Dense:
    """One dense output. ``shape`` is one row's shape; ``rows``: the feature holds any
    number of rows of it (a ``FixedLenSequenceFeature``, or any feature of a sequence's
    lists), not exactly one. ``default``: the value of an example without the feature
    (the padding of shorter ones, for rows), or None; ``missing_ok``: an example may lack
    the feature (it takes the default, or has no rows)."""

    key: str
    dtype: dtypes.DType
    shape: tuple
    default: object
    rows: bool = False
    missing_ok: bool = False


@dataclass(frozen=True)
class Sparse:
    key: str
    dtype: dtypes.DType


@dataclass(frozen=True)
class Composite:
    """A ``SparseFeature``: built from the sparse keys ``index_keys`` and ``value_key``."""

    key: str
    index_keys: tuple
    value_key: str
    size: tuple
    already_sorted: bool


@dataclass(frozen=True)
class FeaturePlan:
    dense: tuple
    sparse: tuple
    composite: tuple


def _dtype(spec, key, part):
    dtype = dtypes.as_dtype(spec.dtype)
    if dtype not in PARSED_DTYPES:
        raise TypeError(
            f"Value passed to parameter '{part}_types' has DataType {dtype.name} not in list of allowed "
            f"values: float32, int64, string (feature {key!r})"
        )
    return dtype


def _shape(spec, key):
    if spec.shape is None:
        raise ValueError(f"Missing shape for feature {key}.")
    shape = TensorShape(spec.shape)
    if not shape.is_fully_defined():
        raise ValueError(
            f"All dimensions of shape for feature {key} need to be known but received {spec.shape!s}."
        )
    return tuple(shape.as_list())


def plan_features(features, kind="example"):
    """Check ``features`` (``{key: spec}``) and return its :class:`FeaturePlan`.

    ``kind``: ``"example"`` (an ``Example``'s features: any spec), ``"context"`` (a
    ``SequenceExample``'s context: ``FixedLenFeature`` or ``VarLenFeature``) or ``"lists"``
    (its feature lists: ``FixedLenSequenceFeature``, rows per step, or ``VarLenFeature``).
    """
    dense, sparse, composite = [], {}, []
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, FixedLenFeature) and kind != "lists":
            dense.append(_dense(key, spec, rows=False, missing_ok=spec.default_value is not None))
        elif isinstance(spec, FixedLenSequenceFeature) and kind != "context":
            if kind == "example" and not spec.allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True "
                    f"(feature {key!r})."
                )
            dense.append(_dense(key, spec, rows=True, missing_ok=bool(spec.allow_missing)))
        elif isinstance(spec, VarLenFeature):
            _add_sparse(sparse, Sparse(key, _dtype(spec, key, "sparse")))
        elif isinstance(spec, SparseFeature) and kind == "example":
            composite.append(_composite(key, spec, sparse))
        else:
            raise ValueError(f"Unsupported {type(spec).__name__} {spec} for key {key!r}")
    return FeaturePlan(tuple(dense), tuple(sparse.values()), tuple(composite))


def _dense(key, spec, rows, missing_ok):
    dtype, shape = _dtype(spec, key, "dense"), _shape(spec, key)
    return Dense(key, dtype, shape, spec.default_value, rows=rows, missing_ok=missing_ok)


def _composite(key, spec, sparse):
    index_keys = (spec.index_key,) if isinstance(spec.index_key, str) else tuple(spec.index_key)
    size = (spec.size,) if isinstance(spec.size, int) else tuple(spec.size)
    if len(index_keys) != len(size):
        raise ValueError(
            f"SparseFeature {key}: {len(index_keys)} index keys ({index_keys}) but a size of rank {len(size)}"
        )
    for index_key in index_keys:
        _add_sparse(sparse, Sparse(index_key, dtypes.int64))
    _add_sparse(sparse, Sparse(spec.value_key, _dtype(spec, key, "sparse")))
    return Composite(key, index_keys, spec.value_key, tuple(int(s) for s in size), bool(spec.already_sorted))


def _add_sparse(sparse, feature):
    known = sparse.setdefault(feature.key, feature)
    if known.dtype != feature.dtype:
        raise ValueError(
            f"Conflicting type for feature {feature.key}: {known.dtype.name} and {feature.dtype.name}"
        )
