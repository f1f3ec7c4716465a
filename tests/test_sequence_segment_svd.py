"""TF1's values, static shapes and errors for ``reverse_sequence``, ``segment_prod``/``_min``/
``_max`` and ``svd``.

The expected values and shapes were printed by TF 2.21 compat.v1 with
``tests/fixtures/sequence_segment_svd_tf.py``; the error types are TF1's.
"""

from __future__ import annotations

import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import InvalidArgumentError

X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _run(t):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(t())


def test_segment_reductions_give_tfs_values_for_empty_segments():
    got = _run(lambda: [f(X, [0, 0, 2]) for f in (tf.segment_prod, tf.segment_min, tf.segment_max)])
    np.testing.assert_array_equal(got[0], [[3, 8], [1, 1], [5, 6]])
    np.testing.assert_array_equal(got[1], [[1, 2], [0, 0], [5, 6]])
    np.testing.assert_array_equal(got[2], [[3, 4], [0, 0], [5, 6]])
    np.testing.assert_array_equal(_run(lambda: tf.segment_max([1, 2, 3], [0, 0, 2])), [2, 0, 3])


def test_segment_reductions_fail_on_unsorted_ids():
    with pytest.raises(InvalidArgumentError, match="not increasing"):
        _run(lambda: tf.segment_max(X[:2], [1, 0]))


def test_reverse_sequence_values_and_shape():
    with tf.Graph().as_default():
        t = tf.reverse_sequence(tf.placeholder(tf.float32, [2, None, 3]), [1, 2], seq_axis=1)
        assert t.shape.as_list() == [2, None, 3]
        assert t.op.type == "ReverseSequence"
    got = _run(lambda: tf.reverse_sequence([[1, 2, 3], [4, 5, 6]], [2, 3], seq_dim=1, batch_dim=0))
    np.testing.assert_array_equal(got, [[2, 1, 3], [6, 5, 4]])


def test_reverse_sequence_bad_input_names_the_culprit():
    with tf.Graph().as_default():
        x = tf.constant(np.zeros((2, 3)), name="x")
        with pytest.raises(TypeError, match="seq_axis"):
            tf.reverse_sequence(x, [1, 2])
        with pytest.raises(ValueError, match="seq_lengths .* has 3 entries but dimension 0"):
            tf.reverse_sequence(x, [1, 2, 3], seq_axis=1)
        with pytest.raises(TypeError, match="seq_lengths .* must be integers"):
            tf.reverse_sequence(x, [1.0, 2.0], seq_axis=1)
    with pytest.raises(InvalidArgumentError, match=r"seq_lengths\[1\] = 4"):
        _run(lambda: tf.reverse_sequence(np.zeros((2, 3)), [1, 4], seq_axis=1))


def test_svd_shapes_as_tf():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [5, 2, 3])
        assert [t.shape.as_list() for t in tf.svd(x)] == [[5, 2], [5, 2, 2], [5, 3, 2]]
        full = tf.linalg.svd(x, full_matrices=True)
        assert [t.shape.as_list() for t in full] == [[5, 2], [5, 2, 2], [5, 3, 3]]
        assert tf.svd(x, compute_uv=False).shape.as_list() == [5, 2]


def test_svd_values_and_v_not_transposed():
    a = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 0.0]])
    s, u, v = _run(lambda: tf.svd(a))
    np.testing.assert_allclose(s, [3.0, np.sqrt(5.0)])  # TF: [3., 2.236068]
    np.testing.assert_allclose(u @ np.diag(s) @ v.T, a, atol=1e-12)


def test_svd_bad_input():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="must be floating-point"):
            tf.svd(tf.constant([[1, 2], [3, 4]], name="ints"))
        with pytest.raises(ValueError, match="rank >= 2"):
            tf.svd(tf.constant([1.0, 2.0], name="vec"))


def test_svd_gradient_through_u_is_refused():
    with tf.Graph().as_default():
        x = tf.constant(np.eye(2) + 0.5)
        _, u, _ = tf.svd(x)
        with pytest.raises(NotImplementedError, match="through u or v"):
            tf.gradients(tf.reduce_sum(u), [x])


def test_dynamic_partition_and_stitch_as_tf():
    # TF: [array([20]), array([10, 30, 40])], and a stitch of constant indices has a static size.
    parts = _run(lambda: tf.dynamic_partition([10, 20, 30, 40], [1, 0, 1, 1], 2))
    assert [p.tolist() for p in parts] == [[20], [10, 30, 40]]
    with tf.Graph().as_default():
        t = tf.dynamic_stitch([[3, 2], [0, 1]], [tf.zeros([2, 3]), tf.zeros([2, 3])])
        assert t.shape.as_list() == [4, 3]
    with pytest.raises(InvalidArgumentError, match=r"partitions\[1\] = 5 is not in \[0, 2\)"):
        _run(lambda: tf.dynamic_partition([1.0, 2.0], [0, 5], 2))
    with tf.Graph().as_default(), pytest.raises(TypeError, match="partitions .* must be int32"):
        tf.dynamic_partition([1.0, 2.0], tf.constant([0, 1], tf.int64, name="p64"), 2)
