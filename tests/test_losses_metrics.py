"""tf.losses and tf.metrics against TF1's own answers.

The scenarios live in ``tests/fixtures/scenarios_losses_metrics.py``;
``make_losses_metrics.py`` ran them under TensorFlow and stored
``losses_metrics.json``; here they run under daskflow.
"""

import json
import pathlib
import sys

import numpy as np
import pytest

import daskflow as tf
import daskflow.losses  # noqa: F401 - makes tf.losses until the package exports it
import daskflow.metrics  # noqa: F401

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import scenarios_losses_metrics as sc  # noqa: E402

TF1 = json.loads((FIXTURES / "losses_metrics.json").read_text())


pytestmark = pytest.mark.usefixtures("fresh_graph")


def close(mine, theirs):
    np.testing.assert_allclose(np.asarray(mine, float), np.asarray(theirs, float), rtol=2e-5, atol=1e-6)


@pytest.fixture(scope="module")
def losses():
    return sc.losses(tf)


@pytest.fixture(scope="module")
def metrics():
    return sc.metrics(tf)


@pytest.mark.parametrize("case", sorted(TF1["losses"]))
def test_loss_name_value_and_collection_match_tf1(losses, case):
    mine, theirs = losses[case], TF1["losses"][case]
    assert (mine["name"], mine["dtype"], mine["losses"]) == (
        theirs["name"],
        theirs["dtype"],
        theirs["losses"],
    )
    close(mine["value"], theirs["value"])


def test_losses_of_placeholders_with_unknown_batch_size_match_tf1():
    got = sc.losses_fed(tf)
    assert {k: v["name"] for k, v in got.items()} == {k: v["name"] for k, v in TF1["losses_fed"].items()}
    for key, theirs in TF1["losses_fed"].items():
        close(got[key]["value"], theirs["value"])


def test_total_and_regularization_losses_match_tf1():
    got, theirs = sc.total_loss(tf), TF1["total_loss"]
    assert {k: v for k, v in got.items() if k != "values"} == {
        k: v for k, v in theirs.items() if k != "values"
    }
    for key, value in theirs["values"].items():
        close(got["values"][key], value)


def test_without_losses_regularization_is_zero_and_total_refuses():
    assert sc.total_loss_empty(tf) == TF1["total_loss_empty"]


@pytest.mark.parametrize("case", sorted(TF1["metrics"]))
def test_metric_over_three_batches_matches_tf1(metrics, case):
    mine, theirs = metrics[case], TF1["metrics"][case]
    for key in ("value_name", "update_name", "local", "metric", "global"):
        assert mine[key] == theirs[key], key
    for key in ("updates", "values", "counters"):
        assert len(mine[key]) == len(theirs[key])
        for a, b in zip(mine[key], theirs[key]):
            close(a, b)
    close(mine["after_reset"], theirs["after_reset"])


def test_metric_scopes_and_collections_match_tf1():
    assert sc.metric_collections(tf) == TF1["metric_collections"]


def _tf1_prefix(message):
    # TF1 ends some messages with its own tensor reprs; daskflow names its tensors instead.
    for cut in (" values.shape=", " Received"):
        message = message.split(cut)[0]
    return message


@pytest.mark.parametrize("case", sorted(TF1["errors"]))
def test_bad_input_gets_tf1s_error_naming_the_culprit(case):
    call, words = sc.error_cases(tf)[case]
    kind, message = TF1["errors"][case]
    with tf.Graph().as_default():
        with pytest.raises((TypeError, ValueError)) as info:
            call()
    assert type(info.value).__name__ == kind
    text = str(info.value)
    for word in words:
        assert word in text, (word, text)
    if kind == "ValueError":
        assert text.startswith(_tf1_prefix(message)), (text, message)


def test_an_unknown_reduction_is_refused_before_building_anything():
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match="Invalid Reduction Key sum"):
            tf.losses.compute_weighted_loss([1.0], reduction="sum")
        assert tf.losses.get_losses() == []
        assert g.get_operations() == []


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax_loss_gradient_is_weighted_softmax_minus_labels():
    logits = tf.constant(sc.LOGITS)
    loss = tf.losses.softmax_cross_entropy(sc.ONEHOT, logits, weights=sc.W_ROWS)
    (grad,) = tf.gradients(loss, [logits])
    with tf.Session() as sess:
        got = sess.run(grad)
    present = np.count_nonzero(sc.W_ROWS)
    expected = sc.W_ROWS[:, None] * (_softmax(sc.LOGITS) - sc.ONEHOT) / present
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def test_all_zero_weights_give_a_zero_loss_and_a_finite_zero_gradient():
    predictions = tf.constant(sc.LOGITS)
    loss = tf.losses.mean_squared_error(sc.TARGETS, predictions, weights=np.zeros((4, 3), np.float32))
    (grad,) = tf.gradients(loss, [predictions])
    with tf.Session() as sess:
        value, g = sess.run([loss, grad])
    assert value == 0.0
    np.testing.assert_array_equal(g, np.zeros((4, 3)))


def test_minimizing_a_loss_trains_and_metrics_follow():
    # Fit y = 2x - 1 with mean_squared_error; the streaming RMSE over the last batch falls.
    x = tf.placeholder(tf.float32, [None, 1])
    y = tf.placeholder(tf.float32, [None, 1])
    w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(x, w) + b
    loss = tf.losses.mean_squared_error(y, pred)
    train = tf.train.GradientDescentOptimizer(0.3).minimize(tf.losses.get_total_loss())
    rmse, update = tf.metrics.root_mean_squared_error(y, pred)
    xs = np.linspace(-1, 1, 8, dtype=np.float32)[:, None]
    feed = {x: xs, y: 2 * xs - 1}
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        first = sess.run(update, feed)
        for _ in range(60):
            sess.run(train, feed)
        sess.run(tf.local_variables_initializer())
        last = sess.run(update, feed)
        final_loss = sess.run(loss, feed)
    assert first == pytest.approx(np.sqrt(np.mean((2 * xs - 1) ** 2)), rel=1e-5)
    assert last < 0.01 and final_loss == pytest.approx(last**2, rel=1e-3)


def test_metric_counters_are_local_not_trainable_and_survive_global_init():
    labels = tf.placeholder(tf.int64, [None])
    value, update = tf.metrics.accuracy(labels, labels * 0)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update, {labels: [0, 1, 0, 0]})
        sess.run(tf.global_variables_initializer())  # touches no metric counter
        assert sess.run(value) == 0.75
    assert tf.trainable_variables() == [] and tf.global_variables() == []
