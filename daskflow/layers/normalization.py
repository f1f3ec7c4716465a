"""``BatchNormalization`` (TF1's ``tf.layers.batch_normalization``).

While training, inputs are normalised with the batch's mean and variance and
two update ops move ``moving_mean`` and ``moving_variance`` towards them
(``moving -= (moving - batch) * (1 - momentum)``); they go in
``GraphKeys.UPDATE_OPS`` and run only when the user runs them, as in TF1::

    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss)

At inference the moving statistics normalise. Where TF1 would use its fused
kernel (4-D inputs, channels on axis 1 or 3), the moving variance follows the
batch variance with Bessel's correction, ``n / (n - 1)``, as that kernel's
does; elsewhere the plain batch variance, as TF1's composed ops do.
"""

from __future__ import annotations

from ..framework.arguments import refuse
from ..framework.constant import convert_to_tensor
from ..framework.graph import name_scope
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, init_ops, math_ops, nn_ops
from ..variables import assign_sub
from .base import InputSpec, Layer, constant_value, smart_select


class BatchNormalization(Layer):
    """Batch normalisation over every axis but ``axis`` (the channels).

    Variables (in the layer's scope): ``gamma`` and ``beta`` (trainable,
    unless ``scale`` / ``center`` is False), ``moving_mean`` and
    ``moving_variance`` (global, not trainable).

    ``training`` (a call argument) is a Python bool or a bool tensor. With a
    tensor, a ``tf.cond`` picks the batch or the moving statistics when it
    runs; the update ops then leave the moving statistics as they are when it
    is False.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 4])
    ...     y = tf.layers.batch_normalization(x, training=True)
    ...     [v.name for v in tf.global_variables()], len(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
    (['batch_normalization/gamma:0', 'batch_normalization/beta:0', 'batch_normalization/moving_mean:0', \
'batch_normalization/moving_variance:0'], 2)
    """

    def __init__(
        self,
        axis=-1,
        momentum=0.99,
        epsilon=1e-3,
        center=True,
        scale=True,
        beta_initializer=init_ops.Zeros(),
        gamma_initializer=init_ops.Ones(),
        moving_mean_initializer=init_ops.Zeros(),
        moving_variance_initializer=init_ops.Ones(),
        beta_regularizer=None,
        gamma_regularizer=None,
        beta_constraint=None,
        gamma_constraint=None,
        renorm=False,
        renorm_clipping=None,
        renorm_momentum=0.99,
        fused=None,
        trainable=True,
        virtual_batch_size=None,
        adjustment=None,
        name=None,
        **kwargs,
    ):
        super().__init__(trainable=trainable, name=name, **kwargs)
        unsupported = {"renorm": renorm, "virtual_batch_size": virtual_batch_size, "adjustment": adjustment}
        for arg, value in unsupported.items():
            if value:
                raise NotImplementedError(f"{self.name} (BatchNormalization): {arg} is not supported")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = fused

    def _normalized_axes(self, ndims):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -ndims <= a < ndims:
                raise ValueError(
                    f"Invalid axis. Expected 0 <= axis < inputs.rank (with inputs.rank={ndims}). "
                    f"Received: layer.axis={self.axis}"
                )
        axes = [a % ndims for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"Duplicate axis: {tuple(self.axis)}")
        return axes

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if not input_shape.ndims:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        ndims = input_shape.ndims
        self.axis = self._normalized_axes(ndims)
        fusable = ndims == 4 and self.axis in ([1], [3])
        if self.fused and not fusable:
            raise ValueError(
                "Passing `fused=True` is only supported when axis is 1 or 3 for input rank = 4. "
                f"Got axis {self.axis}"
            )
        self.fused = fusable if self.fused is None else bool(self.fused)
        axis_to_dim = {a: input_shape.dims[a] for a in self.axis}
        if any(d is None for d in axis_to_dim.values()):
            raise ValueError(
                f"Input has undefined `axis` dimension. Received input with shape {tuple(input_shape.dims)} "
                f"and axis={tuple(self.axis)}"
            )
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)
        if len(self.axis) == 1:
            param_shape = [axis_to_dim[self.axis[0]]]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
        self._param_shape = param_shape
        self.gamma = self._param("gamma", self.scale, self.gamma_initializer, self.gamma_regularizer)
        self.beta = self._param("beta", self.center, self.beta_initializer, self.beta_regularizer)
        self.moving_mean = self.add_weight(
            "moving_mean", param_shape, initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", param_shape, initializer=self.moving_variance_initializer, trainable=False
        )
        self.built = True

    def _param(self, name, wanted, initializer, regularizer):
        if not wanted:
            return None
        constraint = self.gamma_constraint if name == "gamma" else self.beta_constraint
        return self.add_weight(
            name, self._param_shape, initializer=initializer, regularizer=regularizer, constraint=constraint
        )

    def call(self, inputs, training=False, mask=None):
        if mask is not None:
            raise refuse(self.name, "mask", mask, "normalise the masked entries' batch yourself")
        ndims = inputs.shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        reshape = len(self.axis) == 1 and reduction_axes != list(range(ndims - 1))
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = inputs.shape.dims[self.axis[0]]

        def broadcast(v):
            return array_ops.reshape(v, broadcast_shape) if v is not None and reshape else v

        if constant_value(training) is False:
            mean, variance = self._moving_statistics()
        else:
            mean, variance = self._batch_statistics(inputs, reduction_axes, training)
        outputs = _batch_normalization(
            inputs,
            broadcast(mean),
            broadcast(variance),
            broadcast(self.beta),
            broadcast(self.gamma),
            self.epsilon,
        )
        outputs.set_shape(inputs.shape)
        return outputs

    def _moving_statistics(self):
        moving = self.moving_mean.value(), self.moving_variance.value()
        if self.fused:
            # TF1's fused kernel passes no gradient to the moving statistics; its composed ops do.
            return tuple(array_ops.stop_gradient(m) for m in moving)
        return moving

    def _batch_statistics(self, inputs, reduction_axes, training):
        """The statistics that normalise (batch or moving, per ``training``); adds the update ops."""
        batch_mean, batch_variance = nn_ops.moments(inputs, reduction_axes, keepdims=len(self.axis) > 1)
        moving_mean, moving_variance = self._moving_statistics()
        mean = smart_select(training, lambda: batch_mean, lambda: moving_mean)
        variance = smart_select(training, lambda: batch_variance, lambda: moving_variance)
        new_variance = variance
        if self.fused:
            new_variance = variance * _bessel_factor(inputs, variance)
        if constant_value(training) is None:
            # Momentum 1 keeps the moving statistics when training is False (TF1's fused rule).
            momentum = math_ops.where(convert_to_tensor(training), self.momentum, 1.0)
        else:
            momentum = self.momentum
        self.add_update(_assign_moving_average(self.moving_mean, mean, momentum))
        self.add_update(_assign_moving_average(self.moving_variance, new_variance, momentum))
        return mean, variance

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


