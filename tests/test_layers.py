"""``tf.layers`` against TF1's own answers.

The scenarios live in ``tests/fixtures/scenarios_layers.py``; ``make_layers.py``
ran them under TensorFlow (``tf.compat.v1.layers``) and stored ``layers.json``;
here they run under daskflow and are compared: names, shapes, collections,
outputs and gradients for fixed inputs and variable values, batch
normalization's moving statistics after training steps, and errors.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
import daskflow.layers  # noqa: F401 - tf.layers until daskflow/__init__ imports it

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_layers as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "layers.json").read_text())


def _close(mine, theirs, what):
    if theirs is None:
        assert mine is None, what
        return
    np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=2e-4, atol=2e-5, err_msg=what)


def _same_op_or_scope(mine, theirs):
    """TF1 names some outputs after kernels daskflow composes (a fused batch norm, a cond):
    then the layer's scope must agree."""
    if any(k in theirs for k in ("FusedBatchNorm", "/cond/", "SelectV2")):
        scope = theirs.split("/cond/")[0] if "/cond/" in theirs else theirs.rsplit("/", 1)[0]
        return mine.startswith(scope + "/")
    return mine == theirs


@pytest.mark.parametrize("model", sorted(sc.MODELS))
def test_outputs_and_gradients_match_tf1(model):
    mine, theirs = sc.evaluate(tf, model), TF1["models"][model]
    assert _same_op_or_scope(mine["output_name"], theirs["output_name"]), (
        mine["output_name"],
        theirs["output_name"],
    )
    assert mine["output_shape"] == theirs["output_shape"]
    assert mine["variables"] == theirs["variables"]
    assert mine["n_update_ops"] == theirs["n_update_ops"]
    _close(mine["output"], theirs["output"], "output")
    assert len(mine["grads"]) == len(theirs["grads"])
    names = ["inputs"] + [v[0] for v in theirs["variables"]]
    for name, g, t in zip(names, mine["grads"], theirs["grads"]):
        _close(g, t, f"gradient for {name}")
    _close(mine["regularization_losses"], theirs["regularization_losses"], "regularization losses")


@pytest.mark.parametrize("case", ["dense", "conv", "tensor", "frozen"])
def test_batch_norm_moving_statistics_and_update_ops_match_tf1(case):
    mine, theirs = sc.batch_norm_steps(tf)[case], TF1["batch_norm_steps"][case]
    assert mine.keys() == theirs.keys()
    for key, value in theirs.items():
        if key in ("moving", "eval_through_flag", "eval_direct"):
            _close(mine[key], value, key)
        elif key == "update_names" and case == "tensor":
            assert len(mine[key]) == len(value)  # TF1's are tf.cond outputs
        elif key == "output_names":
            assert all(_same_op_or_scope(m, t) for m, t in zip(mine[key], value, strict=True)), mine[key]
        else:
            assert mine[key] == value, key


def test_conv_batch_norm_moves_its_variance_with_bessels_correction():
    # What TF1's fused kernel does (4-D input); the 2-D layer uses the plain variance. One
    # step from moving_variance = 1 with momentum 0.8: 0.8 + 0.2 * var * n / (n - 1).
    x_value = sc._values([3, 2, 3, 2], 200, -1.0, 3.0)
    n = 3 * 2 * 3
    expected = 0.8 + 0.2 * x_value.reshape(-1, 2).var(axis=0) * n / (n - 1)
    np.testing.assert_allclose(TF1["batch_norm_steps"]["conv"]["moving"][0][1], expected, rtol=1e-5)
    np.testing.assert_allclose(sc.batch_norm_steps(tf)["conv"]["moving"][0][1], expected, rtol=1e-5)


def test_names_scopes_reuse_and_collections_match_tf1():
    mine, theirs = sc.names(tf), TF1["names"]
    for (m_name, m_shape), (t_name, t_shape) in zip(mine.pop("tensors"), theirs["tensors"], strict=True):
        assert _same_op_or_scope(m_name, t_name) and m_shape == t_shape, (m_name, m_shape, t_name, t_shape)
    theirs = {k: v for k, v in theirs.items() if k != "tensors"}
    assert mine == theirs


def test_default_initializers_match_tf1():
    mine, theirs = sc.init_stats(tf), TF1["init_stats"]
    assert mine.keys() == theirs.keys()
    for name, value in theirs.items():
        if name.endswith("kernel:0") and not name.startswith(
            "scoped/"
        ):  # Glorot uniform: the same distribution, not the same numbers
            mean, std, lo, hi = mine[name]
            assert abs(mean - value[0]) < 0.05 * value[1]
            assert std == pytest.approx(value[1], rel=0.05)
            assert lo == pytest.approx(value[2], rel=0.02) and hi == pytest.approx(value[3], rel=0.02)
        else:
            assert mine[name] == value, name


