"""More of ``tf.nn``, composed from other ops (so each has its gradient for free).

Normalisation (``l2_normalize``, ``batch_normalization``,
``fused_batch_norm``, ``lrn``), moment helpers, activations (``selu``,
``softsign``, ``swish``, ``log_sigmoid``, ``crelu``), a weighted logistic
loss, and depthwise/separable convolution built from ``conv2d`` one input
channel at a time. Formulas are TF1's (``nn_impl.py``, ``nn_ops.py``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from . import array_ops, conv_ops, math_ops
from .math_ops import relu, sigmoid, softplus
from .nn_ops import xw_plus_b

__all__ = [
    "avg_pool2d",
    "batch_normalization",
    "crelu",
    "depthwise_conv2d",
    "fused_batch_norm",
    "l2_normalize",
    "local_response_normalization",
    "log_sigmoid",
    "lrn",
    "max_pool2d",
    "normalize_moments",
    "relu_layer",
    "selu",
    "separable_conv2d",
    "silu",
    "softsign",
    "sufficient_statistics",
    "swish",
    "weighted_cross_entropy_with_logits",
    "weighted_moments",
    "zero_fraction",
]


def _float(x, what):
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{what}: {x.name} must be a float tensor, got {x.dtype.name}")
    return x


def _pick(new, old, what_new, what_old):
    """TF1's renamed arguments (``axis``/``dim``, ``keepdims``/``keep_dims``): at most one."""
    if new is not None and old is not None:
        raise ValueError(f"give only one of {what_new} and {what_old}")
    return new if new is not None else old


# -- activations -----------------------------------------------------------------------------------


selu = math_ops.selu


def softsign(features, name=None):
    """``x / (1 + |x|)``."""
    with name_scope(name, "Softsign"):
        x = _float(features, "softsign")
        return x / (math_ops.abs(x) + 1.0)


def swish(features, beta=1.0, *, name=None):
    """``x * sigmoid(beta * x)`` (also ``silu``)."""
    with name_scope(name, "swish"):
        x = _float(features, "swish")
        return x * sigmoid(x * beta)


silu = swish


def log_sigmoid(x, name=None):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|``."""
    with name_scope(name, "LogSigmoid"):
        return math_ops.negative(softplus(math_ops.negative(_float(x, "log_sigmoid"))))


def crelu(features, name=None, axis=-1):
    """``concat([relu(x), relu(-x)], axis)``: doubles the depth."""
    with name_scope(name, "CRelu"):
        x = _float(features, "crelu")
        return array_ops.concat([relu(x), relu(math_ops.negative(x))], axis)


def relu_layer(x, weights, biases, name=None):
    """``relu(matmul(x, weights) + biases)``."""
    with name_scope(name, "relu_layer"):
        return relu(xw_plus_b(x, weights, biases))


# -- losses and statistics -------------------------------------------------------------------------


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """Logistic loss with the positive term weighted by ``pos_weight``.

    ``(1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))``,
    TF1's stable form.
    """
    labels = _pick(labels, targets, "labels", "targets")
    if labels is None or logits is None or pos_weight is None:
        raise ValueError("weighted_cross_entropy_with_logits needs labels, logits and pos_weight")
    with name_scope(name, "logistic_loss"):
        x = _float(logits, "weighted_cross_entropy_with_logits")
        z = convert_to_tensor(labels, dtype=x.dtype)
        if not x.shape.is_compatible_with(z.shape):
            raise ValueError(f"logits and labels must have the same shape ({x.shape} vs {z.shape})")
        log_weight = (convert_to_tensor(pos_weight, dtype=x.dtype) - 1.0) * z + 1.0
        tail = math_ops.log1p(math_ops.exp(math_ops.negative(math_ops.abs(x)))) + relu(math_ops.negative(x))
        return (1.0 - z) * x + log_weight * tail


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value``, as a float32 scalar."""
    with name_scope(name, "zero_fraction"):
        value = convert_to_tensor(value)
        zeros = math_ops.cast(math_ops.equal(value, array_ops.zeros_like(value)), dtypes.float32)
        return math_ops.reduce_mean(zeros)


