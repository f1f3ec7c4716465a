"""A reduction over every axis of a tensor of unknown rank is a scalar, as TF infers it.

TF 2.21's compat.v1: for ``x = tf.placeholder(tf.float32)``, ``reduce_mean(x)`` has
shape ``()``, ``reduce_mean(x, keepdims=True)`` and ``reduce_sum(x, axis=1)`` unknown.
"""

import numpy as np
import pytest

import daskflow as tf


@pytest.mark.parametrize(
    "reduce", [tf.reduce_mean, tf.reduce_sum, tf.reduce_max, tf.reduce_min, tf.reduce_prod]
)
def test_a_full_reduction_of_an_unknown_rank_is_a_scalar(reduce):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        assert reduce(x).shape.as_list() == []
        assert reduce(x, keepdims=True).shape.ndims is None
        assert reduce(x, axis=1).shape.ndims is None
        with tf.Session() as sess:
            assert sess.run(reduce(x), {x: np.ones((2, 3))}).shape == ()
