"""``SparseTensor``: TF1's sparse value as a composite of three dense tensors.

A ``SparseTensor`` is no op output of its own: it names an int64 ``[N, rank]``
``indices`` tensor, an ``[N]`` ``values`` tensor and an int64 ``[rank]``
``dense_shape`` tensor. Ops that take one take those three as inputs; a
session fetches and feeds one through its three parts (the conversions
registered in :mod:`daskflow.runtime.plan.conversions`), so the runtime and
the lowering never meet the composite.
"""

from __future__ import annotations

import collections

from .. import dtypes
from ..ops.infer import static_shape_value
from .constant import convert_to_tensor
from .graph import _session_for, name_scope
from .tensor_shape import TensorShape

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = (
    "A fetched (or to-be-fed) sparse value: ``(indices, values, dense_shape)`` arrays."
)


class SparseTensor:
    """A sparse tensor: ``values[i]`` sits at ``indices[i]`` of a tensor of shape ``dense_shape``.

    Parameters
    ----------
    indices : int64 array-like or Tensor of shape ``[N, rank]``
    values : array-like or Tensor of shape ``[N]``
    dense_shape : int64 array-like or Tensor of shape ``[rank]``

    Raises
    ------
    ValueError
        If the three parts' static shapes disagree (TF1's shape checks).

    Examples
    --------
    >>> import daskflow as tf
    >>> st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    >>> st.shape.as_list()
    [3, 4]
    >>> tf.Session().run(st).values.tolist()
    [1.0, 2.0]
    """

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor"):
            self._indices = convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
            self._values = convert_to_tensor(values, name="values")
            self._dense_shape = convert_to_tensor(dense_shape, dtype=dtypes.int64, name="dense_shape")
        _check_parts(self._indices, self._values, self._dense_shape)

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A ``SparseTensor`` of constants from a :class:`SparseTensorValue` (or returned as is)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        if not isinstance(sparse_tensor_value, SparseTensorValue):
            raise TypeError(f"Neither a SparseTensor nor SparseTensorValue: {sparse_tensor_value}.")
        return cls(*sparse_tensor_value)

    indices = property(lambda self: self._indices, doc="The int64 ``[N, rank]`` indices.")
    values = property(lambda self: self._values, doc="The ``[N]`` values.")
    dense_shape = property(lambda self: self._dense_shape, doc="The int64 ``[rank]`` dense shape.")
    dtype = property(lambda self: self._values.dtype, doc="The values' dtype.")
    op = property(lambda self: self._values.op, doc="The op that makes the values (TF1's choice).")
    graph = property(lambda self: self._indices.graph)

    @property
    def shape(self) -> TensorShape:
        """The static dense shape: known entries of a constant (or partly known) ``dense_shape``,
        as TF1's ``constant_value_as_shape`` finds them (``tf.shape(x)`` gives ``x``'s)."""
        value = static_shape_value(self._dense_shape)
        found = TensorShape(None if value is None else [None if d is None else int(d) for d in value])
        default = getattr(self, "_dense_shape_default", None)  # what the op that made it knows
        if default is not None:
            found = found.merge_with(default) if found.is_compatible_with(default) else default
        if found.ndims is None and self._dense_shape._dims:
            return TensorShape([None] * self._dense_shape._dims[0] if self._dense_shape._dims[0] else None)
        return found

    def get_shape(self) -> TensorShape:
        return self.shape

    def consumers(self) -> list:
        ops = self._indices.consumers() + self._values.consumers() + self._dense_shape.consumers()
        return list(dict.fromkeys(ops))

    def eval(self, feed_dict=None, session=None):
        """The :class:`SparseTensorValue` of this tensor in the default (or given) session."""
        return _session_for(session, self.graph).run(self, feed_dict)

    def __repr__(self):
        return (
            f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"
        )


def _rank(t, rank):
    if t._dims is not None and len(t._dims) != rank:
        raise ValueError(f"Shape {t.shape} must have rank {rank} ({t.name})")
    return t._dims or (None,) * rank


def _check_parts(indices, values, dense_shape):
    """TF1's checks: indices ``[N, rank]``, values ``[N]``, dense_shape ``[rank]``."""
    n, rank = _rank(indices, 2)
    (m,) = _rank(values, 1)
    (r,) = _rank(dense_shape, 1)
    for a, b, what in ((n, m, values), (rank, r, dense_shape)):
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Dimensions {a} and {b} are not compatible: {what.name} of shape {what.shape} "
                f"does not fit indices {indices.name} of shape {indices.shape}"
            )


def is_sparse(x) -> bool:
    """Whether ``x`` is a ``SparseTensor`` or ``SparseTensorValue``."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """``value`` as a ``SparseTensor`` (from a value too) or a dense tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and value.dtype is not dtypes.as_dtype(dtype):
            raise ValueError(f"Sparse dtype: requested = {dtypes.as_dtype(dtype)}, actual = {value.dtype}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
