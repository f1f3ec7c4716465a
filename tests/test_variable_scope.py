"""variable_scope, get_variable, initializers and collections against TF1's own answers.

The scenarios live in ``tests/fixtures/scenarios_scopes.py``; ``make_scopes.py``
ran them under TensorFlow and stored ``scopes.json``; here they run under daskflow.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_scopes as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "scopes.json").read_text())


def test_variable_and_op_names_collections_and_scopes_match_tf1():
    assert sc.names(tf) == TF1["names"]


def test_errors_match_tf1():
    got = sc.errors(tf)
    for mine, theirs in zip(got, TF1["errors"], strict=True):
        # TF1 appends where the variable was first defined ("Originally defined at:").
        assert theirs.startswith(mine.removesuffix(".")) or mine == theirs, (mine, theirs)


def test_initial_values_match_tf1():
    got = sc.values(tf)
    assert len(got) == len(TF1["values"])
    for mine, theirs in zip(got, TF1["values"]):
        np.testing.assert_allclose(mine, theirs)


UNBOUNDED = {"random_normal", "variance_scaling_out_untruncated"}


@pytest.mark.parametrize("name", sorted(sc.RANDOM))
def test_random_initializers_draw_tf1s_distribution(name):
    # The same distributions, not the same numbers: mean, spread and bounds agree.
    mean, std, lo, hi, *ortho = sc.random_stats(tf)[name]
    t_mean, t_std, t_lo, t_hi, *t_ortho = TF1["random_stats"][name]
    assert abs(mean - t_mean) < 0.05 * t_std + 1e-3
    assert std == pytest.approx(t_std, rel=0.05)
    if name in UNBOUNDED:
        return  # a normal's extremes vary too much from draw to draw to compare
    assert lo == pytest.approx(t_lo, rel=0.15, abs=0.02 * t_std)
    assert hi == pytest.approx(t_hi, rel=0.15, abs=0.02 * t_std)
    if ortho:
        assert ortho[0] < 1e-4 and t_ortho[0] < 1e-4


def test_a_scope_initializer_of_the_wrong_dtype_is_refused():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Initializer type .* and explicit dtype"):
            tf.get_variable("v", dtype=tf.int32, initializer=tf.constant([1.0]))


def test_custom_getters_chain_outer_to_inner():
    seen = []

    def outer(getter, name, *args, **kwargs):
        seen.append(("outer", name))
        return getter(name, *args, **kwargs)

    def inner(getter, name, *args, **kwargs):
        seen.append(("inner", name))
        return getter(name, *args, **kwargs)

    with tf.Graph().as_default():
        with tf.variable_scope("a", custom_getter=outer):
            with tf.variable_scope("b", custom_getter=inner):
                v = tf.get_variable("v", [1])
    assert v.name == "a/b/v:0"
    assert seen == [("inner", "a/b/v"), ("outer", "a/b/v")]


def test_report_uninitialized_variables_names_them_and_leaves_values():
    with tf.Graph().as_default():
        a = tf.get_variable("a", [2], initializer=tf.ones_initializer())
        tf.get_variable("b", [2])
        report = tf.report_uninitialized_variables()
        known = tf.is_variable_initialized(a)
        with tf.Session() as sess:
            assert list(sess.run(report)) == [b"a", b"b"]
            sess.run(a.initializer)
            assert list(sess.run(report)) == [b"b"]
            assert sess.run(known)
            np.testing.assert_array_equal(sess.run(a), [1.0, 1.0])


def test_report_uninitialized_variables_on_a_cluster():
    with tf.local_cluster(ps=1, workers=0, processes=False, dashboard_address=None) as cluster:
        with tf.Graph().as_default():
            a = tf.get_variable("a", [2], initializer=tf.ones_initializer())
            tf.get_variable("b", [2])
            report = tf.report_uninitialized_variables()
            with tf.Session(cluster) as sess:
                sess.run(a.initializer)
                assert list(sess.run(report)) == [b"b"]


def test_contrib_regularizers_and_flatten():
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2, 2], initializer=tf.constant_initializer([[1.0, -2.0], [3.0, 0.5]]))
        l2 = tf.contrib.layers.l2_regularizer(0.1)(w)
        l1 = tf.contrib.layers.l1_regularizer(0.5)(w)
        flat = tf.contrib.layers.flatten(tf.ones([2, 3, 4]))
        assert flat.shape.as_list() == [2, 12]
        assert tf.contrib.layers.l2_regularizer(0.0)(w) is None
        with pytest.raises(ValueError, match="integer"):
            tf.contrib.layers.l2_regularizer(1)
        with tf.Session() as sess:
            sess.run(w.initializer)
            got_l2, got_l1 = sess.run([l2, l1])
    assert got_l2 == pytest.approx(0.1 * (1 + 4 + 9 + 0.25) / 2)
    assert got_l1 == pytest.approx(0.5 * 6.5)
