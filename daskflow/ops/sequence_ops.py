"""``tf.reverse_sequence``: reverse the first ``seq_lengths[b]`` entries of each batch row.

Its gradient is the same reversal of the output gradient, as in TF1.
"""

from __future__ import annotations

from ..framework.apply import apply
from ..framework.constant import convert_to_tensor
from ..framework.primitive import Primitive
from .infer import normalize_axes


def _infer(inputs, *, seq_axis, batch_axis):
    x, lengths = inputs
    if not lengths.dtype.is_integer:
        raise TypeError(
            f"reverse_sequence: seq_lengths {lengths.name} must be integers, got {lengths.dtype.name}"
        )
    if lengths._dims is not None and len(lengths._dims) != 1:
        raise ValueError(
            f"reverse_sequence: seq_lengths {lengths.name} must be 1-D, got shape {lengths.shape}"
        )
    if x._dims is not None and lengths._dims is not None:
        b, n = x._dims[batch_axis], lengths._dims[0]
        if b is not None and n is not None and b != n:
            raise ValueError(
                f"reverse_sequence: seq_lengths {lengths.name} has {n} entries but dimension "
                f"{batch_axis} (batch_axis) of {x.name} is {b}"
            )
    return x._dims, x.dtype


def _kernel(xp, x, lengths, *, seq_axis, batch_axis):
    n = x.shape[seq_axis]
    bad = (lengths < 0) | (lengths > n)
    if bool(bad.any()):
        i = int(xp.argmax(bad))
        raise ValueError(f"seq_lengths[{i}] = {int(lengths[i])} is not in [0, {n}] (dimension {seq_axis})")
    moved = xp.moveaxis(x, (batch_axis, seq_axis), (0, 1))
    j = xp.arange(n)
    ends = lengths.reshape(-1, 1).astype(j.dtype)
    src = xp.where(j < ends, ends - 1 - j, j)  # (batch, seq): where each entry comes from
    src = xp.broadcast_to(src.reshape(src.shape + (1,) * (x.ndim - 2)), moved.shape)
    return xp.moveaxis(xp.take_along_axis(moved, src, axis=1), (0, 1), (batch_axis, seq_axis))


ReverseSequence = Primitive(
    "ReverseSequence",
    _infer,
    _kernel,
    lambda op, g: [apply(ReverseSequence, g, op.inputs[1], **op.attrs), None],
)


def reverse_sequence(
    input,  # noqa: A002 - TF1's argument name
    seq_lengths,
    seq_axis=None,
    batch_axis=None,
    name=None,
    seq_dim=None,
    batch_dim=None,
):
    """Reverse ``input[b, :seq_lengths[b]]`` along ``seq_axis`` for each ``b`` along ``batch_axis``.

    ``seq_dim`` and ``batch_dim`` are TF1's older names of the two axes.

    Examples
    --------
    >>> import daskflow as tf
    >>> x = tf.constant([[1, 2, 3], [4, 5, 6]])
    >>> tf.Session().run(tf.reverse_sequence(x, [2, 3], seq_axis=1)).tolist()
    [[2, 1, 3], [6, 5, 4]]
    """
    seq_axis = _one_of("seq_axis", seq_axis, "seq_dim", seq_dim)
    batch_axis = _one_of("batch_axis", batch_axis, "batch_dim", batch_dim)
    if seq_axis is None:
        raise TypeError("reverse_sequence: expected an int for seq_axis (seq_dim), got None")
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    (seq_axis,) = normalize_axes(seq_axis, x.shape.ndims, "seq_axis")
    (batch_axis,) = normalize_axes(0 if batch_axis is None else batch_axis, x.shape.ndims, "batch_axis")
    if seq_axis == batch_axis:
        raise ValueError(f"reverse_sequence: seq_axis and batch_axis are both {seq_axis}")
    return apply(ReverseSequence, x, lengths, seq_axis=seq_axis, batch_axis=batch_axis, name=name)


def _one_of(new, new_value, old, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"reverse_sequence: cannot give both {new} and {old}")
    return new_value if new_value is not None else old_value
