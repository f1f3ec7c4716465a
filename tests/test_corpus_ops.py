"""Ops issue #38's corpus needed, against TF1's answers.

``tests/fixtures/make_corpus_ops.py`` ran ``scenarios_corpus_ops.py`` under
TF1 and stored ``corpus_ops.json``: values, static shapes and dtypes, and the
type of each graph-building error. Here the same scenarios run under
daskflow; run-time errors, ``Variable.initialized_value`` and the folding
behind static shapes are checked directly.
"""

import pathlib

import numpy as np
import pytest

import daskflow as tf
from daskflow.errors import InvalidArgumentError
from daskflow.ops.infer import constant_value
from tests import tf1_answers

sc, TF1 = tf1_answers.load("scenarios_corpus_ops", "corpus_ops.json")


@pytest.fixture(scope="module")
def mine():
    return sc.values(tf)


@pytest.mark.parametrize("name", sorted(TF1))
def test_scenario_matches_tf1(mine, name):
    tf1_answers.assert_matches(TF1[name], mine[name])


def test_graph_building_errors_name_the_culprit():
    with tf.Graph().as_default():  # names as given: no other test's "a" in the graph
        _graph_building_errors()


def _graph_building_errors():
    with pytest.raises(ValueError, match="Dimension must be 3 but is 2.*a:0"):
        tf.cross(tf.constant([1.0, 0.0], name="a"), tf.constant([0.0, 1.0]))
    with pytest.raises(ValueError, match="v:0 must be a vector"):
        tf.unique(tf.ones([2, 2], name="v"))
    with pytest.raises(TypeError, match="m:0 must be floating-point"):
        tf.cholesky(tf.constant([[1, 0], [0, 1]], name="m"))
    with pytest.raises(ValueError, match="begin.*has 1 entries.*rank 2"):
        tf.slice(tf.ones([2, 2]), [0], [1])
    with pytest.raises(TypeError, match="out_idx"):
        tf.unique([1, 2], out_idx=tf.float32)


def test_run_time_errors_are_invalid_argument_naming_the_op():
    with tf.Session() as sess:
        with pytest.raises(InvalidArgumentError, match="solve.*not invertible"):
            sess.run(tf.matrix_solve(tf.constant([[1.0, 1.0], [1.0, 1.0]]), tf.ones([2, 1]), name="solve"))
        begin = tf.placeholder(tf.int32, [2])
        cut = tf.slice(tf.ones([5, 4]), begin, [2, 2], name="cut")
        assert sess.run(cut, {begin: [3, 2]}).shape == (2, 2)
        with pytest.raises(InvalidArgumentError, match="cut.*Expected size\\[0\\] in \\[0, 1\\], but got 2"):
            sess.run(cut, {begin: [4, 0]})


def test_initialized_value_reads_the_initial_value_until_the_variable_has_one():
    # TF1: cond(is_variable_initialized(v), v.read_value, lambda: v.initial_value).
    v = tf.Variable(tf.ones([2]) * 3, name="v")
    w = tf.Variable(v.initialized_value() * 2, name="w")
    assert v.initialized_value().shape.as_list() == [2]
    with tf.Session() as sess:
        sess.run(w.initializer)  # v has no value yet
        np.testing.assert_array_equal(sess.run(w), [6.0, 6.0])
        sess.run(v.initializer)
        sess.run(v.assign([1.0, 2.0]))
        np.testing.assert_array_equal(sess.run(v.initialized_value()), [1.0, 2.0])


def test_linalg_namespace_has_tf1_names_and_says_what_is_missing():
    assert tf.linalg.cholesky is tf.cholesky and tf.linalg.solve is tf.matrix_solve
    assert tf.linalg.diag is tf.matrix_diag and tf.linalg.tensor_diag is tf.diag  # TF's batched diag
    with pytest.raises(AttributeError, match="tf.linalg.expm is not part of daskflow"):
        tf.linalg.expm  # noqa: B018