def _bessel_factor(inputs, variance):
    """``n / (n - 1)`` for ``n`` values per channel: the unbiased variance's correction."""
    n = math_ops.cast(array_ops.size(inputs), variance.dtype) / float(variance.shape.num_elements())
    return n / (n - 1.0)


def _assign_moving_average(variable, value, momentum):
    with name_scope("AssignMovingAvg") as scope:
        if isinstance(momentum, (int, float)):
            decay = convert_to_tensor(1.0 - momentum, dtype=variable.dtype, name="decay")
        else:
            decay = 1.0 - momentum
        delta = (variable.value() - value) * decay
        return assign_sub(variable, delta, name=scope)


def _batch_normalization(x, mean, variance, offset, scale, epsilon):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` as TF1's ``nn.batch_normalization``."""
    with name_scope("batchnorm"):
        inv = math_ops.rsqrt(variance + epsilon)
        if scale is not None:
            inv = inv * scale
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * inv + shift


def batch_normalization(
    inputs,
    axis=-1,
    momentum=0.99,
    epsilon=1e-3,
    center=True,
    scale=True,
    beta_initializer=init_ops.Zeros(),
    gamma_initializer=init_ops.Ones(),
    moving_mean_initializer=init_ops.Zeros(),
    moving_variance_initializer=init_ops.Ones(),
    beta_regularizer=None,
    gamma_regularizer=None,
    beta_constraint=None,
    gamma_constraint=None,
    training=False,
    trainable=True,
    name=None,
    reuse=None,
    renorm=False,
    renorm_clipping=None,
    renorm_momentum=0.99,
    fused=None,
    virtual_batch_size=None,
    adjustment=None,
):
    """Functional form of :class:`BatchNormalization`.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 8, 8, 16])
    ...     is_training = tf.placeholder(tf.bool, [])
    ...     y = tf.layers.batch_normalization(x, training=is_training)
    ...     y.shape.as_list()
    [None, 8, 8, 16]
    """
    layer = BatchNormalization(
        axis=axis,
        momentum=momentum,
        epsilon=epsilon,
        center=center,
        scale=scale,
        beta_initializer=beta_initializer,
        gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer,
        gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint,
        gamma_constraint=gamma_constraint,
        renorm=renorm,
        renorm_clipping=renorm_clipping,
        renorm_momentum=renorm_momentum,
        fused=fused,
        trainable=trainable,
        virtual_batch_size=virtual_batch_size,
        adjustment=adjustment,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs, training=training)
