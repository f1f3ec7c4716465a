"""Convolution layers: ``Conv1D``, ``Conv2D``, ``Conv2DTranspose`` (channels_last only).

Kernels are laid out as TF1's: ``[k, in, filters]`` (1-D), ``[kh, kw, in,
filters]`` (2-D) and ``[kh, kw, filters, in]`` (transposed), so checkpoints
line up. A 1-D convolution is a 2-D one over a height of 1, as in TF1.
"""

from __future__ import annotations

import types

from ..framework.graph import name_scope
from ..framework.tensor_shape import TensorShape, dimension_value
from ..ops import array_ops, conv_ops, init_ops, nn_ops
from .base import InputSpec, Layer
from .core import get_activation


def normalize_tuple(value, n, what):
    """An int or an ``n``-sequence of ints as an ``n``-tuple (Keras' rule)."""
    if isinstance(value, int):
        return (value,) * n
    values = tuple(int(v) for v in value)
    if len(values) != n:
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: {value}")
    return values


def normalize_padding(value, allowed=("valid", "same")):
    padding = str(value).lower()
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be one of {allowed}. Received: {value}")
    return padding


def check_channels_last(layer, data_format):
    """Refuse channels_first (daskflow's convolutions are NHWC only), naming the layer."""
    fmt = str(data_format or "channels_last").lower()
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(
            'The `data_format` argument must be one of "channels_first", "channels_last". '
            f"Received: {data_format}"
        )
    if fmt == "channels_first":
        raise ValueError(
            f"{layer.name} ({type(layer).__name__}): data_format='channels_first' is not supported; "
            "daskflow's convolutions and pooling are channels_last (NHWC) only"
        )
    return fmt


def conv_output_length(length, k, padding, stride):
    if length is None:
        return None
    out = length if padding == "same" else length - k + 1
    return (out + stride - 1) // stride


_UNIT = object()  # stands for "stride 1 in every dimension" until a class or function is made


