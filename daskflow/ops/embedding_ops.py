"""``tf.nn.embedding_lookup``: rows of an embedding matrix by id."""

from __future__ import annotations

from ..framework.constant import convert_to_tensor
from . import array_ops


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows of ``params`` at ``ids`` (a ``gather`` along axis 0).

    ``params`` may be one tensor or a list with one tensor; sharded
    embeddings (a list of several) are not supported.

    Examples
    --------
    >>> import daskflow as tf
    >>> emb = tf.Variable(tf.zeros([100, 8]))
    >>> tf.nn.embedding_lookup(emb, [[1, 2, 3]]).shape.as_list()
    [1, 3, 8]
    """
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("embedding_lookup over several sharded params is not supported")
        params = params[0]
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup with max_norm is not supported")
    return array_ops.gather(convert_to_tensor(params), ids, name=name)