def _axes(axes, x, what):
    rank = x.shape.ndims
    if rank is None:
        raise ValueError(f"{what}: the rank of {x.name} must be known")
    out = []
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ValueError(f"{what}: axis {a} is out of range for {x.name} of rank {rank}")
        out.append(int(a) % rank)
    return out


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum(x - shift), sum((x - shift)**2), shift)`` over ``axes``.

    ``count`` is static (the product of the reduced dimensions), as TF1 makes it
    whenever the shape is known.
    """
    keepdims = bool(_pick(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name, "sufficient_statistics"):
        x = _float(x, "sufficient_statistics")
        axes = _axes(axes, x, "sufficient_statistics")
        dims = x.shape.as_list()
        if any(dims[a] is None for a in axes):
            count = math_ops.cast(
                math_ops.reduce_prod(array_ops.gather(array_ops.shape(x), axes)), x.dtype, name="count"
            )
        else:
            count = convert_to_tensor(float(np.prod([dims[a] for a in axes])), dtype=x.dtype, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, dtype=x.dtype)
            x = x - shift
        m_ss = math_ops.reduce_sum(x, axes, keepdims=keepdims, name="mean_ss")
        v_ss = math_ops.reduce_sum(math_ops.square(x), axes, keepdims=keepdims, name="var_ss")
        return count, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from :func:`sufficient_statistics`."""
    with name_scope(name, "normalize"):
        mean_ss = convert_to_tensor(mean_ss)
        divisor = math_ops.reciprocal(convert_to_tensor(counts, dtype=mean_ss.dtype), name="divisor")
        shifted_mean = mean_ss * divisor
        mean = shifted_mean if shift is None else shifted_mean + convert_to_tensor(shift, dtype=mean_ss.dtype)
        variance = math_ops.subtract(variance_ss * divisor, math_ops.square(shifted_mean), name="variance")
        return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """Frequency-weighted mean and variance of ``x`` over ``axes``."""
    keepdims = bool(_pick(keepdims, keep_dims, "keepdims", "keep_dims"))
    with name_scope(name, "weighted_moments"):
        x = _float(x, "weighted_moments")
        axes = _axes(axes, x, "weighted_moments")
        w = convert_to_tensor(frequency_weights, dtype=x.dtype)
        weighted_sum = math_ops.reduce_sum(w * x, axes, keepdims=True)
        total_weight = math_ops.reduce_sum(w + array_ops.zeros_like(x), axes, keepdims=True)
        divisor = math_ops.reciprocal(total_weight)
        mean = weighted_sum * divisor
        dist = math_ops.reduce_sum(w * math_ops.squared_difference(x, mean), axes, keepdims=True)
        variance = dist * divisor
        if not keepdims:
            mean, variance = array_ops.squeeze(mean, axes), array_ops.squeeze(variance, axes)
        return mean, variance


# -- normalisation ---------------------------------------------------------------------------------


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Session() as sess:
    ...     sess.run(tf.nn.l2_normalize(tf.constant([3.0, 4.0]), axis=0)).tolist()
    [0.6000000238418579, 0.800000011920929]
    """
    axis = _pick(axis, dim, "axis", "dim")
    with name_scope(name, "l2_normalize"):
        x = _float(x, "l2_normalize")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        return x * math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + epsilon) + offset``; offset and scale may be None."""
    with name_scope(name, "batchnorm"):
        x = _float(x, "batch_normalization")
        inv = math_ops.rsqrt(convert_to_tensor(variance, dtype=x.dtype) + variance_epsilon)
        if scale is not None:
            inv = inv * convert_to_tensor(scale, dtype=x.dtype)
        shift = math_ops.negative(convert_to_tensor(mean, dtype=x.dtype) * inv)
        if offset is not None:
            shift = shift + convert_to_tensor(offset, dtype=x.dtype)
        return x * inv + shift


_FUSED_MIN_EPSILON = 1.001e-5  # cuDNN's floor, which TF1 applies on every device


def fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    name=None,
    exponential_avg_factor=1.0,
):
    """Batch norm of a 4-D NHWC ``x`` over N, H and W; returns ``(y, mean, variance)``.

    Training: normalises with the batch's moments and returns them, the
    variance Bessel-corrected (``n / (n - 1)``) as TF1 does, blended into
    ``mean``/``variance`` when ``exponential_avg_factor < 1``. Inference:
    normalises with the given ``mean`` and ``variance`` and returns them.
    As with TF1's fused kernel, gradients flow from ``y`` only, and not into
    ``mean`` or ``variance``.
    """
    if data_format != "NHWC":
        raise NotImplementedError(f"fused_batch_norm supports NHWC data only, not {data_format}")
    with name_scope(name, "FusedBatchNorm"):
        x = _float(x, "fused_batch_norm")
        if x.shape.ndims not in (None, 4):
            raise ValueError(f"fused_batch_norm: {x.name} must be 4-D (NHWC), got shape {x.shape}")
        epsilon = max(float(epsilon), _FUSED_MIN_EPSILON)
        scale, offset = (convert_to_tensor(t, dtype=x.dtype) for t in (scale, offset))
        if not is_training:
            if mean is None or variance is None:
                raise ValueError("fused_batch_norm: mean and variance are required when is_training=False")
            # TF1's fused gradient has no terms for the given mean and variance.
            mean, variance = (
                array_ops.stop_gradient(convert_to_tensor(t, dtype=x.dtype)) for t in (mean, variance)
            )
            return batch_normalization(x, mean, variance, offset, scale, epsilon), mean, variance
        batch_mean = math_ops.reduce_mean(x, [0, 1, 2])
        batch_var = math_ops.reduce_mean(math_ops.squared_difference(x, batch_mean), [0, 1, 2])
        y = batch_normalization(x, batch_mean, batch_var, offset, scale, epsilon)
        n = math_ops.cast(math_ops.reduce_prod(array_ops.shape(x)[:3]), x.dtype)
        unbiased = batch_var * n / math_ops.maximum(n - 1.0, 1.0)
        if exponential_avg_factor != 1.0:
            f = float(exponential_avg_factor)
            batch_mean = convert_to_tensor(mean, dtype=x.dtype) * (1 - f) + batch_mean * f
            unbiased = convert_to_tensor(variance, dtype=x.dtype) * (1 - f) + unbiased * f
        # TF1's fused gradient flows from y only: the returned moments carry none.
        return y, array_ops.stop_gradient(batch_mean), array_ops.stop_gradient(unbiased)


def lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """Local response normalisation over the last axis of a 4-D tensor.

    ``x / (bias + alpha * sum(x[..., d - r : d + r + 1] ** 2)) ** beta``.
    """
    with name_scope(name, "LRN"):
        x = _float(input, "lrn")
        if x.shape.ndims != 4:
            raise ValueError(f"lrn: {x.name} must be 4-D, got shape {x.shape}")
        depth = x.shape.as_list()[3]
        if depth is None:
            raise ValueError(f"lrn: the depth (last dimension) of {x.name} must be known")
        r = int(depth_radius)
        padded = array_ops.pad(math_ops.square(x), [[0, 0], [0, 0], [0, 0], [r, r]])
        window = math_ops.add_n(
            [array_ops.slice(padded, [0, 0, 0, i], [-1, -1, -1, depth]) for i in range(2 * r + 1)]
        )
        return x / math_ops.pow(window * alpha + bias, beta)


local_response_normalization = lrn


# -- convolution -----------------------------------------------------------------------------------


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None, dilations=None):  # noqa: A002
    """Each input channel convolved with its own ``channel_multiplier`` filters.

    ``filter`` is ``[h, w, in_channels, multiplier]``; output channel
    ``c * multiplier + m`` is channel ``c`` convolved with ``filter[:, :, c, m]``.
    """
    rate = _pick(rate, dilations, "rate", "dilations")
    if rate is not None and any(int(r) != 1 for r in rate):
        raise NotImplementedError("depthwise_conv2d: dilation (rate) is not supported")
    with name_scope(name, "depthwise"):
        x = _float(input, "depthwise_conv2d")
        w = convert_to_tensor(filter, dtype=x.dtype)
        channels = w.shape.as_list()[2] if w.shape.ndims == 4 else None
        if channels is None:
            raise ValueError(f"depthwise_conv2d: {w.name} must be a 4-D filter with known in_channels")
        x_channels = x.shape.as_list()[3] if x.shape.ndims == 4 else None
        if x_channels not in (None, channels):
            raise ValueError(
                f"depthwise_conv2d: {x.name} has {x_channels} channels but {w.name} expects {channels}"
            )
        groups = [
            conv_ops.conv2d(
                array_ops.slice(x, [0, 0, 0, c], [-1, -1, -1, 1]),
                array_ops.slice(w, [0, 0, c, 0], [-1, -1, 1, -1]),
                strides=strides,
                padding=padding,
                data_format=data_format,
            )
            for c in range(channels)
        ]
        return groups[0] if channels == 1 else array_ops.concat(groups, 3)


def separable_conv2d(
    input,  # noqa: A002
    depthwise_filter,
    pointwise_filter,
    strides,
    padding,
    rate=None,
    name=None,
    data_format=None,
    dilations=None,
):
    """:func:`depthwise_conv2d`, then a 1x1 ``conv2d`` with ``pointwise_filter``."""
    with name_scope(name, "separable_conv2d"):
        depthwise = depthwise_conv2d(
            input, depthwise_filter, strides, padding, rate=rate, data_format=data_format, dilations=dilations
        )
        return conv_ops.conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=data_format)


avg_pool2d = conv_ops.avg_pool  # TF1's compat.v1 name for the same function


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """:func:`tf.nn.max_pool` under its TF2 name."""
    return conv_ops.max_pool(input, ksize, strides, padding, data_format=data_format, name=name)