def _unit_defaults(fn, unit):
    """A copy of ``fn`` whose ``_UNIT`` defaults are ``unit``: TF1 writes ``1`` for the 1-D
    layers and ``(1, 1)`` for the 2-D ones, and a signature shows which."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__defaults__ = tuple(unit if d is _UNIT else d for d in fn.__defaults__)
    copy.__kwdefaults__, copy.__doc__, copy.__qualname__ = fn.__kwdefaults__, fn.__doc__, fn.__qualname__
    return copy


class _Conv(Layer):
    """The shared part of ``Conv1D`` and ``Conv2D`` (``rank`` spatial axes)."""

    rank = 2

    def __init__(
        self,
        filters,
        kernel_size,
        strides=_UNIT,
        padding="valid",
        data_format="channels_last",
        dilation_rate=_UNIT,
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
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = normalize_tuple(strides, self.rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = check_channels_last(self, data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, self.rank, "dilation_rate")
        if any(d != 1 for d in self.dilation_rate):
            raise NotImplementedError(
                f"{self.name} ({type(self).__name__}): dilation_rate={self.dilation_rate} is not supported; "
                "daskflow has no dilated convolution"
            )
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=self.rank + 2)

    def _kernel_shape(self, channels):
        return (*self.kernel_size, channels, self.filters)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        channels = dimension_value(input_shape[-1])
        if channels is None:
            raise ValueError(
                "The channel dimension of the inputs should be defined. The input_shape received is "
                f"{input_shape}, where axis -1 (0-based) is the channel dimension, which found to be `None`."
            )
        self.kernel = self.add_weight(
            "kernel",
            self._kernel_shape(channels),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
            trainable=True,
            dtype=self.dtype,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (self.filters,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
                trainable=True,
                dtype=self.dtype,
            )
        self.input_spec = InputSpec(min_ndim=self.rank + 2, axes={-1: channels})
        self.built = True

    def _finish(self, outputs):
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, name="BiasAdd")
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs


class Conv2D(_Conv):
    """2-D convolution over NHWC inputs: ``activation(conv2d(inputs, kernel) + bias)``.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    ...     y = tf.layers.Conv2D(8, 3, padding="same")(x)
    ...     y.shape.as_list(), tf.global_variables()[0].shape.as_list()
    ([None, 28, 28, 8], [3, 3, 1, 8])
    """

    rank = 2
    __init__ = _unit_defaults(_Conv.__init__, (1, 1))

    def call(self, inputs):
        strides = [1, *self.strides, 1]
        outputs = conv_ops.conv2d(inputs, self.kernel, strides, self.padding.upper(), name="Conv2D")
        return self._finish(outputs)


class Conv1D(_Conv):
    """1-D convolution over ``[batch, width, channels]`` inputs (a 2-D one of height 1)."""

    rank = 1
    __init__ = _unit_defaults(_Conv.__init__, 1)

    def call(self, inputs):
        with name_scope("Conv1D") as scope:
            x = array_ops.expand_dims(inputs, 1)
            w = array_ops.expand_dims(self.kernel, 0)
            y = conv_ops.conv2d(x, w, [1, 1, self.strides[0], 1], self.padding.upper())
            outputs = array_ops.squeeze(y, [1], name=scope)
        return self._finish(outputs)


def deconv_output_length(length, k, padding, stride):
    """The output length of a transposed convolution (an int, a tensor, or None if unknown)."""
    if length is None:
        return None
    return length * stride + (max(k - stride, 0) if padding == "valid" else 0)


class Conv2DTranspose(Conv2D):
    """The transpose of ``Conv2D`` ("deconvolution"): upsamples by ``strides``.

    The kernel is ``[kh, kw, filters, in_channels]``; the output's height is
    ``h * stride`` with "same" padding and ``h * stride + max(kh - stride, 0)``
    with "valid", as TF1's.
    """

    def __init__(
        self,
        filters,
        kernel_size,
        strides=(1, 1),
        padding="valid",
        data_format="channels_last",
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
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
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
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=4)

    def _kernel_shape(self, channels):
        return (*self.kernel_size, self.filters, channels)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 4:
            raise ValueError(f"Inputs should have rank 4. Received input_shape={input_shape}")
        if input_shape[-1].value is None:
            raise ValueError(
                "The channel dimension of the inputs to `Conv2DTranspose` should be defined. The "
                f"input_shape received is {input_shape}, where axis -1 (0-based) is the channel "
                "dimension, which found to be `None`."
            )
        super().build(input_shape)
        self.input_spec = InputSpec(ndim=4, axes={-1: input_shape[-1]})

    def call(self, inputs):
        dims = inputs.shape.dims
        dynamic = array_ops.shape(inputs)
        known = [d if d is not None else dynamic[i] for i, d in enumerate(dims)]
        out_hw = [
            deconv_output_length(n, k, self.padding, s)
            for n, k, s in zip(known[1:3], self.kernel_size, self.strides)
        ]
        outputs = conv_ops.conv2d_transpose(
            inputs,
            self.kernel,
            [known[0], *out_hw, self.filters],
            strides=[1, *self.strides, 1],
            padding=self.padding.upper(),
        )
        outputs.set_shape(self.compute_output_shape(inputs.shape))
        return self._finish(outputs)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).dims
        hw = [
            deconv_output_length(n, k, self.padding, s)
            for n, k, s in zip(dims[1:3], self.kernel_size, self.strides)
        ]
        return TensorShape([dims[0], *hw, self.filters])


def _functional(cls, doc, unit):
    def layer_fn(
        inputs,
        filters,
        kernel_size,
        strides=_UNIT,
        padding="valid",
        data_format="channels_last",
        dilation_rate=_UNIT,
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
        layer = cls(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
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
            _reuse=reuse,
            _scope=name,
        )
        return layer(inputs)

    layer_fn.__doc__ = doc
    return _unit_defaults(layer_fn, unit)


conv1d = _functional(Conv1D, "Functional form of :class:`Conv1D`.", 1)
conv1d.__name__ = "conv1d"
conv2d = _functional(
    Conv2D,
    """Functional form of :class:`Conv2D`.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    ...     y = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
    ...     y.shape.as_list(), [v.name for v in tf.global_variables()]
    ([None, 28, 28, 32], ['conv2d/kernel:0', 'conv2d/bias:0'])
    """,
    (1, 1),
)
conv2d.__name__ = "conv2d"


def conv2d_transpose(
    inputs,
    filters,
    kernel_size,
    strides=(1, 1),
    padding="valid",
    data_format="channels_last",
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
    """Functional form of :class:`Conv2DTranspose`.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 7, 7, 16])
    ...     tf.layers.conv2d_transpose(x, 8, 3, strides=2, padding="same").shape.as_list()
    [None, 14, 14, 8]
    """
    layer = Conv2DTranspose(
        filters,
        kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
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
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs)
