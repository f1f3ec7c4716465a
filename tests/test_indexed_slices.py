"""``IndexedSlices``: the gradient of an embedding lookup is its rows, made dense beside the
variable (as TF1's sparse gradients reach the parameter server)."""

import json
import pathlib

import numpy as np
import pytest

import daskflow as tf
from tests.fixtures import scenarios_sparse_updates as scenarios

VOCAB = np.arange(12, dtype=np.float32).reshape(6, 2) / 10
UPDATES = json.loads((pathlib.Path(__file__).parent / "fixtures" / "sparse_updates.json").read_text())


pytestmark = pytest.mark.usefixtures("fresh_graph")


def _dense_by_hand(rows, indices, shape):
    out = np.zeros(shape, rows.dtype)
    np.add.at(out, indices, rows)
    return out


def test_a_lookups_gradient_is_its_rows_and_fetches_as_tf1s_value():
    emb = tf.Variable(VOCAB, name="emb")
    ids = tf.placeholder(tf.int32, [None, 2])
    weights = tf.constant([[1.0, -2.0]])
    loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, ids) * weights)
    (grad,) = tf.gradients(loss, [emb])
    assert isinstance(grad, tf.IndexedSlices) and grad.dtype == tf.float32
    feed = {ids: [[1, 4], [4, 0]]}
    with tf.Session() as sess:
        sess.run(emb.initializer)
        value, dense = sess.run([grad, tf.convert_to_tensor(grad)], feed)
    assert isinstance(value, tf.IndexedSlicesValue)
    assert value.indices.tolist() == [1, 4, 4, 0] and value.dense_shape.tolist() == [6, 2]
    np.testing.assert_array_equal(value.values, np.tile([[1.0, -2.0]], (4, 1)))
    np.testing.assert_array_equal(dense, _dense_by_hand(value.values, value.indices, (6, 2)))


def test_rows_join_rows_and_a_dense_contribution_makes_the_sum_dense():
    emb = tf.Variable(VOCAB, name="emb")
    first = tf.reduce_sum(tf.gather(emb, [0, 2]))
    second = tf.reduce_sum(tf.gather(emb, [2]) * 3.0)
    (rows,) = tf.gradients(first + second, [emb])
    (dense,) = tf.gradients(first + tf.reduce_sum(emb * emb), [emb])
    assert isinstance(rows, tf.IndexedSlices) and not isinstance(dense, tf.IndexedSlices)
    with tf.Session() as sess:
        sess.run(emb.initializer)
        got_rows, got_dense = sess.run([rows, dense])
    assert sorted(got_rows.indices.tolist()) == [0, 2, 2]
    expected = 2 * VOCAB
    expected[[0, 2]] += 1.0
    np.testing.assert_allclose(got_dense, expected, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(UPDATES["values"]))
def test_optimizers_update_rows_as_tf1_does(name):
    """TF1's answers (``tests/fixtures/make_sparse_updates.py``): its momentum moves only
    the rows a step looks up; the others' updates equal the dense gradient's."""
    np.testing.assert_allclose(scenarios.values(tf)[name], UPDATES["values"][name], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "optimizer",
    [
        lambda: tf.train.GradientDescentOptimizer(0.3),
        lambda: tf.train.AdamOptimizer(0.05),
        lambda: tf.train.AdagradOptimizer(0.2),
    ],
)
def test_training_on_rows_gives_what_the_dense_gradient_gives(optimizer):
    def train(dense):
        with tf.Graph().as_default():
            emb = tf.Variable(VOCAB, name="emb")
            ids = tf.constant([[1, 4], [4, 0], [5, 5]])
            loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids) - 1.0))
            opt = optimizer()
            pairs = opt.compute_gradients(loss, [emb])
            assert isinstance(pairs[0][0], tf.IndexedSlices)
            if dense:
                pairs = [(tf.convert_to_tensor(g), v) for g, v in pairs]
            step = opt.apply_gradients(pairs)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(4):
                    sess.run(step)
                return sess.run(emb)

    np.testing.assert_allclose(train(dense=False), train(dense=True), rtol=1e-6)


def test_the_rows_are_applied_on_the_parameter_server():
    spec = tf.train.ClusterSpec({"ps": ["ps-0"], "worker": ["worker-0", "worker-1"]})
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        emb = tf.Variable(VOCAB, name="emb")
        ids = tf.placeholder(tf.int32, [None])
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, ids))
        tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    updates = [
        op for op in tf.get_default_graph().get_operations() if op.type in ("ScatterAddTo", "ScatterSub")
    ]
    assert updates and all(op.device == emb.device == "/job:ps/task:0" for op in updates)
    lookup_grads = [op for op in tf.get_default_graph().get_operations() if op.name.startswith("gradients/")]
    assert all(op.device.startswith("/job:worker") for op in lookup_grads)


def test_a_slice_without_a_dense_shape_cannot_be_made_dense():
    rows = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
    with pytest.raises(ValueError, match="dense_shape is None"):
        tf.convert_to_tensor(rows)
