"""``Dense``, ``Dropout`` and ``Flatten`` (TF1's ``tf.layers.core``)."""

from __future__ import annotations

import math
import numbers

from ..framework.graph import name_scope
from ..framework.tensor_shape import TensorShape, dimension_value
from ..ops import array_ops, init_ops, math_ops, nn_ops
from .base import InputSpec, Layer, smart_select

_ACTIVATIONS = {
    "linear": None,
    "relu": math_ops.relu,
    "tanh": math_ops.tanh,
    "sigmoid": math_ops.sigmoid,
    "softplus": math_ops.softplus,
    "softmax": nn_ops.softmax,
    "elu": nn_ops.elu,
    "relu6": nn_ops.relu6,
}


def get_activation(activation):
    """A callable activation (or None) from a callable, None or a Keras name (``"relu"``)."""
    if activation is None or callable(activation):
        return activation
    try:
        return _ACTIVATIONS[activation]
    except KeyError:
        raise ValueError(f"Unknown activation function: {activation!r}") from None


class Dense(Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)``.

    The kernel is ``[input_dim, units]``; inputs of rank above 2 are
    multiplied along their last axis (TF1's tensordot).

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     y = tf.layers.Dense(4, activation=tf.nn.relu)(tf.placeholder(tf.float32, [None, 3]))
    ...     [v.name for v in tf.trainable_variables()], y.shape.as_list()
    (['dense/kernel:0', 'dense/bias:0'], [None, 4])
    """

    def __init__(
        self,
        units,
        activation=None,
        use_bias=True,
        kernel_initializer=None,
        bias_initializer=init_ops.Zeros(),
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        trainable=True,
        name=None,
        **kwargs,
    ):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        dtype = self.dtype
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(
                f"A Dense layer can only be built with a floating-point dtype. Received: dtype={dtype!r}"
            )
        input_shape = TensorShape(input_shape)
        last_dim = dimension_value(input_shape[-1])
        if last_dim is None:
            raise ValueError(
                "The last dimension of the inputs to a Dense layer should be defined. "
                f"Found None. Full input shape received: {input_shape}"
            )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel",
            [last_dim, self.units],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            dtype=dtype,
            trainable=True,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                [self.units],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                dtype=dtype,
                trainable=True,
            )
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank is None or rank == 2:
            outputs = math_ops.matmul(inputs, self.kernel)
        else:
            outputs = _matmul_last_axis(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, name="BiasAdd")
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape(dims[:-1] + [self.units])


def _matmul_last_axis(x, kernel):
    """``tensordot(x, kernel, [[-1], [0]])`` as one 2-D matmul between two reshapes."""
    dims, units = x.shape.dims, kernel.shape.dims[-1]
    with name_scope("Tensordot") as scope:
        flat = array_ops.reshape(x, [-1, kernel.shape.dims[0]])
        product = math_ops.matmul(flat, kernel)
        if None in dims[1:-1]:
            out_shape = array_ops.concat([array_ops.shape(x)[:-1], [units]], 0)
        else:
            out_shape = [-1, *dims[1:-1], units]
        outputs = array_ops.reshape(product, out_shape, name=scope)
    outputs.set_shape(dims[:-1] + (units,))
    return outputs


def dense(
    inputs,
    units,
    activation=None,
    use_bias=True,
    kernel_initializer=None,
    bias_initializer=init_ops.Zeros(),
    kernel_regularizer=None,
    bias_regularizer=None,
    activity_regularizer=None,
    kernel_constraint=None,
    bias_constraint=None,
    trainable=True,
    name=None,
    reuse=None,
):
    """Functional form of :class:`Dense`: ``activation(inputs @ kernel + bias)``.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 3])
    ...     h = tf.layers.dense(x, 8, activation=tf.nn.relu)
    ...     y = tf.layers.dense(h, 2)
    ...     [v.name for v in tf.global_variables()]
    ['dense/kernel:0', 'dense/bias:0', 'dense_1/kernel:0', 'dense_1/bias:0']
    """
    layer = Dense(
        units,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _scope=name,
        _reuse=reuse,
    )
    return layer(inputs)


class Dropout(Layer):
    """Zero each input with probability ``rate`` while training; scale the rest by ``1 / (1 - rate)``.

    ``training`` (a call argument) is a Python bool or a bool tensor. With a
    tensor, a ``tf.cond`` picks the dropped or the untouched output when it runs.
    """

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dynamic = array_ops.shape(inputs)
        return [dynamic[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=False):
        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return array_ops.identity(inputs)

        def dropped():
            return nn_ops.dropout(
                inputs, noise_shape=self._noise_shape(inputs), seed=self.seed, rate=self.rate
            )

        return smart_select(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Functional form of :class:`Dropout`; note ``rate`` (the fraction dropped), not ``keep_prob``.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 10])
    ...     is_training = tf.placeholder_with_default(False, [])
    ...     y = tf.layers.dropout(x, rate=0.25, training=is_training)
    ...     y.shape.as_list()
    [None, 10]
    """
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer(inputs, training=training)


class Flatten(Layer):
    """Flatten all but the first (batch) axis: ``[batch, d1, d2...] -> [batch, d1*d2*...]``."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = (data_format or "channels_last").lower()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                'The `data_format` argument must be one of "channels_first", "channels_last". '
                f"Received: {data_format}"
            )
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        dims = inputs.shape.dims
        if self.data_format == "channels_first" and dims is not None and len(dims) > 1:
            inputs = array_ops.transpose(inputs, [0, *range(2, len(dims)), 1])
            dims = inputs.shape.dims
        if dims is not None and len(dims) == 1:
            return array_ops.expand_dims(inputs, 1)
        if dims is not None and None not in dims[1:]:
            return array_ops.reshape(inputs, [-1, math.prod(dims[1:])])
        if dims is not None and dims[0] is not None:
            return array_ops.reshape(inputs, [dims[0], -1])
        return array_ops.reshape(inputs, [array_ops.shape(inputs)[0], -1])

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rest = None if None in dims[1:] else math.prod(dims[1:])
        return TensorShape([dims[0], rest])


def flatten(inputs, name=None, data_format="channels_last"):
    """Functional form of :class:`Flatten`.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     tf.layers.flatten(tf.placeholder(tf.float32, [None, 4, 4, 3])).shape.as_list()
    [None, 48]
    """
    return Flatten(name=name, data_format=data_format)(inputs)
