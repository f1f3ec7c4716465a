"""TF1's array, segment, scatter and linear-algebra functions against TF1's answers.

``tests/fixtures/make_array_extra.py`` ran ``scenarios_array_extra.py`` under
TF 2.21's ``tensorflow.compat.v1`` and stored ``array_extra.json``: values,
static shapes (placeholders of partly known shapes too) and dtypes, gradients
from ``tf.gradients``, and the type of each graph-building or run-time error.
The same scenarios run here under daskflow; the tests below them check that
errors name their culprit.
"""

import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import InvalidArgumentError
from tests import tf1_answers

sc, TF1 = tf1_answers.load("scenarios_array_extra", "array_extra.json")


@pytest.fixture(scope="module")
def mine():
    return sc.values(tf)


@pytest.mark.parametrize("name", sorted(TF1))
def test_scenario_matches_tf1(mine, name):
    tf1_answers.assert_matches(TF1[name], mine[name], lambda dtype: (2e-5, 2e-5))


def test_qr_reconstructs_and_refuses_what_tf1_refuses():
    with tf.Graph().as_default():  # names as given: no other test's "v" in the graph
        _qr_checks()


def _qr_checks():
    a = np.random.RandomState(1).randn(3, 5, 4)
    q, r = tf.qr(tf.constant(a))
    got_q, got_r = tf.Session().run([q, r])
    np.testing.assert_allclose(got_q @ got_r, a, atol=1e-12)
    np.testing.assert_allclose(np.tril(got_r, -1), 0, atol=1e-12)
    with pytest.raises(ValueError, match="qr: v:0 must have rank >= 2"):
        tf.qr(tf.constant([1.0, 2.0], name="v"))
    with pytest.raises(TypeError, match="qr: i:0 must be floating-point"):
        tf.qr(tf.constant([[1, 2], [3, 4]], name="i"))
    x = tf.constant(a[0])
    with pytest.raises(NotImplementedError, match="full_matrices=True"):
        tf.gradients(tf.qr(x, full_matrices=True)[0], x)


def test_graph_building_errors_name_the_culprit():
    with pytest.raises(ValueError, match="shift s:0.*axis a:0.*same size"):
        tf.roll(tf.ones([2, 2]), tf.constant([1, 2], name="s"), tf.constant([0], name="a"))
    with pytest.raises(ValueError, match="invert_permutation: p:0 must be a vector"):
        tf.invert_permutation(tf.constant([[0, 1]], name="p"))
    with pytest.raises(TypeError, match="segment_ids f:0 must be integers"):
        tf.unsorted_segment_min(tf.ones([2]), tf.constant([0.0, 1.0], name="f"), 2)
    with pytest.raises(ValueError, match="indices ix:0 must be a vector"):
        tf.sparse_segment_sum(tf.ones([2, 2]), tf.constant([[0]], name="ix"), [0])
    with pytest.raises(ValueError, match="updates u:0 of shape \\(1, 3\\) do not fit"):
        tf.tensor_scatter_nd_add(tf.ones([5, 2]), [[1]], tf.ones([1, 3], name="u"))
    with pytest.raises(TypeError, match="cannot scatter int32 updates into the float32 variable w"):
        tf.scatter_mul(tf.Variable(tf.ones([2, 2]), name="w"), [0], tf.constant([[1, 2]]))
    with pytest.raises(ValueError, match="width 4 of img:0 is not divisible by block_size 3"):
        tf.space_to_depth(tf.ones([1, 6, 4, 1], name="img"), 3)
    with pytest.raises(ValueError, match="padded size 4 of im2:0 is not divisible by block size 3"):
        tf.space_to_batch_nd(tf.ones([1, 4, 6, 1], name="im2"), [3, 3], [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="ensure_shape: x:0 of shape \\(5, 2\\) is not compatible"):
        tf.ensure_shape(tf.ones([5, 2], name="x"), [4, 2])
    with pytest.raises(ValueError, match="labels .* and predictions .* must have the same shape"):
        tf.confusion_matrix([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match="padding must be 'SAME' or 'VALID', got 'FULL'"):
        tf.extract_image_patches(tf.ones([1, 2, 2, 1]), [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        tf.searchsorted([1.0], [1.0], side="middle")


def test_run_time_errors_are_invalid_argument_naming_the_op():
    with tf.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="perm.*not a permutation"):
            sess.run(tf.invert_permutation([0, 0, 2], name="perm"))
        with pytest.raises(InvalidArgumentError, match="diag.*does not fit"):
            sess.run(tf.matrix_set_diag(tf.ones([3, 3]), [1.0, 2.0], name="diag"))
        with pytest.raises(InvalidArgumentError, match="seg.*out of range"):
            sess.run(tf.unsorted_segment_prod([1.0, 2.0], [0, 5], 2, name="seg"))
        x = tf.placeholder(tf.float32, [None, None])
        with pytest.raises(InvalidArgumentError, match="check.*not compatible with expected shape"):
            sess.run(tf.ensure_shape(x, [None, 3], name="check"), {x: np.ones([2, 2])})
        with pytest.raises(InvalidArgumentError, match="tsnd.*does not index into shape"):
            sess.run(tf.tensor_scatter_nd_update(tf.ones([2]), [[5]], [1.0], name="tsnd"))


def test_variable_scatters_update_the_variable_in_place_of_the_old_value():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    mul = tf.scatter_mul(v, [1, 1], [[2.0, 2.0], [3.0, 0.5]])
    nd = tf.scatter_nd_add(v, [[0, 1]], [10.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(mul).tolist() == [[1.0, 2.0], [18.0, 4.0]]  # repeats multiply in turn
        assert sess.run(nd).tolist() == [[1.0, 12.0], [18.0, 4.0]]
        assert sess.run(v).tolist() == [[1.0, 12.0], [18.0, 4.0]]
