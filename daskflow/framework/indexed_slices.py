"""``IndexedSlices``: TF1's sparse gradient, some rows of a dense tensor.

The gradient of a ``gather`` of a variable's rows (an embedding lookup) is one: ``values[i]`` is
the gradient of row ``indices[i]`` of a tensor of shape ``dense_shape``; rows repeat when
an id does. It is made where the lookup's gradient is computed and made dense
(``convert_to_tensor``: the rows added into zeros) only where a dense tensor is needed:
an optimizer applies the rows beside the variable it updates (TF1's sparse update for
SGD and momentum, the rows made dense there for the others), so only the rows travel to
the parameter server. Contributions that are all ``IndexedSlices`` are joined as rows;
any other mix is added dense (:mod:`daskflow.gradients`).
"""

from __future__ import annotations

import collections

from ..ops.array_ops import dense_rows
from ..ops.math_ops import negative

IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "A fetched ``IndexedSlices``: ``(values, indices, dense_shape)`` arrays."


class IndexedSlices:
    """Rows ``indices`` of a dense tensor of shape ``dense_shape``, holding ``values``.

    Parameters
    ----------
    values : Tensor
        ``[n, ...]``: one row per index.
    indices : Tensor
        ``[n]`` integers.
    dense_shape : Tensor, optional
        The dense tensor's shape (needed to make it dense).

    Examples
    --------
    >>> import daskflow as tf
    >>> emb = tf.Variable(tf.zeros([5, 2]))
    >>> (grad,) = tf.gradients(tf.reduce_sum(tf.gather(emb, [1, 1, 3])), [emb])
    >>> isinstance(grad, tf.IndexedSlices), grad.values.shape.as_list()
    (True, [3, 2])
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values, self._indices, self._dense_shape = values, indices, dense_shape
        self._dense = None

    values = property(lambda self: self._values, doc="The rows, ``[n, ...]``.")
    indices = property(lambda self: self._indices, doc="Which row of the dense tensor each is.")
    dense_shape = property(lambda self: self._dense_shape, doc="The dense tensor's shape, or None.")
    dtype = property(lambda self: self._values.dtype)
    name = property(lambda self: self._values.name)
    op = property(lambda self: self._values.op)
    graph = property(lambda self: self._values.graph)
    device = property(lambda self: self._values.device)

    def _as_tensor(self):
        """The dense tensor: the rows added into zeros (made once, where first asked for)."""
        if self._dense is None:
            if self._dense_shape is None:
                raise ValueError(f"Cannot convert {self!r} to a dense tensor: its dense_shape is None")

            self._dense = dense_rows(self._values, self._indices, self._dense_shape)
        return self._dense

    def __neg__(self):
        return IndexedSlices(negative(self._values), self._indices, self._dense_shape)

    def __repr__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape.name}"
        return f"IndexedSlices(indices={self._indices.name}, values={self._values.name}{shape})"
