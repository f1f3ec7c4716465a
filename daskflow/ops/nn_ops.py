"""Neural-network ops: activations, softmax, cross-entropies, dropout, losses.

Softmax, log-softmax and the softmax cross-entropy are primitives (for
numerical stability and speed); the rest is composed from other ops.
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..framework.apply import apply
from ..framework.arguments import argument_lookup
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.primitive import Primitive
from ..framework.tensor_shape import compatible
from . import array_ops, math_ops, random_ops
from .infer import same_float
from .math_ops import relu, sigmoid, softplus, tanh  # noqa: F401 - re-exported as tf.nn.*


def _softmax_kernel(xp, x, *, axis):
    e = xp.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax_kernel(xp, x, *, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))


def _softmax_grad(op, g):
    y, axis = op.outputs[0], op.attrs["axis"]
    return [y * (g - math_ops.reduce_sum(g * y, axis, keepdims=True))]


def _log_softmax_grad(op, g):
    y, axis = op.outputs[0], op.attrs["axis"]
    return [g - math_ops.exp(y) * math_ops.reduce_sum(g, axis, keepdims=True)]


Softmax = Primitive("Softmax", same_float, _softmax_kernel, _softmax_grad)
LogSoftmax = Primitive("LogSoftmax", same_float, _log_softmax_kernel, _log_softmax_grad)


def _last_axis(x, axis):
    x = convert_to_tensor(x)
    rank = x.shape.ndims
    axis = -1 if axis is None else int(axis)
    if rank is None:  # TF1 checks the axis when it runs; numpy's kernels count from the end too
        return x, axis
    if not -rank <= axis < rank:
        raise ValueError(f"softmax axis {axis} is out of range for {x.name} of rank {rank}")
    return x, axis % rank


def softmax(logits, axis=None, name=None, dim=None):
    """``exp(logits) / sum(exp(logits))`` along ``axis`` (default last)."""
    x, axis = _last_axis(logits, dim if axis is None else axis)
    return apply(Softmax, x, axis=axis, name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """``logits - log(sum(exp(logits)))`` along ``axis`` (default last)."""
    x, axis = _last_axis(logits, dim if axis is None else axis)
    return apply(LogSoftmax, x, axis=axis, name=name)


# -- cross-entropies -------------------------------------------------------------------


def _xent_infer(inputs):
    labels, logits = inputs
    if not logits.dtype.is_floating or labels.dtype is not logits.dtype:
        raise TypeError(
            f"labels ({labels.dtype.name}) and logits ({logits.dtype.name}) must share a float dtype"
        )
    if not compatible(labels._dims, logits._dims):
        raise ValueError(f"labels shape {labels.shape} and logits shape {logits.shape} differ")
    dims = logits._dims if logits._dims is not None else labels._dims
    return [((None if dims is None else dims[:-1]), logits.dtype), (dims, logits.dtype)]


def _xent_kernel(xp, labels, logits, unread=()):
    if labels.shape != logits.shape:  # TF1's words
        raise InvalidArgumentError(
            None,
            None,
            f"logits and labels must be broadcastable: logits_size=[{','.join(map(str, logits.shape))}] "
            f"labels_size=[{','.join(map(str, labels.shape))}]",
        )
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = xp.exp(shifted)  # one exp serves both outputs
    total = e.sum(axis=-1, keepdims=True)
    if 0 in unread:  # a training step reads only the loss's shape (its mean's gradient)
        loss = xp.zeros(logits.shape[:-1], dtype=logits.dtype)  # (broadcast_to costs 2 us more)
    else:
        shifted -= xp.log(total)  # log_softmax, in the array made for it
        loss = -xp.einsum("...i,...i->...", labels, shifted)  # one call: no product array, no sum
    e /= total
    e -= labels
    return loss, e


def _xent_grad(op, g_loss, g_backprop):
    """Outputs: loss = -sum(labels * log_softmax(logits)), backprop = softmax - labels."""
    labels, logits = op.inputs
    d_labels, d_logits = [], []
    if g_loss is not None:
        g = array_ops.expand_dims(g_loss, -1)
        d_labels.append(-g * log_softmax(logits))
        d_logits.append(g * op.outputs[1])  # backprop is exactly d loss / d logits
    if g_backprop is not None:  # only for second derivatives
        p = softmax(logits)
        d_labels.append(-g_backprop)
        d_logits.append(p * (g_backprop - math_ops.reduce_sum(g_backprop * p, -1, keepdims=True)))
    return [math_ops.add_n(d_labels), math_ops.add_n(d_logits)]


# TF's fused op: computing the gradient's `softmax - labels` together with
# the loss costs one log-softmax instead of two.
SoftmaxCrossEntropy = Primitive(
    "SoftmaxCrossEntropyWithLogits", _xent_infer, _xent_kernel, _xent_grad, lazy_outputs=True
)


def _both_given(fn, labels, logits):
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {fn}")


def _class_axis_last(logits, labels, axis):
    """``logits`` and ``labels`` with the class ``axis`` moved last, as TF1 does before
    its kernel, so the loss keeps the other dimensions in their order."""
    ndims = logits.shape.ndims
    if ndims is None:
        if axis != -1:
            raise ValueError(f"softmax cross-entropy over axis {axis} needs the rank of {logits.name}")
        return logits, labels
    axis = axis + ndims if axis < 0 else axis
    if not 0 <= axis < ndims:
        raise ValueError(f"axis {axis} is out of range for {logits.name} of rank {ndims}")
    if axis == ndims - 1:
        return logits, labels
    perm = [d for d in range(ndims) if d != axis] + [axis]
    return array_ops.transpose(logits, perm), array_ops.transpose(labels, perm)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Cross-entropy between ``labels`` (distributions) and ``softmax(logits)`` over the
    class ``axis`` (``dim`` is its older name; the last axis by default).

    Gradients flow into both labels and logits.
    """
    axis = argument_lookup("axis", axis, "dim", dim)
    _both_given("softmax_cross_entropy_with_logits_v2", labels, logits)
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype)
    logits, labels = _class_axis_last(logits, labels, -1 if axis is None else axis)
    if None not in (labels._dims, logits._dims) and len(labels._dims) != len(logits._dims):
        return _flattened_xent(labels, logits, name)
    return apply(SoftmaxCrossEntropy, labels, logits, name=name)[0]


