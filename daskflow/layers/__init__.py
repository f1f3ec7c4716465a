"""``tf.layers``: TF1's layers, as classes and as functions.

Each layer keeps its variables in a variable scope of its own (``dense``,
``dense_1``...) with TF1's names, shapes and default initializers (kernels
Glorot uniform, biases zeros), so checkpoints line up with TF1's. The
convolution and pooling layers take channels_last (NHWC) data only.

Examples
--------
>>> import daskflow as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None, 28, 28, 1])
...     h = tf.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu)
...     h = tf.layers.max_pooling2d(h, 2, 2)
...     logits = tf.layers.dense(tf.layers.flatten(h), 10)
...     logits.shape.as_list()
[None, 10]
"""

from .base import InputSpec, Layer
from .convolutional import Conv1D, Conv2D, Conv2DTranspose, conv1d, conv2d, conv2d_transpose
from .core import Dense, Dropout, Flatten, dense, dropout, flatten
from .normalization import BatchNormalization, batch_normalization
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    MaxPooling1D,
    MaxPooling2D,
    average_pooling1d,
    average_pooling2d,
    max_pooling1d,
    max_pooling2d,
)

# TF1's aliases.
Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution2DTranspose = Deconvolution2D = Conv2DTranspose
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
BatchNorm = BatchNormalization

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AvgPool1D",
    "AvgPool2D",
    "BatchNorm",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Deconvolution2D",
    "Dense",
    "Dropout",
    "Flatten",
    "InputSpec",
    "Layer",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPooling1D",
    "MaxPooling2D",
    "average_pooling1d",
    "average_pooling2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
]