def test_linalg_adjoint_is_its_own_op_named_as_tf1():
    # TF1: adjoint(matrix, name=None) opens the scope "adjoint" (or name) around matrix_transpose.
    assert tf.linalg.adjoint is not tf.matrix_transpose
    x = tf.placeholder(tf.float32, [4, 2, 3])
    out = tf.linalg.adjoint(x)
    assert out.name.startswith("adjoint/matrix_transpose") and out.shape.as_list() == [4, 3, 2]
    assert tf.linalg.adjoint(x, name="h").name.startswith("h/")
    got = tf.Session().run(tf.linalg.adjoint([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert got.tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
    with pytest.raises(NotImplementedError, match="tf.linalg.adjoint: matrix='c:0'"):
        tf.linalg.adjoint(tf.placeholder(tf.complex64, [2, 2], name="c"))


def test_constant_value_folds_shape_arithmetic_but_not_feedable_or_random_values():
    z = tf.placeholder(tf.float32, [5, 4])
    assert constant_value(tf.shape(z)[0] * 2).tolist() == 10
    assert constant_value(tf.stack([3, tf.size(z)])).tolist() == [3, 20]
    assert constant_value(tf.placeholder_with_default(3, [])) is None
    assert constant_value(tf.random_uniform([2])) is None
    assert constant_value(tf.shape(tf.placeholder(tf.float32, [None, 4]))) is None


def test_tan_floor_div_and_string_zeros_like():
    x = tf.constant([0.5, -1.0])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.tan(x)), np.tan([0.5, -1.0]), rtol=1e-6)
        # d tan / dx = 1 / cos^2 (TF1's rule), hand-derived
        np.testing.assert_allclose(
            sess.run(tf.gradients(tf.tan(x), x)[0]), 1 / np.cos([0.5, -1.0]) ** 2, rtol=1e-6
        )
        assert sess.run(tf.floor_div(tf.constant([7, -7]), 2)).tolist() == [3, -4]
        assert sess.run(tf.zeros_like(tf.constant(["a", "b"]))).tolist() == [b"", b""]
    with tf.Graph().as_default(), pytest.raises(TypeError, match="s:0 is a string tensor"):
        tf.ones_like(tf.constant(["a"], name="s"))


def test_tf_test_case_runs_over_a_daskflow_session():
    import unittest

    class Probe(tf.test.TestCase):
        def testSquare(self):
            with self.test_session():
                self.assertAllEqual(tf.square([2, 3]).eval(), [4, 9])

        def testCachedSessionIsReused(self):
            with self.cached_session() as a, self.cached_session() as b:
                assert a is b and tf.get_default_session() is a
            self.assertAllClose(tf.constant([1.0, 2.0]) * 2, [2.0, 4.0 + 2e-6])
            self.assertAllClose({"k": [1.0]}, {"k": np.array([1.0])})

        def testCloseFails(self):
            with self.session():
                self.assertAllClose(tf.constant([1.0]), [1.1])

        def testTempDir(self):
            assert pathlib.Path(self.get_temp_dir()).is_dir()

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Probe).run(result)
    assert [t.id().rsplit(".", 1)[1] for t, _ in result.failures] == ["testCloseFails"]
    assert not result.errors
    assert [t.id().rsplit(".", 1)[1] for t, _ in result.skipped] == ["test_session"]  # TF1: "Not a test."
    assert result.testsRun == 5
    assert tf.test.is_built_with_cuda() is False
    assert tf.test.gpu_device_name() in ("", "/device:GPU:0")


def test_tf_test_case_assertions_take_tf1s_arguments_and_behave_as_tf1s():
    import unittest

    from daskflow.errors import InvalidArgumentError

    class Probe(tf.test.TestCase):
        def testItemsEqual(self):
            self.assertItemsEqual(first=[0, 1, 1], second=[1, 0, 1])

        def testItemsDiffer(self):
            self.assertItemsEqual([0, 0, 1], [0, 1])

        def testShapeEqual(self):
            self.assertShapeEqual(input_a=np.zeros([2, 3]), input_b=tf.placeholder(tf.float32, [2, 3]))
            self.assertShapeEqual(np.float32(1.0), tf.constant(2.0))

        def testShapeDiffers(self):
            self.assertShapeEqual(np.zeros([3, 2]), tf.placeholder(tf.float32, [2, 3]))

        def testShapeOfAList(self):
            self.assertShapeEqual([1.0], np.zeros([1]))

        def testRegexAndPredicate(self):
            with self.assertRaisesWithPredicateMatch(ValueError, "bad v.l"):
                raise ValueError("a bad value")
            with self.assertRaisesWithPredicateMatch(KeyError, lambda e: e.args == ("k",)):
                raise KeyError("k")
            # An OpError's message is searched with its op's name appended, as TF1's.
            match = self.assertRaisesWithPredicateMatch(InvalidArgumentError, "got 2.*\\nCaused by: cut$")
            with self.session() as sess, match:
                sess.run(tf.slice(tf.ones([5]), tf.constant([4]), [2], name="cut"))

        def testWrongType(self):
            with self.assertRaisesWithPredicateMatch(TypeError, "bad"):
                raise ValueError("bad")

        def testNotRaised(self):
            with self.assertRaisesWithPredicateMatch(ValueError, "bad"):
                pass

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Probe).run(result)
    failed = {t.id().rsplit(".", 1)[1]: text for t, text in result.failures}
    assert sorted(failed) == ["testItemsDiffer", "testNotRaised", "testShapeDiffers", "testWrongType"]
    assert "Exception of type <class 'ValueError'>: bad" in failed["testWrongType"]
    assert "ValueError not raised" in failed["testNotRaised"]
    errors = {t.id().rsplit(".", 1)[1]: text for t, text in result.errors}
    assert list(errors) == ["testShapeOfAList"]
    assert "TypeError: input_a must be a Numpy ndarray" in errors["testShapeOfAList"]
    assert tf.test.gpu_device_name() in ("", "/device:GPU:0")
