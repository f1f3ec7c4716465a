"""Pooling layers: max and average, 1-D and 2-D (channels_last only).

A 1-D pooling is a 2-D one over a width of 1 (the input gets an axis after
its steps, as TF1 does it).
"""

from __future__ import annotations

from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, conv_ops
from .base import InputSpec, Layer
from .convolutional import check_channels_last, conv_output_length, normalize_padding, normalize_tuple


class _Pooling(Layer):
    rank = 2
    pool_function = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if strides is None:
            raise ValueError("Argument `strides` must not be None.")
        self.pool_size = normalize_tuple(pool_size, self.rank, "pool_size")
        self.strides = normalize_tuple(strides, self.rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = check_channels_last(self, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).dims
        spatial = [
            conv_output_length(n, k, self.padding, s)
            for n, k, s in zip(dims[1:-1], self.pool_size, self.strides)
        ]
        return TensorShape([dims[0], *spatial, dims[-1]])


class _Pooling2D(_Pooling):
    rank = 2

    def call(self, inputs):
        pool = type(self).pool_function
        return pool(inputs, [1, *self.pool_size, 1], [1, *self.strides, 1], self.padding.upper())


class _Pooling1D(_Pooling):
    rank = 1

    def call(self, inputs):
        pool = type(self).pool_function
        x = array_ops.expand_dims(inputs, 2)
        y = pool(x, [1, self.pool_size[0], 1, 1], [1, self.strides[0], 1, 1], self.padding.upper())
        return array_ops.squeeze(y, [2])


def _max_pool(x, ksize, strides, padding):
    return conv_ops.max_pool(x, ksize, strides, padding, name="MaxPool")


def _avg_pool(x, ksize, strides, padding):
    return conv_ops.avg_pool(x, ksize, strides, padding, name="AvgPool")


class MaxPooling2D(_Pooling2D):
    """The maximum over ``pool_size`` windows of NHWC inputs, every ``strides`` pixels.

    Examples
    --------
    >>> import daskflow as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 28, 28, 8])
    ...     tf.layers.MaxPooling2D(2, 2)(x).shape.as_list()
    [None, 14, 14, 8]
    """

    pool_function = staticmethod(_max_pool)


class AveragePooling2D(_Pooling2D):
    """The mean over ``pool_size`` windows; with "same" padding, of the real pixels only."""

    pool_function = staticmethod(_avg_pool)


class MaxPooling1D(_Pooling1D):
    """The maximum over ``pool_size`` steps of ``[batch, steps, channels]`` inputs."""

    pool_function = staticmethod(_max_pool)


class AveragePooling1D(_Pooling1D):
    """The mean over ``pool_size`` steps of ``[batch, steps, channels]`` inputs."""

    pool_function = staticmethod(_avg_pool)


def _functional(cls, fn_name):
    def layer_fn(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        return cls(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format, name=name)(
            inputs
        )

    layer_fn.__name__ = fn_name
    layer_fn.__doc__ = f"Functional form of :class:`{cls.__name__}`."
    return layer_fn


max_pooling2d = _functional(MaxPooling2D, "max_pooling2d")
average_pooling2d = _functional(AveragePooling2D, "average_pooling2d")
max_pooling1d = _functional(MaxPooling1D, "max_pooling1d")
average_pooling1d = _functional(AveragePooling1D, "average_pooling1d")