def test_dropout_in_training_matches_tf1():
    mine, theirs = sc.dropout_stats(tf), TF1["dropout_stats"]
    assert mine["kept_values"] == theirs["kept_values"] == [round(1 / 0.7, 5)]
    assert mine["dropped"] == pytest.approx(theirs["dropped"], abs=0.02)
    assert mine["eval_identity"] and mine["columns_whole"]
    assert theirs["eval_identity"] and theirs["columns_whole"]


# Fragments TF1's message has (checked too) that daskflow's must have: the wording
# around the shape differs (TF1 prints Dimension objects), the culprit must not.
ERROR_FRAGMENTS = {
    "dense_unknown_last_dim": [
        "The last dimension of the inputs to a Dense layer should be defined. Found None"
    ],
    "dense_unknown_rank": ["The last dimension of the inputs to a Dense layer should be defined"],
    "dense_rank1": ["is incompatible with the layer: expected min_ndim=2, found ndim=1"],
    "dense_int": ["A Dense layer can only be built with a floating-point dtype"],
    "dense_changed_input": ["expected axis -1 of input shape to have value 3"],
    "conv2d_rank3": ["is incompatible with the layer: expected min_ndim=4, found ndim=3"],
    "conv2d_no_channels": ["The channel dimension of the inputs should be defined"],
    "conv2d_too_small": ["conv2d/Conv2D"],
    "max_pooling2d_rank3": ["is incompatible with the layer: expected ndim=4, found ndim=3"],
    "batch_norm_unknown_axis": ["Input has undefined `axis` dimension", "axis=(1,)"],
    "dense_exists": ["Variable fc/kernel already exists, disallowed"],
    "dense_reuse_missing": ["Variable nope/kernel does not exist"],
}

LAYER_NAMED = {"dense_rank1": '"dense"', "dense_changed_input": '"dense"', "conv2d_rank3": '"conv2d"'}


@pytest.mark.parametrize("case", sorted(ERROR_FRAGMENTS))
def test_errors_match_tf1(case):
    mine, theirs = sc.errors(tf)[case], TF1["errors"][case]
    assert mine.split(":")[0] == theirs.split(":")[0], (mine, theirs)
    for fragment in ERROR_FRAGMENTS[case]:
        assert fragment in theirs, theirs
        assert fragment in mine, mine
    if case in LAYER_NAMED:  # TF-Keras counts layer names its own way; daskflow's is the layer's scope's
        assert f"layer {LAYER_NAMED[case]}" in mine, mine


def test_unsupported_layouts_and_options_name_the_layer():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 4, 1])
        with pytest.raises(ValueError, match=r"conv2d \(Conv2D\): data_format='channels_first'"):
            tf.layers.conv2d(x, 2, 3, data_format="channels_first")
        with pytest.raises(ValueError, match=r"max_pooling2d \(MaxPooling2D\): data_format='channels_first'"):
            tf.layers.max_pooling2d(x, 2, 2, data_format="channels_first")
        with pytest.raises(NotImplementedError, match=r"conv2d_1 \(Conv2D\): dilation_rate"):
            tf.layers.conv2d(x, 2, 3, dilation_rate=2)
        with pytest.raises(NotImplementedError, match=r"batch_normalization \(BatchNormalization\): renorm"):
            tf.layers.batch_normalization(x, renorm=True)
        with pytest.raises(TypeError, match="Keyword argument not understood: 'units_'"):
            tf.layers.Dense(2, units_=3)


def test_nn_dropout_with_a_shapeless_keep_prob_keeps_the_static_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        keep = tf.placeholder(tf.float32)
        y = tf.nn.softmax(tf.nn.dropout(x, keep))  # raised "needs a known rank" before
        assert y.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            out = sess.run(y, {x: np.ones([2, 3], np.float32), keep: 1.0})
        np.testing.assert_allclose(out, np.full([2, 3], 1 / 3), rtol=1e-6)


def test_a_layer_trains_with_its_update_ops():
    # The TF1 recipe: run the update ops with the train op; the moving mean follows the data.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        h = tf.layers.batch_normalization(tf.layers.dense(x, 2), momentum=0.5, training=True)
        loss = tf.reduce_mean(tf.square(h - 1.0))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        moving_mean = [v for v in tf.global_variables() if "moving_mean" in v.name][0]
        data = np.full([4, 2], 3.0, np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(
                tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)[0].assign(np.eye(2, dtype=np.float32))
            )
            sess.run(train, {x: data})
            # dense(x) = x @ I + 0 = 3 before the step; the moving mean moves half way from 0.
            np.testing.assert_allclose(sess.run(moving_mean), [1.5, 1.5], rtol=1e-6)
