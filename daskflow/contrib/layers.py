"""``tf.contrib.layers``: initializers and regularizers TF1 scripts used from it."""

from __future__ import annotations

import numbers

from .._namespaces import module_getattr
from ..framework.graph import name_scope
from ..layers.core import flatten as layers_flatten
from ..ops import init_ops, math_ops, nn_ops

__getattr__ = module_getattr("tf.contrib.layers")


def xavier_initializer(uniform=True, seed=None, dtype=None):
    """Glorot (Xavier) initialization: uniform or truncated normal over the mean fan."""
    kwargs = {} if dtype is None else {"dtype": dtype}
    return init_ops.VarianceScaling(
        1.0, "fan_avg", "uniform" if uniform else "truncated_normal", seed, **kwargs
    )


xavier_initializer_conv2d = xavier_initializer


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=None):
    """contrib's variance scaling: ``factor / n``, with contrib's 1.3 truncation factor for normals."""
    modes = {"FAN_IN": "fan_in", "FAN_OUT": "fan_out", "FAN_AVG": "fan_avg"}
    if mode not in modes:
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")
    kwargs = {} if dtype is None else {"dtype": dtype}
    if uniform:
        return init_ops.VarianceScaling(factor, modes[mode], "uniform", seed, **kwargs)
    return init_ops.VarianceScaling(1.3 * factor, modes[mode], "untruncated_normal", seed, **kwargs)


def _scale(scale, what):
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if not isinstance(scale, numbers.Real) or scale < 0.0:
        raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")
    return float(scale)


def l2_regularizer(scale, scope=None):
    """A function ``weights -> scale * l2_loss(weights)`` (None when scale is 0)."""
    scale = _scale(scale, "l2")

    def l2(weights):
        if scale == 0.0:
            return None
        with name_scope(scope or "l2_regularizer") as name:
            return math_ops.multiply(scale, nn_ops.l2_loss(weights), name=name.rstrip("/") or None)

    return l2


def l1_regularizer(scale, scope=None):
    """A function ``weights -> scale * sum(|weights|)`` (None when scale is 0)."""
    scale = _scale(scale, "l1")

    def l1(weights):
        if scale == 0.0:
            return None
        with name_scope(scope or "l1_regularizer") as name:
            return math_ops.multiply(
                scale, math_ops.reduce_sum(math_ops.abs(weights)), name=name.rstrip("/") or None
            )

    return l1


def flatten(inputs, outputs_collections=None, scope=None):
    """``[batch, ...]`` to ``[batch, k]``, keeping the batch dimension (``tf.layers.flatten``)."""
    return layers_flatten(inputs, name=scope or "Flatten")
