"""Static shapes and TF1's ``Dimension`` against TF1's own answers.

``fixtures/static_shapes.json`` holds what TensorFlow's compat.v1 built for
each scenario of ``fixtures/scenarios_static_shapes.py`` (made by
``fixtures/make_static_shapes.py``); daskflow builds the same scenarios here.
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf

HERE = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(HERE))
import scenarios_fills as fills  # noqa: E402
import scenarios_static_shapes as sc  # noqa: E402

TF1 = json.loads((HERE / "static_shapes.json").read_text())
OURS = sc.static_shapes(tf)
DIMENSION = sc.dimensions(tf)


@pytest.mark.parametrize("name", sorted(TF1["shapes"]))
def test_static_shape_is_tf1s(name):
    assert OURS[name] == TF1["shapes"][name], name


@pytest.mark.parametrize("name", sorted(TF1["dimension"]))
def test_dimension_answers_as_tf1s(name):
    assert DIMENSION[name] == TF1["dimension"][name], name


@pytest.mark.parametrize("name", sorted(TF1["texts"]))
def test_shape_prints_as_tf1s(name):
    assert sc.shape_texts(tf)[name] == TF1["texts"][name], name


def test_known_dimension_works_as_an_int():
    d = tf.placeholder(tf.float32, [None, 3]).shape[1]
    assert isinstance(d, int) and hash(d) == hash(3) and {d: "x"}[3] == "x"
    assert np.zeros((d, 2)).shape == (3, 2) and list(range(d)) == [0, 1, 2]
    # An unknown one is TF1's Dimension(None): .value None, false, equal to nothing.
    unknown = tf.placeholder(tf.float32, [None, 3]).shape[0]
    assert repr(unknown) == "Dimension(None)" and unknown.value is None and not unknown
    assert (unknown == None) is None and (unknown == 3) is None  # noqa: E711 - TF1's answer to both
    assert [repr(d) for d in tf.TensorShape([None, 3])] == ["Dimension(None)", "Dimension(3)"]


def test_unknown_rank_ops_check_when_they_run():
    x = tf.placeholder(tf.float32)
    y = tf.expand_dims(x, -1)
    s = tf.nn.softmax(x)
    t = tf.matrix_transpose(x)
    with tf.Session() as sess:
        a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
        got_y, got_s, got_t = sess.run([y, s, t], {x: a})
        assert got_y.shape == (2, 3, 1) and got_t.shape == (3, 2)
        np.testing.assert_allclose(got_s, np.exp(a) / np.exp(a).sum(-1, keepdims=True), rtol=1e-6)
        with pytest.raises(Exception, match="axis"):
            sess.run(tf.squeeze(x, [-1]), {x: a})


def test_dropout_with_a_training_tensor_runs_one_branch():
    p = tf.placeholder(tf.bool)
    x = tf.ones([4, 5])
    d = tf.layers.dropout(x, 0.5, training=p)
    assert d.op.type == "If"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(d, {p: False}), np.ones((4, 5)))
        assert set(np.unique(sess.run(d, {p: True}))) <= {0.0, 2.0}


def test_strided_slice_values_are_numpys():
    a = np.arange(30.0).reshape(2, 5, 3)
    x = tf.constant(a)
    with tf.Session() as sess:
        got = sess.run(tf.strided_slice(x, [0, 1, 0], [2, 4, 3], [1, 2, 1]))
        np.testing.assert_array_equal(got, a[0:2, 1:4:2, 0:3])
        got = sess.run(tf.strided_slice(x, [0, 2], [0, 3], shrink_axis_mask=2, begin_mask=1, end_mask=1))
        np.testing.assert_array_equal(got, a[:, 2])


# -- filled tensors and unknown shapes, as TF1 builds and answers them (fixtures/make_fills.py) --

FILLS = json.loads((HERE / "fills.json").read_text())


def test_zeros_and_ones_build_tf1s_ops_under_tf1s_names():
    assert fills.ops(tf) == FILLS["ops"]


def test_an_unknown_shape_indexes_and_slices_as_tf1s():
    assert fills.unknown_shapes(tf) == FILLS["unknown_shapes"]


def test_a_filled_const_and_zeros_like_give_tf1s_values():
    p = tf.placeholder(tf.float32, [None, 3])
    big, small, like, ones = tf.zeros([40, 30]), tf.ones([2], tf.bool), tf.zeros_like(p), tf.ones_like(p)
    with tf.Session() as sess:
        got = sess.run([big, small, like, ones], {p: np.full((2, 3), 7, np.float32)})
    np.testing.assert_array_equal(got[0], np.zeros((40, 30), np.float32))
    np.testing.assert_array_equal(got[1], [True, True])
    np.testing.assert_array_equal(got[2], np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(got[3], np.ones((2, 3), np.float32))


def test_zeros_refuses_an_unknown_dimension_as_tf1():
    assert fills.refusals(tf) == FILLS["refusals"]
