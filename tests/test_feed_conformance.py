"""Feeds as TF1's session takes them: converted to the fed tensor's dtype, keyed by
structures of tensors, refused with TF1's error types.

The expected values and messages were taken from TF 2.21's ``tensorflow.compat.v1``
session (``x = tf.placeholder(tf.int32, [None]); sess.run(x, {x: [1.7, -2.5]})``
gives ``[1, -2]``; a ``[[1]]`` feed raises ``ValueError: Cannot feed value of shape
(1, 1) for Tensor Placeholder:0, which has shape (?,)``).
"""

import collections

import numpy as np
import pytest

import daskflow as tf

pytestmark = pytest.mark.usefixtures("fresh_graph")


def test_floats_fed_to_an_int_placeholder_are_truncated_toward_zero():
    x = tf.placeholder(tf.int32, [None], name="x")
    with tf.Session() as sess:
        got = sess.run(x * 1, {x: [1.7, -2.5]})
    assert got.dtype == np.int32 and got.tolist() == [1, -2]


def test_a_float_beyond_the_int_range_or_nan_is_refused_naming_the_tensor():
    x = tf.placeholder(tf.int32, [None], name="counts")
    with tf.Session() as sess:
        for bad in ([1.0, 2.0**31], [np.nan]):
            with pytest.raises(tf.errors.InvalidArgumentError, match="counts:0"):
                sess.run(x * 1, {x: bad})


def test_numeric_strings_are_parsed_as_numpy_parses_them():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.Session() as sess:
        assert sess.run(x * 2, {x: ["1.5", "2"]}).tolist() == [3.0, 4.0]


def test_a_shape_that_does_not_fit_raises_tf1s_value_error():
    x = tf.placeholder(tf.int32, [None], name="x")
    with tf.Session() as sess:
        with pytest.raises(
            ValueError, match=r"Cannot feed value of shape \(1, 1\) for Tensor x:0, which has shape \(\?,\)"
        ):
            sess.run(x * 1, {x: [[1]]})


def test_a_tensor_as_a_feed_value_is_a_type_error():
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.Session() as sess, pytest.raises(TypeError, match="cannot be a tf.Tensor"):
        sess.run(x * 1, {x: tf.constant(1.0)})


def test_a_state_tuple_is_fed_by_a_structure_of_values():
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    state = cell.zero_state(2, tf.float32)
    c_val, h_val = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    with tf.Session() as sess:
        c, h = sess.run([state.c * 1, state.h * 1], {state: (c_val, h_val)})
        both = sess.run(state.c + state.h, {state: tf.nn.rnn_cell.LSTMStateTuple(c_val, h_val)})
    np.testing.assert_array_equal(c, c_val)
    np.testing.assert_array_equal(h, h_val)
    np.testing.assert_array_equal(both, np.full((2, 3), 3.0))


def test_a_tuple_key_of_placeholders_and_a_namedtuple_fetch():
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    pair = collections.namedtuple("Pair", "total product")
    with tf.Session() as sess:
        got = sess.run(pair(a + b, a * b), {(a, b): [2.0, 5.0]})
    assert type(got).__name__ == "Pair" and (got.total, got.product) == (7.0, 10.0)


def test_a_structured_key_with_another_number_of_values_is_refused():
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    with tf.Session() as sess, pytest.raises(ValueError, match="Key had 2 elements, but value had 1"):
        sess.run(a + b, {(a, b): np.array([1.0, 2.0])})
