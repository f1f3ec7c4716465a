"""``tf.dynamic_partition`` and ``tf.dynamic_stitch``, each the other's gradient as in TF1.

``dynamic_partition`` splits ``data`` by a partition number per leading entry;
``dynamic_stitch`` merges tensors into the rows their ``indices`` name (a later
input wins a repeated index). Their outputs' leading size is known only when run,
except a stitch of constant indices, whose size TF1 infers too.
"""

from __future__ import annotations

from .. import dtypes
from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import Primitive
from . import array_ops, math_ops


def _check_prefix(data, ids, what, name):
    d, i = data._dims, ids._dims
    if d is not None and i is not None:
        if len(i) > len(d) or any(a is not None and b is not None and a != b for a, b in zip(d, i)):
            raise ValueError(
                f"{what}: {name} {ids.name} of shape {ids.shape} must be a prefix of "
                f"data {data.name}'s shape {data.shape}"
            )


def _partition_infer(inputs, *, num_partitions):
    data, parts = inputs
    if parts.dtype is not dtypes.int32:
        raise TypeError(f"dynamic_partition: partitions {parts.name} must be int32, got {parts.dtype.name}")
    _check_prefix(data, parts, "dynamic_partition", "partitions")
    rest = None if data._dims is None or parts._dims is None else data._dims[len(parts._dims) :]
    return [(None if rest is None else (None,) + rest, data.dtype)] * num_partitions


def _partition_kernel(xp, data, parts, *, num_partitions):
    bad = (parts < 0) | (parts >= num_partitions)
    if bool(bad.any()):
        i = int(xp.argmax(bad.reshape(-1)))
        raise ValueError(f"partitions[{i}] = {int(parts.reshape(-1)[i])} is not in [0, {num_partitions})")
    return tuple(xp.array(data[parts == k]) for k in range(num_partitions))


def _partition_grad(op, *grads):
    # TF1's rule: partition the entries' positions the same way and stitch the gradients back.
    data, parts = op.inputs
    grads = [array_ops.zeros_like(t) if g is None else g for g, t in zip(grads, op.outputs)]
    prefix = array_ops.shape(parts)
    positions = array_ops.reshape(array_ops.range_(math_ops.reduce_prod(prefix)), prefix)
    where = dynamic_partition(positions, parts, op.attrs["num_partitions"])
    return [array_ops.reshape(dynamic_stitch(where, grads), array_ops.shape(data)), None]


DynamicPartition = Primitive("DynamicPartition", _partition_infer, _partition_kernel, _partition_grad)


def _constant_max(indices):
    values = [t.op.attrs["value"] for t in indices if t.op.type == "Const"]
    if len(values) < len(indices):
        return None
    return max((int(v.max()) for v in values if v.size), default=-1)


def _stitch_infer(inputs):
    n = len(inputs) // 2
    indices, data = inputs[:n], inputs[n:]
    for i, d in zip(indices, data):
        if i.dtype is not dtypes.int32:
            raise TypeError(f"dynamic_stitch: indices {i.name} must be int32, got {i.dtype.name}")
        if d.dtype is not data[0].dtype:
            raise TypeError(f"dynamic_stitch: data {d.name} is {d.dtype.name}, not {data[0].dtype.name}")
        _check_prefix(d, i, "dynamic_stitch", "indices")
    first, lead = data[0], indices[0]
    if first._dims is None or lead._dims is None:
        return None, first.dtype
    top = _constant_max(indices)
    return (None if top is None else top + 1,) + first._dims[len(lead._dims) :], first.dtype


def _stitch_kernel(xp, *inputs):
    n = len(inputs) // 2
    indices, data = inputs[:n], inputs[n:]
    rest = data[0].shape[indices[0].ndim :]
    size = max((int(i.max()) + 1 for i in indices if i.size), default=0)
    out = xp.zeros((size,) + rest, dtype=data[0].dtype)
    for i, d in zip(indices, data):  # in order: a later input wins a repeated index, as in TF
        if bool((i < 0).any()):
            raise ValueError(f"dynamic_stitch: indices {i.reshape(-1).tolist()} include a negative index")
        out[i.reshape(-1)] = d.reshape((-1,) + rest)
    return out


def _stitch_grad(op, g):
    # TF1's rule: each data input gets the gradient's rows its indices name.
    n = len(op.inputs) // 2
    return [None] * n + [array_ops.gather(g, i) for i in op.inputs[:n]]


DynamicStitch = Primitive("DynamicStitch", _stitch_infer, _stitch_kernel, _stitch_grad, fresh_output=True)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Split ``data`` into ``num_partitions`` tensors by ``partitions`` (of ``data``'s leading shape).

    Examples
    --------
    >>> import daskflow as tf
    >>> parts = tf.dynamic_partition([10, 20, 30, 40], [1, 0, 1, 1], 2)
    >>> [p.tolist() for p in tf.Session().run(parts)]
    [[20], [10, 30, 40]]
    """
    data = convert_to_tensor(data)
    parts = convert_to_tensor(partitions, dtype=None if hasattr(partitions, "dtype") else dtypes.int32)
    num = int(num_partitions)
    if num < 1:
        raise ValueError(f"dynamic_partition: num_partitions must be at least 1, got {num}")
    return list(apply(DynamicPartition, data, parts, num_partitions=num, name=name))


def dynamic_stitch(indices, data, name=None):
    """Merge ``data[m]`` into the rows ``indices[m]`` name: ``out[indices[m][i]] = data[m][i]``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.dynamic_stitch([[2, 0], [1]], [[7, 8], [9]])).tolist()
    [8, 9, 7]
    """
    indices = [convert_to_tensor(i, dtype=None if hasattr(i, "dtype") else dtypes.int32) for i in indices]
    data = [convert_to_tensor(d) for d in data]
    if len(indices) != len(data) or not indices:
        raise ValueError(f"dynamic_stitch: got {len(indices)} indices and {len(data)} data tensors")
    return apply(DynamicStitch, *indices, *data, name=name)