def _flattened_xent(labels, logits, name):
    """TF1 flattens labels and logits to matrices of their class axis (so labels of
    another rank pass where their sizes fit when it runs) and gives the loss the
    logits' shape less its class axis."""
    cost = apply(SoftmaxCrossEntropy, _flat_outer(labels), _flat_outer(logits), name=name)[0]
    return array_ops.reshape(cost, array_ops.shape(logits)[:-1])


def _flat_outer(t):
    last = t._dims[-1] if t._dims else None
    return array_ops.reshape(t, [-1, last if last is not None else array_ops.shape(t)[-1]])


def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF1's version: like ``_v2`` but no gradient flows into ``labels``.

    As in TF1, ``axis`` is ``dim``'s alias and giving both (``dim`` defaults to
    -1) is a ``ValueError``: pass ``dim=None`` with ``axis``.

    Examples
    --------
    >>> import daskflow as tf
    >>> y = tf.placeholder(tf.float32, [None, 10])
    >>> logits = tf.placeholder(tf.float32, [None, 10])
    >>> loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    """
    dim = argument_lookup("axis", axis, "dim", dim)
    _both_given("softmax_cross_entropy_with_logits", labels, logits)
    logits = convert_to_tensor(logits)
    labels = array_ops.stop_gradient(convert_to_tensor(labels, dtype=logits.dtype))
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim, name=name)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Cross-entropy with integer class ``labels`` (one per row)."""
    _both_given("sparse_softmax_cross_entropy_with_logits", labels, logits)
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    depth = logits._dims[-1] if logits._dims else None
    if depth is None:
        raise ValueError(f"sparse cross-entropy needs the class dimension of {logits.name} to be known")
    one_hot = array_ops.one_hot(labels, depth, dtype=logits.dtype)
    return softmax_cross_entropy_with_logits_v2(labels=one_hot, logits=logits, name=name)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss ``softplus(x) - x*z``, computed stably (softplus is)."""
    _both_given("sigmoid_cross_entropy_with_logits", labels, logits)
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels, dtype=x.dtype)
    # softplus, not relu + abs, so the gradient at x = 0 is sigmoid(0) - z.
    return math_ops.subtract(softplus(x), x * z, name=name)


# -- layers' building blocks ----------------------------------------------------------------


def bias_add(value, bias, data_format=None, name=None):
    """Add a 1-D ``bias`` along the last (channel) axis (NHWC)."""
    if data_format not in (None, "NHWC", "NC"):
        raise NotImplementedError(f"bias_add supports NHWC data only, not {data_format}")
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype=value.dtype)
    if bias.shape.ndims not in (None, 1):
        raise ValueError(f"bias {bias.name} must be 1-D, got shape {bias.shape}")
    return math_ops.add(value, bias, name=name)


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases``."""
    return bias_add(math_ops.matmul(x, weights), biases, name=name)


relu6, leaky_relu, elu = math_ops.relu6, math_ops.leaky_relu, math_ops.elu


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    t = convert_to_tensor(t)
    return math_ops.multiply(math_ops.reduce_sum(t * t), 0.5, name=name)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zero each element with probability ``1 - keep_prob``; scale the rest up.

    Give either ``keep_prob`` (TF1) or ``rate`` (TF2); either may be a tensor.
    """
    if (keep_prob is None) == (rate is None):
        raise ValueError("dropout needs exactly one of keep_prob and rate")
    with name_scope(name, "dropout"):
        x = convert_to_tensor(x)
        keep = convert_to_tensor(
            keep_prob if rate is None else 1 - convert_to_tensor(rate, dtype=x.dtype), dtype=x.dtype
        )
        shape = array_ops.shape_of(x) if noise_shape is None else noise_shape
        noise = random_ops.random_uniform(shape, dtype=x.dtype, seed=seed) + keep
        mask = math_ops.floor(noise)  # 1 with probability keep, else 0
        out = math_ops.multiply(x / keep, mask, name="mul")
    # keep_prob is a scalar (as in TF1): a shapeless keep_prob placeholder must not
    # hide x's static shape from later ops (softmax needs the rank).
    out.set_shape(x.shape)
    return out


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance over ``axes`` (``shift`` is unused, as in TF1)."""
    keepdims = bool(argument_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "moments"):
        mean = math_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        centred = math_ops.square(x - array_ops.stop_gradient(mean))
        var = math_ops.reduce_mean(centred, axes, keepdims=keepdims, name="variance")
        if not keepdims:
            mean = array_ops.squeeze(mean, axes)
    return mean, var
