"""Clipping by norm: ``clip_by_norm``, ``clip_by_global_norm``, ``global_norm``...

All composed from math ops (as TF1 composes them), so they need no gradient
rule of their own. ``clip_by_global_norm`` is the gradient-clipping step of
most 2017-2019 training scripts::

    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, params), 5.0)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..framework.constant import convert_to_tensor
from . import array_ops, math_ops


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescale ``t`` so its L2 norm
    (over ``axes``, all when None) is at most ``clip_norm``.

    Examples
    --------
    >>> import daskflow as tf
    >>> tf.Session().run(tf.clip_by_norm([3.0, 4.0], 1.0)).tolist()  # norm 5 scaled to 1
    [0.6000000238418579, 0.800000011920929]
    """
    t = convert_to_tensor(t)
    clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
    l2sum = math_ops.reduce_sum(t * t, axes, keepdims=True)
    # sqrt's gradient at 0 is inf; TF1 keeps the norm's gradient finite for a zero t the same way.
    positive = l2sum > 0
    l2norm = math_ops.where(
        positive, math_ops.sqrt(math_ops.where(positive, l2sum, array_ops.ones_like(l2sum))), l2sum
    )
    return array_ops.identity(t * clip_norm / math_ops.maximum(l2norm, clip_norm), name=name)


def _check_sequence(t_list, what):
    if isinstance(t_list, str) or not isinstance(t_list, Sequence):
        raise TypeError(f"{what}: t_list should be a sequence of tensors, got {type(t_list).__name__}")
    return list(t_list)


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))``; None entries are ignored."""
    tensors = [convert_to_tensor(t) for t in _check_sequence(t_list, "global_norm") if t is not None]
    if not tensors:
        raise ValueError("global_norm: t_list holds no tensors (all entries are None)")
    dtype = tensors[0].dtype
    squares = [math_ops.cast(math_ops.reduce_sum(t * t), dtype) for t in tensors]
    return math_ops.sqrt(math_ops.add_n(squares), name=name or "global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(list_clipped, global_norm)``; None entries stay None. A NaN or
    infinite global norm makes every clipped tensor NaN, as in TF1.

    Examples
    --------
    >>> import daskflow as tf
    >>> clipped, norm = tf.clip_by_global_norm([tf.constant([3.0]), None, tf.constant([4.0])], 1.0)
    >>> clipped[1] is None
    True
    """
    t_list = _check_sequence(t_list, "clip_by_global_norm")
    if use_norm is None:
        use_norm = global_norm(t_list)
    use_norm = convert_to_tensor(use_norm)
    clip_norm = convert_to_tensor(clip_norm, dtype=use_norm.dtype)
    # clip_norm * min(1 / norm, 1 / clip_norm), plus (norm - norm) so an inf norm gives NaN, as TF1.
    scale = clip_norm * math_ops.minimum(1.0 / use_norm, 1.0 / clip_norm) + (use_norm - use_norm)
    clipped = [
        None
        if t is None
        else array_ops.identity(convert_to_tensor(t) * math_ops.cast(scale, convert_to_tensor(t).dtype))
        for t in t_list
    ]
    return clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)``."""
    t = convert_to_tensor(t)
    clip_norm = convert_to_tensor(clip_norm, dtype=t.dtype)
    n = math_ops.cast(array_ops.size(t), t.dtype)
    inv_norm = math_ops.rsqrt(math_ops.reduce_sum(t * t))
    return array_ops.identity(t * clip_norm * math_ops.minimum(inv_norm * n, 1.0 / clip_norm), name=name)
